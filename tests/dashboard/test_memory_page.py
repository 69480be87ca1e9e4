"""The Memory page of the dashboard (SPEC §5, §6; issue 15): admins see what agents see — the
context tree with each section's markdown, facts with provenance, entities with their
relationships, the agent memories with who wrote them, and a search through the agents' reads.
Data is built through the real pipeline and the real MCP tools."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import pytest
from django.test import Client
from django.urls import reverse

from developer_api.models import RequestLog
from memory.models import AgentMemory, Entity, Fact, Relationship, Section, User, Workspace
from memory.pipelines.sync import source_sync
from memory.models import Source
from tests.conftest import FIXTURE_CORPUS, Mcp, run_create
from tests.memory.xmemo import mcp_for, remember

INLINE = re.compile(r"<style|\sstyle=|<script(?![^>]*\ssrc=)|\son[a-z]+=", re.IGNORECASE)
MEMORY_TEXT = "The Kestrel launch retro is booked for 14 June with Dana Ortiz."


def admin_client(workspace: Workspace) -> Client:
    client = Client()
    client.force_login(User.objects.get(email=f"admin@{workspace.slug}.example"))
    return client


def get_page(client: Client, url: str, **params: Any) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def import_corpus(workspace: Workspace, folder: Path) -> None:
    for rel, text in FIXTURE_CORPUS.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    source = Source.objects.create(workspace=workspace, name="corpus", kind="auto", location=str(folder))
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"


@pytest.fixture
def remembered(imported_workspace: Workspace, mcp: Mcp) -> AgentMemory:
    """A memory an agent wrote with the XMemo `remember` tool, through the MCP endpoint."""
    reference = remember(mcp, MEMORY_TEXT, memory_type="decision")["reference"]
    return AgentMemory.objects.get(reference=reference)


def routes(workspace: Workspace, memory: AgentMemory) -> list[str]:
    section = Section.objects.filter(workspace=workspace, parent__isnull=False).first()
    fact = Fact.objects.filter(workspace=workspace).first()
    entity = Entity.objects.filter(workspace=workspace).first()
    assert section and fact and entity
    return [
        reverse("admin:pam-memory-section", args=[section.pk]),
        reverse("admin:pam-memory-fact", args=[fact.pk]),
        reverse("admin:pam-memory-entity", args=[entity.pk]),
        reverse("admin:pam-memory-agent-detail", args=[memory.reference]),
    ]


LISTS = ["admin:pam-memory", "admin:pam-memory-facts", "admin:pam-memory-entities", "admin:pam-memory-agent"]


def test_every_memory_view_renders_for_a_workspace_admin_without_inline_code(
    imported_workspace: Workspace, remembered: AgentMemory
) -> None:
    client = admin_client(imported_workspace)
    for url in [reverse(name) for name in LISTS] + routes(imported_workspace, remembered):
        html = get_page(client, url)
        assert 'data-testid="workspace-name"' in html
        assert INLINE.findall(html) == [], url
    html = get_page(client, reverse("admin:pam-memory"), q="Who leads Platform Engineering?")
    assert INLINE.findall(html) == []


def test_someone_not_signed_in_or_not_staff_is_sent_to_the_login_page(imported_workspace: Workspace) -> None:
    outsider = Client()
    outsider.force_login(User.objects.create_user("member@acme.example", "pw-123456789", workspace=imported_workspace))
    for client in (Client(), outsider):
        response = client.get(reverse("admin:pam-memory"))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))


def test_an_operator_opens_a_workspace_with_the_query_string(
    imported_workspace: Workspace, make_workspace: Callable[..., Workspace]
) -> None:
    make_workspace("zeta")
    operator = Client()
    operator.force_login(User.objects.create_superuser("op@pam.example", "pw-123456789"))
    html = get_page(operator, reverse("admin:pam-memory"), workspace="acme")
    assert "Refund Policy" in html
    html = get_page(operator, reverse("admin:pam-memory"), workspace="zeta")
    assert "Refund Policy" not in html
    assert "No context tree yet" in html


def test_the_tree_links_each_section_and_a_section_shows_its_markdown_and_facts(imported_workspace: Workspace) -> None:
    client = admin_client(imported_workspace)
    html = get_page(client, reverse("admin:pam-memory"))
    topic = Section.objects.get(workspace=imported_workspace, title="Refund Policy")
    assert reverse("admin:pam-memory-section", args=[topic.pk]) in html
    assert reverse("admin:pam-memory-section", args=[topic.parent_id]) in html
    html = get_page(client, reverse("admin:pam-memory-section", args=[topic.pk]))
    assert 'data-testid="section-markdown"' in html
    assert "<h1>Refund Policy</h1>" in html  # the context document, rendered
    assert topic.file_path in html
    assert "Refunds above $5,000 need approval from the CFO." in html


def test_facts_show_their_provenance(imported_workspace: Workspace) -> None:
    client = admin_client(imported_workspace)
    fact = Fact.objects.get(workspace=imported_workspace, statement__startswith="Refunds above $5,000")
    html = get_page(client, reverse("admin:pam-memory-facts"))
    assert "Refunds above $5,000 need approval from the CFO." in html
    assert "processes/refund-policy.md" in html
    html = get_page(client, reverse("admin:pam-memory-fact", args=[fact.pk]))
    for shown in ("corpus", "processes/refund-policy.md", fact.heading_path, "2025-11-01", "current"):
        assert shown in html


def test_facts_are_paged_by_id_without_counting(imported_workspace: Workspace) -> None:
    newest, older = Fact.objects.filter(workspace=imported_workspace).order_by("-pk")[:2]
    html = get_page(admin_client(imported_workspace), reverse("admin:pam-memory-facts"), after=str(newest.pk))
    assert f'data-fact-id="{newest.pk}"' not in html
    assert f'data-fact-id="{older.pk}"' in html
    assert "Newest" in html  # the way back to the first page


def test_a_superseded_fact_links_the_fact_that_replaced_it(workspace: Workspace, tmp_path: Path) -> None:
    folder = tmp_path / "pricing"
    folder.mkdir()
    (folder / "older.md").write_text("---\ntitle: Pricing notes\ndate: 2025-11-03\n---\n# Pricing notes\n\nThe Pro plan costs $49 per seat per month.\n")
    (folder / "newer.md").write_text("---\ntitle: Pricing update\ndate: 2026-03-18\n---\n# Pricing update\n\nThe Pro plan now costs $59 per seat per month.\n")
    source = Source.objects.create(workspace=workspace, name="pricing", kind="auto", location=str(folder))
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"
    old = Fact.objects.get(workspace=workspace, statement__contains="$49")
    assert old.superseded_by_id is not None
    client = admin_client(workspace)
    html = get_page(client, reverse("admin:pam-memory-fact", args=[old.pk]))
    assert "superseded" in html
    assert reverse("admin:pam-memory-fact", args=[old.superseded_by_id]) in html
    html = get_page(client, reverse("admin:pam-memory-facts"), current="1")
    assert "$49" not in html and "$59" in html


def test_an_entity_shows_its_relationships_both_ways(imported_workspace: Workspace) -> None:
    relationship = Relationship.objects.filter(workspace=imported_workspace).select_related("subject", "target").first()
    assert relationship is not None, "the fixture corpus yields relationships"
    client = admin_client(imported_workspace)
    html = get_page(client, reverse("admin:pam-memory-entities"))
    assert relationship.subject.label in html
    html = get_page(client, reverse("admin:pam-memory-entity", args=[relationship.subject.pk]))
    assert relationship.type in html and relationship.target.label in html
    html = get_page(client, reverse("admin:pam-memory-entity", args=[relationship.target.pk]))
    assert relationship.subject.label in html


def test_agent_memories_show_who_wrote_them_where_and_when(remembered: AgentMemory) -> None:
    client = admin_client(remembered.workspace)
    html = get_page(client, reverse("admin:pam-memory-agent"))
    assert MEMORY_TEXT in html
    assert remembered.credential and remembered.credential in html
    assert "projects/pam/decisions" in html and "bucket public" in html and "live" in html
    html = get_page(client, reverse("admin:pam-memory-agent-detail", args=[remembered.reference]))
    assert remembered.credential in html and "created" in html  # the audit row of the write


def test_a_forgotten_memory_is_listed_only_on_request_and_marked_forgotten(remembered: AgentMemory, mcp: Mcp) -> None:
    result = mcp.call({"target": remembered.reference, "reason": "outdated"}, name="forget")
    assert result["isError"] is False
    client = admin_client(remembered.workspace)
    assert MEMORY_TEXT not in get_page(client, reverse("admin:pam-memory-agent"))
    html = get_page(client, reverse("admin:pam-memory-agent"), forgotten="1")
    assert MEMORY_TEXT in html and "forgotten" in html


def test_another_credentials_private_memory_is_not_shown(imported_workspace: Workspace) -> None:
    remember(mcp_for(imported_workspace), "My scratch: Osprey estimate is nine days.", bucket="private")
    client = admin_client(imported_workspace)
    assert "nine days" not in get_page(client, reverse("admin:pam-memory-agent"))
    assert "nine days" not in get_page(client, reverse("admin:pam-memory"), q="Osprey estimate")


def test_search_finds_a_fact_and_an_agent_memory_as_the_tools_do_without_logging_a_call(
    remembered: AgentMemory,
) -> None:
    client = admin_client(remembered.workspace)
    logged = RequestLog.objects.count()
    html = get_page(client, reverse("admin:pam-memory"), q="Who leads the Platform Engineering team?")
    assert 'data-testid="search-results"' in html
    assert "Dana Ortiz leads the Platform Engineering team." in html
    assert "Retrieved Company Context" in html  # the report the agent reads
    html = get_page(client, reverse("admin:pam-memory"), q="When is the Kestrel launch retro?")
    assert MEMORY_TEXT in html
    assert reverse("admin:pam-memory-agent-detail", args=[remembered.reference]) in html
    assert RequestLog.objects.count() == logged


def test_search_before_any_source_says_why_retrieval_would_not_answer(workspace: Workspace) -> None:
    html = get_page(admin_client(workspace), reverse("admin:pam-memory"), q="refund policy")
    assert 'class="pam-alert"' in html
    assert "No matching XMemo memory was found." in html


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("admin:pam-memory", {"q": "x" * 9000}),
        ("admin:pam-memory", {"q": "bad\x00query"}),
        ("admin:pam-memory-facts", {"after": "abc", "source": "-1"}),
        ("admin:pam-memory-facts", {"after": str(2**70), "source": "999999"}),
        ("admin:pam-memory-entities", {"type": "alien", "after": "1.5"}),
        ("admin:pam-memory-agent", {"bucket": "Not A Bucket!", "after": "x"}),
        ("admin:pam-memory-agent", {"team": "t" * 500}),
    ],
)
def test_a_bad_query_string_is_a_message_never_an_error(imported_workspace: Workspace, name: str, params: dict[str, str]) -> None:
    html = get_page(admin_client(imported_workspace), reverse(name), **params)
    assert "pam-message-warning" in html


def test_a_bucket_the_admin_may_not_read_is_a_message(imported_workspace: Workspace) -> None:
    User.objects.filter(email="admin@acme.example").update(memory_buckets=["eng"])
    html = get_page(admin_client(imported_workspace), reverse("admin:pam-memory-agent"), bucket="finance")
    assert "pam-message-warning" in html and "finance" in html


def test_another_workspaces_ids_are_not_found_on_every_route(
    remembered: AgentMemory, make_workspace: Callable[..., Workspace], tmp_path: Path
) -> None:
    other = make_workspace("other")
    import_corpus(other, tmp_path / "other-corpus")
    theirs = remember(mcp_for(other), "Other workspace secret: the Heron budget.")["reference"]
    their_memory = AgentMemory.objects.get(reference=theirs)
    client = admin_client(remembered.workspace)
    for url in routes(other, their_memory):
        assert client.get(url).status_code == 404, url
    for url in ("/admin/dashboard/memory/sections/99999999/", f"/admin/dashboard/memory/facts/{2**70}/", "/admin/dashboard/memory/agent/mem_nope/"):
        assert client.get(url).status_code == 404, url
    their_source = Source.objects.get(workspace=other)
    html = get_page(client, reverse("admin:pam-memory-facts"), source=str(their_source.pk))
    assert "pam-message-warning" in html
