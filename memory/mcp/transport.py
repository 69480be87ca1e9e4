"""The HTTP edge of `/v1/mcp/memory`: MCP 2025-11-25, Transports §Streamable HTTP.

Checks run in the order of SPEC §2.1, the first failing one answering: Host (Django, 400),
Origin (403), body size (413), credentials (401), JSON (400 -32700), message shape
(400 -32600), MCP-Protocol-Version (400 -32600), Mcp-Session-Id (404), then the method.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from memory.mcp import protocol, sessions
from memory.mcp.credentials import credential_from_header
from memory.mcp.errors import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, JsonRpcError, jsonrpc_error
from memory.mcp.tools import CallContext
from pam.jsonbody import json_loads

logger = logging.getLogger(__name__)

RESOURCE_PATH = "/v1/mcp/memory"


def _json(body: dict[str, Any], status: int = 200) -> JsonResponse:
    return JsonResponse(body, status=status, json_dumps_params={"ensure_ascii": False})


def _unauthorized(description: str) -> JsonResponse:
    # RFC 6750 §3 and RFC 9728 §5.1: point the client at the protected-resource metadata.
    response = _json({"error": "invalid_token", "error_description": description}, status=401)
    metadata = f"{settings.PAM_PUBLIC_BASE_URL}/.well-known/oauth-protected-resource{RESOURCE_PATH}"
    response["WWW-Authenticate"] = f'Bearer resource_metadata="{metadata}", scope="memory:read"'
    return response


def _origin_allowed(origin: str) -> bool:
    origin = origin.rstrip("/")
    return origin == settings.PAM_PUBLIC_ORIGIN or origin in settings.PAM_ALLOWED_ORIGINS


def _read_body(request: HttpRequest, limit: int) -> bytes | None:
    """The body, or None when it is over `limit` (with or without a Content-Length)."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        return None
    data = request.read(limit + 1)
    return None if len(data) > limit else data


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    request.get_host()  # Host outside ALLOWED_HOSTS: Django answers 400 (DisallowedHost).
    if request.method != "POST":
        response = _json(jsonrpc_error(None, INVALID_REQUEST, "Method not allowed: use POST"), 405)
        response["Allow"] = "POST"
        return response

    origin = request.headers.get("Origin")
    if origin is not None and not _origin_allowed(origin):
        # MCP 2025-11-25, Transports §Security Warning: validate Origin (DNS rebinding).
        return _json(jsonrpc_error(None, INVALID_REQUEST, "Forbidden: origin not allowed"), 403)

    body = _read_body(request, settings.PAM_MAX_REQUEST_BYTES)
    if body is None:
        return _json(
            jsonrpc_error(
                None,
                INVALID_REQUEST,
                f"Request body exceeds {settings.PAM_MAX_REQUEST_BYTES} bytes",
            ),
            413,
        )

    authorization = request.headers.get("Authorization", "")
    if not authorization.strip():
        return _unauthorized("Missing credentials: send Authorization: pam_mkey_<key> or a Bearer token.")
    try:
        credential = credential_from_header(authorization)
    except DatabaseError:
        logger.warning("credential lookup failed: the database is unavailable")
        return _json(jsonrpc_error(None, INTERNAL_ERROR, "Service unavailable: retry later"), 503)
    if credential is None:
        return _unauthorized("The key or token is unknown, revoked or expired.")

    try:
        message = json_loads(body)  # too deep nesting is a parse error too
    except (ValueError, UnicodeDecodeError):
        return _json(jsonrpc_error(None, PARSE_ERROR, "Parse error: the body is not valid JSON"), 400)
    try:
        protocol.validate_shape(message)
    except JsonRpcError as exc:
        return _json(jsonrpc_error(None, exc.code, exc.message), 400)
    msg_id = message.get("id")

    version = request.headers.get("MCP-Protocol-Version")
    if version is not None and version not in protocol.SUPPORTED_VERSIONS:
        return _json(
            jsonrpc_error(
                msg_id,
                INVALID_REQUEST,
                f"Unsupported MCP-Protocol-Version {version[:40]!r}; "
                f"supported: {', '.join(protocol.SUPPORTED_VERSIONS)}",
            ),
            400,
        )

    workspace = credential.workspace
    method = message.get("method")
    session_header = request.headers.get("Mcp-Session-Id")
    if method == "initialize":
        session_id: str | None = sessions.handshake_session(workspace=workspace)
    elif session_header is not None:
        if not sessions.session_is_valid(workspace=workspace, session_id=session_header):
            return _json(jsonrpc_error(msg_id, INVALID_REQUEST, "Session not found: re-initialize"), 404)
        session_id = session_header
    else:
        session_id = None  # sessions are never required

    if protocol.is_notification_or_response(message):
        # Streamable HTTP: notifications and responses are accepted with 202 and no body.
        return HttpResponse(status=202)

    context = CallContext(credential=credential, handshake_session_id=session_id)
    try:
        result = protocol.dispatch(message, context)
        response = _json({"jsonrpc": "2.0", "id": msg_id, "result": result})
    except JsonRpcError as exc:
        response = _json(jsonrpc_error(msg_id, exc.code, exc.message, exc.data))
    except Exception:  # never a 500: a JSON-RPC internal error, logged without secrets
        logger.exception("MCP method %s failed for workspace %s", method, workspace.pk)
        response = _json(jsonrpc_error(msg_id, INTERNAL_ERROR, "Internal error"))
    if method == "initialize" and session_id:
        response["Mcp-Session-Id"] = session_id
    return response
