"""The schema class of every Developer API view (REST_FRAMEWORK's DEFAULT_SCHEMA_CLASS): drf-
spectacular's, plus the error answers of SPEC §3 on every operation. A module apart from
`developer_api.openapi`, whose view imports make DRF resolve this class while importing.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema

from developer_api.serializers import ErrorSerializer

# The error answers of SPEC §3 (one shape): declared on every operation.
ERROR_STATUSES = {
    "400": "invalid_request: bad input; the message names the field",
    "401": "invalid_token (or invalid_credentials at login)",
    "403": "workspace_disabled",
    "404": "not_found (also another workspace's ids) or no_active_key",
    "405": "method_not_allowed",
    "413": "payload_too_large",
    "415": "unsupported_media_type",
    "429": "rate_limited, with a Retry-After header",
    "503": "unavailable: a backing service is down; retry later",
}


class PamAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = dict(super()._get_response_bodies(direction))
        for status, description in ERROR_STATUSES.items():
            if status not in responses:
                response = self._get_response_for_code(ErrorSerializer, status, direction=direction)
                response["description"] = description
                responses[status] = response
        return responses
