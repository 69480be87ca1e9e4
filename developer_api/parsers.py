"""The Developer API's JSON parser: DRF's, with the nesting bound of pam.jsonbody (SPEC §3:
a malformed body is 400 invalid_request, never a 500)."""

from __future__ import annotations

from typing import Any, Mapping

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from pam.jsonbody import MAX_JSON_DEPTH, JsonTooDeep, json_depth_check


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
            json_depth_check(data)
        except (RecursionError, JsonTooDeep) as exc:
            raise ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.") from exc
        return data
