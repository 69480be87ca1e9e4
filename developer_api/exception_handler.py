"""One error shape for `/v1/dev/*`, `/v1/auth/*` and `/v1/memory`: {"error_code",
"error_message"} (SPEC §3); on `/v1/memory` invalid arguments are HTTP 422 with the field
errors of SPEC §2.4 added: {"error_code": "invalid_arguments", "error_message", "errors":
[{"field", "message"}]}."""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler
from rest_framework_simplejwt.exceptions import InvalidToken, TokenError

from pam.errors import FieldErrors, PamError
from pam.ratelimit import RateLimited

STATUS_BY_CODE = {
    "invalid_token": 401,
    "invalid_credentials": 401,
    "workspace_disabled": 403,
    "not_found": 404,
    "no_active_key": 404,
    "invalid_request": 400,
    "method_not_allowed": 405,
    "unsupported_media_type": 415,
    "unavailable": 503,
    "payload_too_large": 413,
    "conflict": 409,
    "capture_refused": 422,
    "rate_limited": 429,
}


def error_response(code: str, message: str, status: int | None = None) -> Response:
    return Response({"error_code": code, "error_message": message}, status=status or STATUS_BY_CODE.get(code, 400))


def _first_field_error(detail: Any, path: str = "") -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = key if key != "non_field_errors" else ""
            return _first_field_error(value, f"{path}.{name}".strip(".") if name else path)
    if isinstance(detail, list) and detail:
        return _first_field_error(detail[0], path)
    return f"{path}: {detail}" if path else str(detail)


def pam_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RateLimited):
        response = error_response(exc.code, exc.message)
        response["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, PamError):
        return error_response(exc.code, exc.message)
    if isinstance(exc, (InvalidToken, TokenError, exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        response = error_response("invalid_token", "The access token is missing, malformed, expired or revoked.", 401)
        response["WWW-Authenticate"] = 'Bearer realm="pam-developer-api"'
        return response
    if isinstance(exc, (Http404, exceptions.NotFound)):
        return error_response("not_found", "Not found.")
    if isinstance(exc, exceptions.ValidationError):
        return error_response("invalid_request", _first_field_error(exc.detail))
    if isinstance(exc, exceptions.ParseError):
        return error_response("invalid_request", f"Malformed request body: {exc.detail}")
    if isinstance(exc, exceptions.MethodNotAllowed):
        return error_response("method_not_allowed", str(exc.detail))
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return error_response("unsupported_media_type", str(exc.detail))
    if isinstance(exc, exceptions.PermissionDenied):
        return error_response("forbidden", str(exc.detail), 403)
    if isinstance(exc, exceptions.Throttled):
        return error_response("rate_limited", str(exc.detail), 429)
    if isinstance(exc, DatabaseError):
        return error_response("unavailable", "A backing service is unavailable; retry later.")
    fallback = exception_handler(exc, context)
    if fallback is not None:
        return error_response("invalid_request", str(getattr(exc, "detail", exc)), fallback.status_code)
    return None


def _field_errors(detail: Any, path: str = "") -> list[dict[str, str]]:
    """DRF's nested error detail as SPEC §2.4's flat [{"field", "message"}]."""
    if isinstance(detail, dict):
        found = []
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else str(key)
            found += _field_errors(value, f"{path}.{name}".strip(".") if name else path)
        return found
    if isinstance(detail, list):
        return [error for item in detail for error in _field_errors(item, path)]
    return [{"field": path, "message": str(detail)}]


def invalid_arguments(errors: list[dict[str, str]]) -> Response:
    exc = FieldErrors(errors)
    return Response({"error_code": exc.code, "error_message": exc.message, "errors": exc.errors}, status=422)


def memory_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """`/v1/memory`: invalid arguments (a serializer's, or a service's `FieldErrors`) → 422 in
    SPEC §2.4's shape; everything else as on `/v1/dev/*`."""
    if isinstance(exc, FieldErrors):
        return invalid_arguments(exc.errors)
    if isinstance(exc, exceptions.ValidationError):
        return invalid_arguments(_field_errors(exc.detail))
    return pam_exception_handler(exc, context)
