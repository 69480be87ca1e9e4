"""Hostile input, generated: hypothesis writes JSON-RPC messages, tool arguments, encodings
and headers for `POST /v1/mcp/memory` (issue 17 "What to build" 1). Every answer must be one
SPEC §2.1 documents — a success, a 202, or a documented status with a JSON-RPC error of a
documented code (never -32603, never a 500) — and nothing may change in another workspace.

Capped to fit CI: PAM_FUZZ_EXAMPLES (default 250) examples per test, derandomized so a CI
failure reproduces; each test prints the cases it tried by outcome. Numbers include NaN and ±Infinity, which Python's
JSON reader accepts (issue 17 defect 2: such calls must still be logged and answered).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any, Callable

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings as fuzz_settings, strategies as st

from developer_api.keys import api_key_rotate
from developer_api.models import RequestLog
from memory.mcp.protocol import SUPPORTED_VERSIONS
from memory.mcp.tools import tools_for
from memory.models import Fact, McpSession, Source, Workspace

EXAMPLES = int(os.environ.get("PAM_FUZZ_EXAMPLES", "250"))
FUZZ = fuzz_settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
DOCUMENTED_STATUS = {200, 202, 400, 401, 403, 404, 405, 413}
# SPEC §2.1: parse error, invalid request, unknown method, unknown tool. -32603 (internal
# error) is no documented answer: a failure inside a tool is an isError result.
DOCUMENTED_CODES = {-32700, -32600, -32601, -32602}
METHODS = [
    "initialize", "ping", "tools/list", "tools/call", "resources/list", "prompts/list",
    "notifications/initialized", "notifications/cancelled", "server/discover", "resources/read",
    "logging/setLevel", "completion/complete", "", "rpc.discover",
]
TOOL_NAMES = [tool.name for tool in tools_for(frozenset({"memory:read", "memory:write"}))]

def mostly(usual: st.SearchStrategy[Any], odd: st.SearchStrategy[Any], one_in: int = 5) -> st.SearchStrategy[Any]:
    """`usual` (where hypothesis shrinks to), `odd` about once in `one_in` draws."""
    return st.sampled_from([True] * (one_in - 1) + [False]).flatmap(lambda usual_one: usual if usual_one else odd)


printable = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats() | st.text(max_size=60)
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=25,
)
prompts = st.one_of(
    st.text(max_size=200),
    st.sampled_from(["Who leads Platform Engineering?", "What is the refund policy?", "hi", " ", "\x00", "\ud800"]),
    st.text(min_size=7_990, max_size=8_010, alphabet="ab "),  # around the 8,000-character limit
    json_values,
)


@st.composite
def tool_arguments(draw: Callable[..., Any]) -> Any:
    if not draw(mostly(st.just(True), st.just(False), 10)):
        return draw(json_values)  # not an object at all
    arguments: dict[str, Any] = {}
    if draw(mostly(st.just(True), st.just(False))):
        arguments["prompt"] = draw(prompts)
    if draw(st.booleans()):
        arguments["session_id"] = draw(st.text(max_size=300) | json_values)
    if draw(mostly(st.just(False), st.just(True))):
        arguments.update(draw(st.dictionaries(st.text(max_size=12), json_values, min_size=1, max_size=2)))
    return arguments


@st.composite
def messages(draw: Callable[..., Any]) -> Any:
    message: dict[str, Any] = {"jsonrpc": draw(mostly(st.just("2.0"), json_values, 10))}
    if draw(mostly(st.just(True), st.just(False))):
        message["id"] = draw(mostly(st.integers(-(2**63), 2**63) | st.text(max_size=20), json_values))
    if draw(mostly(st.just(True), st.just(False), 10)):
        message["method"] = draw(mostly(st.sampled_from(METHODS), st.text(max_size=30) | json_values))
    method = message.get("method")
    if method == "tools/call" and draw(mostly(st.just(True), st.just(False))):
        params: Any = {"name": draw(mostly(st.sampled_from(TOOL_NAMES), st.text(max_size=20) | json_values))}
        if draw(mostly(st.just(True), st.just(False))):
            params["arguments"] = draw(tool_arguments())
        if draw(st.booleans()):
            params["_meta"] = draw(json_values)
    elif method == "initialize" and draw(st.booleans()):
        params = {"protocolVersion": draw(st.sampled_from(SUPPORTED_VERSIONS) | printable | json_values),
                  "capabilities": draw(json_values), "clientInfo": draw(json_values)}
    else:
        params = draw(mostly(st.dictionaries(st.text(max_size=12), json_values, max_size=3), json_values))
    if draw(mostly(st.just(True), st.just(False), 3)):
        message["params"] = params
    if draw(mostly(st.just(False), st.just(True), 6)):
        message.update(draw(st.dictionaries(st.sampled_from(["result", "error", "extra"]), json_values, max_size=2)))
    return message


@st.composite
def bodies(draw: Callable[..., Any]) -> bytes:
    """A message in one of several encodings, or something that is not one at all."""
    kind = draw(st.sampled_from(["message"] * 17 + ["binary", "json value", "deep"]))
    if kind == "binary":
        return bytes(draw(st.binary(max_size=200)))
    if kind == "json value":
        return json.dumps(draw(json_values)).encode()  # maybe an array (a batch)
    if kind == "deep":
        depth = draw(st.integers(1, 3000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        return (opener * depth + "1" + closer * depth).encode()
    text = json.dumps(draw(messages()), ensure_ascii=draw(st.booleans()))
    encoding = draw(mostly(st.just("utf-8"), st.sampled_from(["utf-16", "utf-32", "utf-8-sig", "latin-1"])))
    return text.encode(encoding, errors="surrogatepass" if encoding.startswith("utf-") else "replace")


@st.composite
def header_sets(draw: Callable[..., Any], key: str, session_id: str) -> dict[str, str]:
    headers: dict[str, str] = {}
    auth = draw(mostly(st.just(key), st.sampled_from([f"Bearer {key}", "", f"{key}x", "Bearer "]) | printable, 8))
    if auth:
        headers["Authorization"] = auth
    if draw(st.booleans()):
        headers["MCP-Protocol-Version"] = draw(mostly(st.sampled_from(SUPPORTED_VERSIONS), printable))
    if draw(st.booleans()):
        headers["Mcp-Session-Id"] = draw(mostly(st.just(session_id), printable))
    if draw(mostly(st.just(False), st.just(True), 8)):
        headers["Origin"] = draw(st.sampled_from(["http://127.0.0.1:8000", "https://evil.example", "null"]) | printable)
    return headers


def other_workspace_state(other: Workspace) -> tuple[int, ...]:
    return (
        RequestLog.objects.filter(workspace=other).count(),
        Source.objects.filter(workspace=other).count(),
        Fact.objects.filter(workspace=other).count(),
        McpSession.objects.filter(workspace=other).count(),
    )


def check(response: Any, outcomes: Counter[str]) -> None:
    status = response.status_code
    assert status in DOCUMENTED_STATUS, (status, response.content[:500])
    if status == 202:
        outcomes["202 accepted"] += 1
        assert response.content == b""
        return
    assert response["Content-Type"].split(";")[0] == "application/json", response["Content-Type"]
    body = json.loads(response.content)
    if status == 401:
        assert body["error"] == "invalid_token"
        outcomes["401 invalid_token"] += 1
        return
    assert body["jsonrpc"] == "2.0", body
    if "error" in body:
        assert body["error"]["code"] in DOCUMENTED_CODES, body
        outcomes[f"{status} {body['error']['code']}"] += 1
        return
    assert status == 200 and "result" in body, body
    result = body["result"]
    if isinstance(result, dict) and "isError" in result:
        assert isinstance(result["isError"], bool) and isinstance(result["content"], list), result
        outcomes[f"200 tool {'error' if result['isError'] else 'success'}"] += 1
    else:
        outcomes["200 result"] += 1


def report(name: str, outcomes: Counter[str]) -> None:
    cases = ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items()))
    print(f"\n{name}: {sum(outcomes.values())} cases tried ({cases})")


@pytest.fixture
def fuzz_target(imported_workspace: Workspace, make_workspace: Callable[..., Workspace], client: Client) -> tuple[Client, str, str, Workspace]:
    key = api_key_rotate(workspace=imported_workspace).api_key
    other = make_workspace("other")
    api_key_rotate(workspace=other)
    init = client.post(
        "/v1/mcp/memory", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}),
        content_type="application/json", headers={"Authorization": key},
    )
    return client, key, init["Mcp-Session-Id"], other


def test_generated_messages_headers_and_encodings_get_documented_answers(fuzz_target: tuple[Client, str, str, Workspace]) -> None:
    client, key, session_id, other = fuzz_target
    before = other_workspace_state(other)
    outcomes: Counter[str] = Counter()

    @FUZZ
    @given(body=bodies(), headers=header_sets(key, session_id), content_type=st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8", "application/x-www-form-urlencoded", ""]))
    def one(body: bytes, headers: dict[str, str], content_type: str) -> None:
        check(client.post("/v1/mcp/memory", data=body, content_type=content_type, headers=headers), outcomes)

    try:
        one()
    finally:
        report("messages, headers, encodings", outcomes)
    assert other_workspace_state(other) == before


def test_generated_tool_calls_get_documented_answers(fuzz_target: tuple[Client, str, str, Workspace]) -> None:
    client, key, _, other = fuzz_target
    mine = RequestLog.objects.exclude(workspace=other)
    before = other_workspace_state(other)
    outcomes: Counter[str] = Counter()

    @FUZZ
    @given(name=mostly(st.sampled_from(TOOL_NAMES), st.text(max_size=20), 8), arguments=tool_arguments(), msg_id=st.integers(0, 2**53) | st.text(max_size=10))
    def one(name: str, arguments: Any, msg_id: Any) -> None:
        message = {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        logged = mine.count()
        response = client.post("/v1/mcp/memory", json.dumps(message), content_type="application/json", headers={"Authorization": key})
        check(response, outcomes)
        assert response.status_code == 200, response.content[:300]
        assert response.json()["id"] == msg_id
        if "result" in response.json():  # SPEC §2.2: every call of a tool is logged, once
            assert mine.count() == logged + 1, message

    try:
        one()
    finally:
        report("tools/call arguments", outcomes)
    assert other_workspace_state(other) == before


def test_an_oversized_body_is_413_whatever_it_holds(fuzz_target: tuple[Client, str, str, Workspace], settings: Any) -> None:
    client, key, _, _ = fuzz_target
    settings.PAM_MAX_REQUEST_BYTES = 2048
    outcomes: Counter[str] = Counter()

    @fuzz_settings(FUZZ, max_examples=min(EXAMPLES, 50))  # one code path: fewer cases
    @given(body=st.binary(min_size=2049, max_size=6000))
    def one(body: bytes) -> None:
        response = client.post("/v1/mcp/memory", data=body, content_type="application/json", headers={"Authorization": key})
        check(response, outcomes)
        assert response.status_code == 413

    try:
        one()
    finally:
        report("oversized bodies", outcomes)
