"""The agent-memory term index (SPEC §2.4; memory.engine.live, docs/architecture.md "Agent
memory"): every visible memory that holds a query term is ranked — not only the newest — with
the engine's calibrated coverage, and a memory's postings follow its every write."""

from __future__ import annotations

from datetime import timedelta

from django.apps import apps
from django.utils import timezone

from memory.engine.live import Viewer, live_search, memory_idf, memory_index, memory_terms, query_terms, visible
from memory.engine.rank import coverage
from memory.models import AgentMemory, AgentMemoryTerm, Workspace
from tests.memory.xmemo import mcp_for, remember

EVERYONE = Viewer(label="pam_mkey_reader")


def _bulk(workspace: Workspace, contents: list[str], *, oldest_first: bool = True) -> list[AgentMemory]:
    start = timezone.now() - timedelta(days=30)
    rows = []
    for n, content in enumerate(contents):
        row = AgentMemory(
            workspace=workspace, reference=f"mem_t{n:020d}", path=f"notes/{n % 7}", content=content,
            credential="pam_mkey_writer", created_at=start + timedelta(seconds=n), updated_at=start + timedelta(seconds=n),
        )
        memory_terms(row)
        rows.append(row)
    saved = AgentMemory.objects.bulk_create(rows)
    memory_index(saved)
    return saved


def test_an_old_memory_that_matches_best_is_found_behind_thousands_of_newer_partial_matches(workspace: Workspace) -> None:
    oldest, *_ = _bulk(
        workspace,
        ["The zebra migration is owned by Dana."] + [f"Migration note {n} about the database." for n in range(2500)],
    )
    [best, *rest] = live_search(workspace, visible(workspace, EVERYONE), "zebra migration owner", min_relevance=0.0, limit=5)
    assert best.memory.pk == oldest.pk
    assert best.relevance > rest[0].relevance
    assert len(rest) == 4


def test_its_relevance_is_the_engine_coverage_of_the_stored_terms_weighted_by_their_rarity(workspace: Workspace) -> None:
    _bulk(
        workspace,
        [
            "Platform engineering owns the staging rollout.",
            "The refund policy allows credits up to 200 dollars.",
            "Dana approved the budget freeze for the Toronto office.",
            "Staging capacity doubles in May.",
        ],
    )
    for query in ["who owns the staging rollout", "refund credit policy", "Toronto budget approval", "staging"]:
        hits = live_search(workspace, visible(workspace, EVERYONE), query, min_relevance=0.0, limit=10)
        assert hits, query
        terms = query_terms(query, memory_idf(workspace, query))
        for hit in hits:
            expected = coverage(terms, set(hit.memory.content_terms.split()), set(hit.memory.context_terms.split()))
            assert hit.relevance == round(expected, 2), (query, hit.memory.content)
        assert [h.relevance for h in hits] == sorted((h.relevance for h in hits), reverse=True)


def test_a_word_in_most_memories_weighs_less_than_a_rare_one(workspace: Workspace) -> None:
    # Unweighted, each memory holds half of "dana kiwi" and the newest would win the tie.
    rare, *notes = _bulk(workspace, ["The kiwi launch slips."] + [f"Dana filed note {n}." for n in range(300)])
    hits = live_search(workspace, visible(workspace, EVERYONE), "dana kiwi", min_relevance=0.0, limit=3)
    assert hits[0].memory.pk == rare.pk
    assert hits[0].relevance > hits[1].relevance
    idf = memory_idf(workspace, "dana kiwi")
    assert idf("kiwi") > 3 * idf("dana")


def test_ties_go_to_the_more_important_then_the_newer_memory(workspace: Workspace) -> None:
    low, high, newer = _bulk(workspace, ["Kiwi launch is in May.", "Kiwi launch is in May!", "Kiwi launch moved to May."])
    AgentMemory.objects.filter(pk=high.pk).update(importance=0.9)
    hits = live_search(workspace, visible(workspace, EVERYONE), "kiwi launch may", min_relevance=0.1, limit=3)
    assert [h.memory.pk for h in hits] == [high.pk, newer.pk, low.pk]


def test_an_updated_memory_is_found_by_its_new_words_and_no_longer_by_its_old_ones(workspace: Workspace) -> None:
    mcp = mcp_for(workspace)
    remember(mcp, "The launch is planned for the second quarter.", semantic_key="launch-date")
    remember(mcp, "The launch moved to the autumn after the steering review.", semantic_key="launch-date")
    rows = visible(workspace, EVERYONE)
    assert live_search(workspace, rows, "steering review autumn", min_relevance=0.3, limit=5)
    assert not live_search(workspace, rows, "second quarter", min_relevance=0.3, limit=5)
    memory = AgentMemory.objects.get(workspace=workspace)
    assert set(AgentMemoryTerm.objects.filter(memory=memory, field=AgentMemoryTerm.Field.CONTENT).values_list("term", flat=True)) == set(
        memory.content_terms.split()
    )


def test_another_workspace_postings_are_never_read(workspace: Workspace, make_workspace) -> None:  # type: ignore[no-untyped-def]
    other = make_workspace(slug="globex")
    _bulk(other, ["The zebra migration is owned by Dana."])
    assert live_search(workspace, visible(workspace, EVERYONE), "zebra migration", min_relevance=0.0, limit=5) == []
    assert live_search(other, visible(other, EVERYONE), "zebra migration", min_relevance=0.0, limit=5)


def test_the_migration_posts_the_terms_of_memories_written_before_it(workspace: Workspace) -> None:
    from importlib import import_module

    [memory] = _bulk(workspace, ["Quokka sightings are logged weekly."])
    expected = set(AgentMemoryTerm.objects.filter(memory=memory).values_list("term", "field"))
    AgentMemoryTerm.objects.all().delete()
    migration = import_module("memory.migrations.0007_agent_memory_terms_user_labels")
    migration.index_existing_memories(apps, None)
    assert set(AgentMemoryTerm.objects.filter(memory=memory).values_list("term", "field")) == expected
    assert live_search(workspace, visible(workspace, EVERYONE), "quokka sightings", min_relevance=0.5, limit=1)
