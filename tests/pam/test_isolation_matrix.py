"""Tenants never see each other (SPEC §1), as a matrix generated from the URL conf and the
MCP tool registry: a new route or tool is covered without a new test.

* Every Developer API and REST memory API (/v1/memory) route that takes an id in its path, for every method its view answers,
  called with workspace A's JWT and workspace B's id → 404 `not_found`, and B's data is
  unchanged. A route whose id kind has no factory below fails the suite until one is added.
* Every Developer API GET route without an id, called by A, shows nothing of B's.
* Every MCP tool, called with A's key and arguments built from its inputSchema that name B's
  facts, ids and session → nothing of B's; B's Mcp-Session-Id on A's calls → 404.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from developer_api.keys import api_key_rotate
from memory.mcp.tools import tools_for
from memory.models import AgentMemory, Document, PipelineRun, Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import run_create
from tests.developer_api.conftest import access_token

MARKER = "Zorblax"  # only workspace B's documents say it
B_ONLY = ("Vantablack", "912,345", "912345", "Quillfeather")  # in B's facts, not in the probes
B_DOCUMENT = f"# Vantablack programme\n\n{MARKER} Quillfeather leads the Vantablack programme.\nThe {MARKER} budget is $912,345.\n"
METHODS = ("get", "post", "put", "patch", "delete")
ALL_SCOPES = frozenset({"memory:read", "memory:write"})


@dataclass
class Route:
    name: str
    template: str  # "/v1/dev/sources/{source_id}/sync"
    params: list[str]
    methods: list[str]

    def url(self, values: dict[str, Any]) -> str:
        return self.template.format(**values)


def _walk(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def developer_api_routes() -> list[Route]:
    routes = []
    for raw, pattern in _walk(get_resolver().url_patterns):
        view_class = getattr(pattern.callback, "view_class", None)
        if not raw.startswith(("v1/dev/", "v1/memory")) or view_class is None:
            continue
        params = list(pattern.pattern.converters)
        template = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", raw)
        methods = [m for m in METHODS if hasattr(view_class, m)]
        routes.append(Route(pattern.name or raw, template, params, methods))
    return routes


ROUTES = developer_api_routes()
ID_ROUTES = [(r, m) for r in ROUTES if r.params for m in r.methods]
LIST_ROUTES = [r for r in ROUTES if not r.params and "get" in r.methods]


@dataclass
class Tenant:
    workspace: Workspace
    key: str
    source: Source
    bearer: dict[str, str]
    session_id: str
    request_id: str
    memory: str  # the reference of an agent memory (a forgotten one: restore finds it)


def _connection_id(b: Tenant) -> int:
    """An OAuth connection of B's (the OAuth issue's oauth.connections)."""
    import uuid
    from datetime import timedelta

    from django.utils import timezone
    from oauth2_provider.models import get_application_model

    from oauth.connections import connection_open  # type: ignore[attr-defined]

    application = get_application_model().objects.create(
        name="B's client", client_type="public", authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1/callback",
    )
    connection = connection_open(
        user=b.workspace.users.get(), application=application, scope="memory:read",
        token_family=uuid.uuid4(), access_expires=timezone.now() + timedelta(hours=1),
    )
    return int(connection.pk)


# One factory per kind of id a route takes: B's object of that kind.
ID_FACTORIES: dict[str, Callable[[Tenant], Any]] = {
    "source_id": lambda b: b.source.pk,
    "reference": lambda b: b.memory,
    "request_id": lambda b: b.request_id,
    "connection_id": _connection_id,
}


def mcp(client: Client, key: str, method: str, params: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, **({"params": params} if params is not None else {})}
    return client.post(
        "/v1/mcp/memory", json.dumps(body), content_type="application/json", headers={"Authorization": key, **(headers or {})}
    )


@pytest.fixture
def tenants(make_workspace: Callable[..., Workspace], tmp_path: Path, corpus_dir: Path, settings: Any) -> tuple[Tenant, Tenant]:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    client = Client()
    made = []
    for slug, files in (("acme", None), ("bravo", {"vantablack.md": B_DOCUMENT})):
        workspace = make_workspace(slug)
        location = corpus_dir if files is None else tmp_path / slug
        for name, text in (files or {}).items():
            location.mkdir(parents=True, exist_ok=True)
            (location / name).write_text(text)
        source = Source.objects.create(workspace=workspace, name=f"{slug} documents", kind="auto", location=str(location))
        assert source_sync(run_id=run_create(source=source).pk).status == "completed"
        key = api_key_rotate(workspace=workspace).api_key
        session = mcp(client, key, "initialize", {"protocolVersion": "2025-11-25"})["Mcp-Session-Id"]
        call = mcp(client, key, "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": f"Who leads the {slug} work?", "session_id": f"{slug}-session"}})
        request_id = call.json()["result"]["structuredContent"]["diagnostics"]["request_id"]
        bearer = {"Authorization": f"Bearer {access_token(client, f'admin@{slug}.example')}"}
        note = f"{MARKER} Quillfeather keeps the programme notes." if files else "The team keeps its notes in the wiki."
        remembered = {"path": "team/notes", "content": note}
        memory = mcp(client, key, "tools/call", {"name": "remember", "arguments": remembered}).json()["result"]["structuredContent"]["reference"]
        made.append(Tenant(workspace, key, source, bearer, session, request_id, memory))
    return made[0], made[1]


def b_state(b: Tenant) -> tuple[Any, ...]:
    source = Source.objects.filter(pk=b.source.pk).values_list("name", "status", "location").first()
    memories = list(AgentMemory.objects.filter(workspace=b.workspace).values_list("reference", "content", "deleted_at", "updated_at"))
    runs = PipelineRun.objects.filter(source_id=b.source.pk).count()
    return (source, Document.objects.filter(source_id=b.source.pk).count(), runs, memories)


def test_the_matrix_covers_the_id_routes() -> None:
    print(f"\nisolation matrix: {len(ID_ROUTES)} id route x method cases, {len(LIST_ROUTES)} list routes, "
          f"{len(tools_for(ALL_SCOPES))} MCP tools")
    assert ID_ROUTES, "no Developer API route takes an id: the URL walk is broken"
    unknown = sorted({p for r, _ in ID_ROUTES for p in r.params} - set(ID_FACTORIES))
    assert unknown == [], f"add a factory to ID_FACTORIES for {unknown}"


@pytest.mark.parametrize("route, method", ID_ROUTES, ids=[f"{m.upper()} {r.template}" for r, m in ID_ROUTES])
def test_another_workspaces_id_is_not_found(tenants: tuple[Tenant, Tenant], route: Route, method: str) -> None:
    a, b = tenants
    client = Client(raise_request_exception=False)
    url = route.url({name: ID_FACTORIES[name](b) for name in route.params})
    before = b_state(b)

    body = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
    response = getattr(client, method)(url, headers=a.bearer, **body)

    assert response.status_code == 404, (url, response.status_code, response.content[:300])
    assert response.json()["error_code"] == "not_found"
    assert MARKER not in response.content.decode()
    assert b_state(b) == before
    if method == "get":  # the id is real: its owner gets it
        assert getattr(client, method)(url, headers=b.bearer).status_code == 200


@pytest.mark.parametrize("route", LIST_ROUTES, ids=[r.template for r in LIST_ROUTES])
def test_a_list_shows_nothing_of_another_workspace(tenants: tuple[Tenant, Tenant], route: Route) -> None:
    a, b = tenants
    response = Client(raise_request_exception=False).get(route.template, headers=a.bearer)

    assert response.status_code == 200, response.content[:300]
    text = (b"".join(response.streaming_content) if response.streaming else response.content).decode()  # type: ignore[attr-defined]
    for secret in (MARKER, "bravo documents", b.request_id, b.key[:17], b.session_id, b.memory):
        assert secret not in text, (route.template, secret)


def _arguments(schema: dict[str, Any], b: Tenant) -> list[dict[str, Any]]:
    """Argument sets for a tool, from its inputSchema: the first string property (the
    question) asks about B's facts; each other string property gets, in turn, B's session id,
    B's request id and B's session key; integers get B's source id, arrays the question."""
    properties = schema.get("properties", {})
    question = f"What does {MARKER} lead, and what is the {MARKER} programme's budget?"
    first = next((name for name, spec in properties.items() if spec.get("type") == "string"), None)
    sets = []
    for b_id in (b.session_id, b.request_id, f"{b.workspace.slug}-session"):
        args: dict[str, Any] = {}
        for name, spec in properties.items():
            kind = spec.get("type")
            if kind == "string":
                args[name] = question if name == first else b_id
            elif kind == "integer":
                args[name] = b.source.pk
            elif kind == "array":
                args[name] = [question]
        sets.append(args)
    return sets


def test_no_tool_shows_another_workspaces_memory(tenants: tuple[Tenant, Tenant]) -> None:
    a, b = tenants
    client = Client(raise_request_exception=False)
    tools = tools_for(ALL_SCOPES)
    calls = 0
    for tool in tools:
        for args in _arguments(tool.input_schema, b):
            response = mcp(client, a.key, "tools/call", {"name": tool.name, "arguments": args})
            assert response.status_code == 200, response.content[:300]
            text = response.content.decode()
            for value in args.values():  # the tool may echo its own arguments back
                for echo in (value, json.dumps(value, ensure_ascii=False)[1:-1]) if isinstance(value, str) else ():
                    text = text.replace(echo, "")
            for secret in (MARKER, *B_ONLY, b.request_id, b.session_id, "bravo"):
                assert secret not in text, (tool.name, args, secret)
            calls += 1
    # The probe is meaningful: B's own key finds B's facts.
    question = _arguments({"properties": {"prompt": {"type": "string"}}}, b)[0]["prompt"]
    own = mcp(client, b.key, "tools/call", {"name": "retrieve_memory", "arguments": {"prompt": question}})
    assert all(word in own.content.decode() for word in (MARKER, "Vantablack", "Quillfeather"))
    print(f"\n{calls} tool calls over {len(tools)} tools with B's facts and ids: nothing of B's returned")


def test_another_workspaces_session_is_not_found(tenants: tuple[Tenant, Tenant]) -> None:
    a, b = tenants

    response = mcp(Client(), a.key, "ping", headers={"Mcp-Session-Id": b.session_id})

    assert response.status_code == 404
