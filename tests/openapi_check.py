"""Every Developer API and REST memory API answer the test suite produces is checked against the OpenAPI document
(`/v1/dev/openapi.json`, SPEC §3): its path, method and status must be declared, and its JSON
body must validate against the declared schema. Installed for every test by tests/conftest.py
as a middleware of the test client; a mismatch fails the test that produced it."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, Callable

from django.http import HttpRequest, HttpResponseBase
from jsonschema import Draft202012Validator

CHECKED_PREFIXES = ("/v1/dev/", "/v1/auth/", "/v1/memory")
UNCHECKED = ("/v1/dev/openapi.json", "/v1/dev/docs")

mismatches: list[str] = []


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    return json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))


@lru_cache(maxsize=1)
def _routes() -> list[tuple[re.Pattern[str], dict[str, Any]]]:
    routes = []
    # Literal paths first: "/v1/memory/export" is not "/v1/memory/{reference}".
    for template, operations in sorted(document()["paths"].items(), key=lambda item: item[0].count("{")):
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template)  # the paths hold no other regex syntax
        routes.append((re.compile(f"^{pattern}$"), operations))
    return routes


def problems(method: str, path: str, status: int, body: bytes, content_type: str) -> list[str]:
    """What does not match the document (empty when the answer is as documented)."""
    where = f"{method} {path} → {status}"
    operations = next((ops for pattern, ops in _routes() if pattern.match(path)), None)
    if operations is None:
        return [] if status in (404, 405) else [f"{where}: path not in the OpenAPI document"]
    operation = operations.get(method.lower())
    if operation is None:
        return [] if status == 405 else [f"{where}: method not in the OpenAPI document"]
    response = operation["responses"].get(str(status))
    if response is None:
        return [f"{where}: status not declared ({sorted(operation['responses'])})"]
    schema = (response.get("content") or {}).get("application/json", {}).get("schema")
    if schema is None:
        return []
    if not content_type.startswith("application/json"):
        return [f"{where}: expected JSON, got {content_type}"]
    validator = Draft202012Validator({"allOf": [schema], "components": document()["components"]})
    return [f"{where}: {error.json_path}: {error.message}" for error in validator.iter_errors(json.loads(body))][:3]


class OpenApiCheckMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        path = request.path
        if path.startswith(CHECKED_PREFIXES) and not path.startswith(UNCHECKED) and not response.streaming:
            mismatches.extend(
                problems(request.method or "GET", path, response.status_code, response.content, response.get("Content-Type", ""))
            )
        return response
