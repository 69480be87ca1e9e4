"""JSON-RPC 2.0 dispatch for MCP (revision 2025-11-25, Streamable HTTP).

The transport has already authenticated the caller and checked headers; this layer checks the
message shape, negotiates the protocol version and routes methods to the tool registry.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from memory.mcp.calls import tool_call
from memory.mcp.errors import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, JsonRpcError
from memory.mcp.tools import CallContext, tools_for

LATEST_VERSION = "2025-11-25"
# MCP 2025-11-25, Lifecycle §Version Negotiation: answer the client's version when we support
# it, else our latest.
SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
SERVER_VERSION = "0.1.0"

INSTRUCTIONS = (
    "PAM is your organisation's company memory. Call `retrieve_memory` with a plain-language "
    "prompt whenever a task may depend on company-specific context: people, teams and owners, "
    "projects, decisions, priorities, processes, customers, internal terminology, documents, "
    "meetings or history. Prefer retrieving before assuming. Read the summary and the "
    "top-ranked facts first; use `documents` only when you need source-level detail. If the "
    "coverage is partial or minimal, say so and ask a focused follow-up."
)


def validate_shape(message: Any) -> None:
    """JSON-RPC 2.0 §4/§5: one object with jsonrpc "2.0"; batches are refused (SPEC §2.1)."""
    if not isinstance(message, dict):
        raise JsonRpcError(INVALID_REQUEST, "Invalid Request: expected one JSON-RPC 2.0 object")
    if message.get("jsonrpc") != "2.0":
        raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
    if "id" in message:
        msg_id = message["id"]
        # MCP 2025-11-25, Basic §Requests: the id is a string or integer, never null.
        if isinstance(msg_id, bool) or not isinstance(msg_id, (str, int)):
            raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    if "method" in message:
        if not isinstance(message["method"], str) or not message["method"]:
            raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string')
        if "params" in message and message["params"] is not None and not isinstance(
            message["params"], dict
        ):
            raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "params" must be an object')
    elif not ("id" in message and ("result" in message or "error" in message)):
        raise JsonRpcError(INVALID_REQUEST, 'Invalid Request: "method" is required')


def is_notification_or_response(message: dict[str, Any]) -> bool:
    return "id" not in message or "method" not in message


def dispatch(message: dict[str, Any], context: CallContext) -> Any:
    """The `result` for a request; raises JsonRpcError for a JSON-RPC error."""
    method = message["method"]
    params = message.get("params") or {}
    scopes = context.credential.scopes
    if method == "initialize":
        requested = params.get("protocolVersion")
        version = requested if requested in SUPPORTED_VERSIONS else LATEST_VERSION
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": settings.PAM_MCP_SERVER_NAME, "title": "PAM company memory", "version": SERVER_VERSION},
            "instructions": INSTRUCTIONS,
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [tool.definition() for tool in tools_for(scopes)]}
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    if method == "prompts/list":
        return {"prompts": []}
    if method == "tools/call":
        name = params.get("name")
        if not isinstance(name, str):
            raise JsonRpcError(INVALID_PARAMS, 'Invalid params: "name" must be a string')
        return tool_call(context, name, params.get("arguments"))
    # Includes the 2026-07-28 revision's `server/discover`: dual-era clients fall back to
    # `initialize` on -32601.
    raise JsonRpcError(METHOD_NOT_FOUND, f"Method not found: {method[:100]}")

