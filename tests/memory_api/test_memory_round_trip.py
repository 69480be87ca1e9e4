"""Issue 14, done when: "a JSONL round trip preserves what `recall` answers" — memories written
with `remember` (and changed through /v1/memory) in one workspace, exported through
GET /v1/memory/export and imported through POST /v1/memory/import into an empty workspace,
give the same `recall` answers through the MCP endpoint (references aside: they are unique
across the installation, so the copy gets its own)."""

from __future__ import annotations

from typing import Any, Callable

from django.test import Client

from memory.models import AgentMemory, Workspace
from tests.memory.xmemo import mcp_for, remember
from tests.memory_api.conftest import URL, bearer

MEMORIES: list[dict[str, Any]] = [
    {"path": "projects/pam/decisions", "content": "We chose PostgreSQL for production and SQLite for laptops.", "memory_type": "decision", "importance": 0.9},
    {"path": "projects/pam/release", "content": "PAM releases ship every second Wednesday.", "project": "pam", "semantic_key": "pam-release"},
    {"path": "projects/pam/release", "content": "PAM releases ship every Thursday after the demo.", "project": "pam", "semantic_key": "pam-release"},
    {"path": "people/dana", "content": "Dana Ortiz leads Platform Engineering and prefers written updates.", "team": "platform"},
    {"path": "clients/northwind", "content": "Northwind Retail renews its contract in October.", "bucket": "sales", "team": "sales"},
    {"path": "ops/oncall", "content": "The on-call rotation changes every Tuesday at noon.", "metadata": {"source": "runbook"}},
    {"path": "ops/incidents", "content": "Incident reviews happen within five working days.", "confidence": 0.7},
]
QUERIES = [
    "which database did we choose for production",
    "when do PAM releases ship",
    "who leads platform engineering",
    "Northwind contract renewal",
    "on-call rotation",
    "incident review deadline",
    "release demo thursday",
    "something nobody wrote about zebras",
]


def answers(mcp: Any, query: str) -> list[dict[str, Any]]:
    result = mcp.call({"query": query, "limit": 10}, name="recall")
    assert result["isError"] is False, result
    return [
        {k: item[k] for k in ("content", "type", "location", "relevance_score", "origin")}
        | {k: item["attribution"].get(k) for k in ("bucket", "team", "project", "semantic_key", "importance", "confidence", "written_at", "updated_at")}
        for item in result["structuredContent"]["results"]
    ]


def test_an_export_imported_into_an_empty_workspace_answers_recall_the_same(
    client: Client, workspace: Workspace, make_workspace: Callable[..., Workspace]
) -> None:
    source = mcp_for(workspace)
    for memory in MEMORIES:
        remember(source, **memory)
    patched = AgentMemory.objects.get(path="ops/incidents")
    response = client.patch(
        f"{URL}/{patched.reference}", {"content": "Incident reviews happen within three working days."},
        content_type="application/json", headers=bearer(client, workspace),
    )
    assert response.status_code == 200, response.content
    export = b"".join(client.get(f"{URL}/export", headers=bearer(client, workspace)).streaming_content)  # type: ignore[attr-defined]

    empty = make_workspace("copy")
    response = client.post(f"{URL}/import", export, content_type="application/x-ndjson", headers=bearer(client, empty))
    assert response.status_code == 200, response.content
    assert (response.json()["created"], response.json()["failed"]) == (6, 0)

    copy = mcp_for(empty)
    for query in QUERIES:
        assert answers(copy, query) == answers(source, query), query
    assert answers(source, "incident review deadline")[0]["content"] == "Incident reviews happen within three working days."
