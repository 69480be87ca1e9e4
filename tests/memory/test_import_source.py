"""python manage.py import_source --workspace SLUG PATH [--kind KIND] [--name NAME] (SPEC §5, §7).

The fixture corpus (tests/conftest.py) goes through the real pipeline: documents → facts with
provenance → entities and relationships → the context tree → a published index.
"""

from __future__ import annotations

import datetime as dt
import re
from io import StringIO
from pathlib import Path
from typing import Callable

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memory.models import Document, Entity, Fact, IndexVersion, PipelineRun, Relationship, Section, Source, Workspace
from memory.readiness import readiness_get


def import_source(path: Path | str, workspace: str = "acme", **options: str) -> str:
    out = StringIO()
    call_command("import_source", str(path), workspace=workspace, stdout=out, stderr=StringIO(), **options)
    return out.getvalue()


def latest_run() -> PipelineRun:
    return PipelineRun.objects.order_by("-id").first()  # type: ignore[return-value]


def fact(statement: str) -> Fact:
    return Fact.objects.select_related("document", "section").get(statement=statement)


def slug(name: str) -> str:
    """SPEC §2.3: lower-cased, every run of other characters turned into "_"."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower())


def fact_ids_of(path: str) -> set[int]:
    return set(Fact.objects.filter(document__path=path).values_list("id", flat=True))


# --- a first import ----------------------------------------------------------------------


def test_it_works(workspace: Workspace, corpus_dir: Path) -> None:
    out = import_source(corpus_dir)

    source = Source.objects.get(workspace=workspace)
    assert source.location == str(corpus_dir.resolve())
    assert source.status == Source.Status.READY
    assert source.last_synced_at is not None
    assert set(source.documents.values_list("path", flat=True)) == {
        "projects/meridian.md",
        "clients/northwind.md",
        "processes/refund-policy.md",
        "notes.txt",
    }
    assert source.facts.count() >= 8
    run = latest_run()
    assert run.status == PipelineRun.Status.COMPLETED
    assert run.source == source
    assert run.errors == []
    assert "Imported" in out
    assert "4 documents" in out


def test_it_names_the_source_after_the_folder_unless_told_otherwise(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir, name="Company handbook")

    assert Source.objects.get(workspace=workspace).name == "Company handbook"


def test_it_lists_an_unsupported_file_as_skipped_not_as_an_error(workspace: Workspace, corpus_dir: Path) -> None:
    out = import_source(corpus_dir)

    run = latest_run()
    assert run.status == PipelineRun.Status.COMPLETED
    assert [s["document"] for s in run.skipped] == ["diagram.png"]
    assert "diagram.png" not in {e["document"] for e in run.errors}
    assert not Document.objects.filter(path="diagram.png").exists()
    assert "skipped diagram.png" in out


def test_facts_carry_their_provenance(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    lead = fact("Dana Ortiz leads the Platform Engineering team.")
    assert lead.workspace == workspace
    assert lead.document.path == "projects/meridian.md"
    assert lead.heading_path == "Meridian Platform Rollout"
    assert lead.effective_date == dt.date(2026, 4, 2)
    owner = fact("Platform Engineering owns the Meridian platform rollout through Q3.")
    assert owner.position < lead.position

    blocked = Fact.objects.get(document__path="projects/meridian.md", statement__contains="delayed vendor sign-off")
    assert blocked.heading_path == "Meridian Platform Rollout > Status"
    assert blocked.position > lead.position

    refund = Fact.objects.get(statement__contains="full refund within 30 days")
    assert refund.document.path == "processes/refund-policy.md"
    assert refund.effective_date == dt.date(2025, 11, 1)
    assert Fact.objects.get(statement__startswith="Lena Park").effective_date == dt.date(2026, 3, 1)


def test_positions_follow_the_order_of_the_document(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    for document in Document.objects.all():
        positions = list(document.facts.order_by("position").values_list("position", flat=True))
        assert positions == list(range(len(positions))), document.path


def test_it_records_the_front_matter_title_and_date_on_the_document(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    meridian = Document.objects.get(path="projects/meridian.md")
    assert meridian.title == "Meridian Platform Rollout"
    assert meridian.doc_date == dt.date(2026, 4, 2)
    assert "title:" not in meridian.text


@pytest.mark.parametrize(
    ("statement", "area"),
    [
        ("Customers may request a full refund within 30 days of purchase.", "Processes"),
        ("Lena Park is the account owner for Northwind Retail.", "Relationships"),
        ("Dana Ortiz leads the Platform Engineering team.", "Projects"),
    ],
)
def test_facts_are_filed_under_company_context_area_and_topic(
    workspace: Workspace, corpus_dir: Path, statement: str, area: str
) -> None:
    import_source(corpus_dir)

    section = fact(statement).section
    assert section is not None
    root, found_area, topic = section.tree_path.split(" > ")
    assert (root, found_area) == ("Company Context", area)
    assert section.title == topic
    assert section.file_path == f"company_context/{slug(area)}/{slug(topic)}.md"
    assert section.parent is not None and section.parent.tree_path == f"Company Context > {area}"


def test_the_refund_policy_is_its_own_topic_under_processes(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    section = Section.objects.get(workspace=workspace, tree_path="Company Context > Processes > Refund Policy")
    assert section.file_path == "company_context/processes/refund_policy.md"
    assert section.fact_count == 2


def test_every_topic_path_and_file_follow_the_naming_rule(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    topics = Section.objects.filter(workspace=workspace, parent__isnull=False)
    assert topics.count() == 4
    for section in topics:
        root, area, topic = section.tree_path.split(" > ")
        assert root == "Company Context"
        assert section.file_path == f"company_context/{slug(area)}/{slug(topic)}.md"


def test_each_section_has_context_markdown_listing_its_facts(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    topics = Section.objects.filter(workspace=workspace, parent__isnull=False)
    for section in topics:
        statements = list(section.facts.values_list("statement", flat=True))
        assert statements, section.tree_path
        assert section.fact_count == len(statements)
        for statement in statements:
            assert statement in section.markdown, (section.tree_path, statement)
    refund = topics.get(title="Refund Policy")
    assert "processes/refund-policy.md" in refund.markdown
    assert "2025-11-01" in refund.markdown


def test_a_sync_publishes_an_index_and_the_memory_becomes_ready(workspace: Workspace, corpus_dir: Path) -> None:
    assert readiness_get(workspace=workspace).state == "waiting_for_sources"

    import_source(corpus_dir)

    published = IndexVersion.objects.get(workspace=workspace)
    assert published.status == IndexVersion.Status.PUBLISHED
    assert published.fact_count == Fact.objects.filter(workspace=workspace).count()
    assert published.section_count == 4
    assert readiness_get(workspace=workspace).state == "ready_minimal"


# --- entities ----------------------------------------------------------------------------


def test_it_extracts_people_teams_and_organizations(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    entities = set(Entity.objects.filter(workspace=workspace).values_list("label", "type"))
    assert ("Dana Ortiz", "person") in entities
    assert ("Platform Engineering team", "team") in entities
    assert ("Northwind Retail", "organization") in entities
    assert ("Lena Park", "person") in entities


def test_it_extracts_who_leads_a_team(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    relationships = {
        (r.subject.label, r.type, r.target.label)
        for r in Relationship.objects.filter(workspace=workspace).select_related("subject", "target")
    }
    assert ("Dana Ortiz", "leads", "Platform Engineering team") in relationships
    lead = Relationship.objects.get(subject__label="Dana Ortiz", type="leads")
    assert lead.fact is not None and lead.fact.statement == "Dana Ortiz leads the Platform Engineering team."


def test_facts_are_linked_to_the_entities_they_name(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    labels = set(fact("Dana Ortiz leads the Platform Engineering team.").entities.values_list("label", flat=True))
    assert {"Dana Ortiz", "Platform Engineering team"} <= labels


def test_it_records_the_account_owner_of_a_client(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    northwind = Entity.objects.get(workspace=workspace, label="Northwind Retail", type="organization")
    assert northwind.properties.get("account_owner") == "Lena Park"
    assert Relationship.objects.filter(
        subject__label="Lena Park", type="owns", target=northwind
    ).exists()


def test_a_client_company_is_not_also_extracted_as_a_person(workspace: Workspace, corpus_dir: Path) -> None:
    """Regression: "Northwind Retail is a retail company" once also made a person "Northwind Retail"."""
    import_source(corpus_dir)

    assert list(Entity.objects.filter(workspace=workspace, label="Northwind Retail").values_list("type", flat=True)) == [
        "organization"
    ]


# --- re-syncs ----------------------------------------------------------------------------


def test_importing_the_same_path_again_resyncs_the_same_source(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)
    facts_before = set(Fact.objects.values_list("id", "statement"))
    documents_before = set(Document.objects.values_list("id", "updated_at"))

    out = import_source(corpus_dir)

    source = Source.objects.get(workspace=workspace)
    assert source.runs.count() == 2
    assert set(Fact.objects.values_list("id", "statement")) == facts_before
    assert set(Document.objects.values_list("id", "updated_at")) == documents_before
    assert "Re-synced" in out


def test_another_spelling_of_the_same_path_is_the_same_source(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)

    import_source(f"{corpus_dir}/projects/../")

    assert Source.objects.filter(workspace=workspace).count() == 1


def test_a_resync_does_not_duplicate_facts_entities_or_relationships(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)
    counts = (Fact.objects.count(), Entity.objects.count(), Relationship.objects.count(), Section.objects.count())

    import_source(corpus_dir)
    import_source(corpus_dir)

    assert (Fact.objects.count(), Entity.objects.count(), Relationship.objects.count(), Section.objects.count()) == counts


def test_each_sync_publishes_a_new_index_version(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)
    import_source(corpus_dir)

    versions = list(IndexVersion.objects.filter(workspace=workspace).order_by("version").values_list("version", "status"))
    assert versions == [(1, "published"), (2, "published")]


def test_changing_a_file_re_extracts_only_that_document(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)
    meridian_ids = fact_ids_of("projects/meridian.md")
    northwind_ids = fact_ids_of("clients/northwind.md")
    refund_ids = fact_ids_of("processes/refund-policy.md")
    policy = corpus_dir / "processes" / "refund-policy.md"
    policy.write_text(policy.read_text().replace("within 30 days", "within 45 days"))

    import_source(corpus_dir)

    assert fact_ids_of("projects/meridian.md") == meridian_ids
    assert fact_ids_of("clients/northwind.md") == northwind_ids
    new_refund_ids = fact_ids_of("processes/refund-policy.md")
    assert new_refund_ids and not (new_refund_ids & refund_ids)
    statements = set(Fact.objects.filter(document__path="processes/refund-policy.md").values_list("statement", flat=True))
    assert "Customers may request a full refund within 45 days of purchase." in statements
    assert not Fact.objects.filter(statement__contains="30 days").exists()
    section = Section.objects.get(tree_path="Company Context > Processes > Refund Policy")
    assert "45 days" in section.markdown and "30 days" not in section.markdown


def test_deleting_a_file_removes_its_document_and_facts(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)
    assert Fact.objects.filter(document__path="clients/northwind.md").exists()

    (corpus_dir / "clients" / "northwind.md").unlink()
    import_source(corpus_dir)

    assert not Document.objects.filter(path="clients/northwind.md").exists()
    assert not Fact.objects.filter(statement__contains="Northwind").exists()
    assert not Section.objects.filter(tree_path__startswith="Company Context > Relationships").exists()
    assert not Relationship.objects.filter(target__label="Northwind Retail").exists()
    assert Document.objects.filter(path="projects/meridian.md").exists()
    assert IndexVersion.objects.filter(status="published").order_by("-version").first().fact_count == Fact.objects.count()  # type: ignore[union-attr]


def test_removed_files_are_deleted_in_batches_and_the_others_stay(
    workspace: Workspace, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory.pipelines import documents, sync

    monkeypatch.setattr(documents, "DELETE_BATCH", 2)  # five removed documents: three DELETEs
    monkeypatch.setattr(sync, "SEEN_BATCH", 2)  # unchanged ones stamped two at a time
    for n in range(5):
        (corpus_dir / f"extra-{n}.md").write_text(f"# Extra {n}\n\nExtra page {n} lists {n + 3} open questions.\n")
    import_source(corpus_dir)
    kept = sorted(Fact.objects.exclude(document__path__startswith="extra-").values_list("id", "statement"))
    assert Document.objects.filter(path__startswith="extra-").count() == 5

    for n in range(5):
        (corpus_dir / f"extra-{n}.md").unlink()
    import_source(corpus_dir)

    assert not Document.objects.filter(path__startswith="extra-").exists()
    assert not Fact.objects.filter(statement__contains="open questions").exists()
    assert sorted(Fact.objects.values_list("id", "statement")) == kept  # untouched, not re-extracted
    run = latest_run()
    assert set(Document.objects.values_list("synced_run", flat=True)) == {run.pk}


def test_entities_no_document_mentions_any_more_are_removed(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)
    (corpus_dir / "clients" / "northwind.md").unlink()

    import_source(corpus_dir)

    labels = set(Entity.objects.filter(workspace=workspace).values_list("label", flat=True))
    assert "Lena Park" not in labels
    assert "Northwind Retail" not in labels
    assert "Dana Ortiz" in labels


def test_renaming_a_documents_title_moves_its_facts_to_the_new_topic(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)
    policy = corpus_dir / "processes" / "refund-policy.md"
    policy.write_text(policy.read_text().replace("Refund Policy", "Returns and Refunds Policy"))

    import_source(corpus_dir)

    topics = set(Section.objects.filter(workspace=workspace, parent__isnull=False).values_list("tree_path", flat=True))
    assert "Company Context > Processes > Returns and Refunds Policy" in topics
    assert "Company Context > Processes > Refund Policy" not in topics
    moved = fact("Refunds above $5,000 need approval from the CFO.")
    assert moved.section is not None
    assert moved.section.file_path == "company_context/processes/returns_and_refunds_policy.md"


def test_a_new_file_is_added_on_the_next_sync(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir)
    (corpus_dir / "processes" / "travel.md").write_text(
        "# Travel Policy\n\nTravel expenses above $800 need approval from a director.\n"
    )

    import_source(corpus_dir)

    added = fact("Travel expenses above $800 need approval from a director.")
    assert added.document.path == "processes/travel.md"
    assert added.section is not None and added.section.tree_path == "Company Context > Processes > Travel Policy"


# --- problems ----------------------------------------------------------------------------


def test_it_rejects_an_unknown_workspace(workspace: Workspace, corpus_dir: Path) -> None:
    with pytest.raises(CommandError) as excinfo:
        import_source(corpus_dir, workspace="nope")

    assert "nope" in str(excinfo.value)
    assert not Source.objects.exists()


def test_it_refuses_a_path_whose_source_is_being_deleted(workspace: Workspace, corpus_dir: Path) -> None:
    Source.objects.create(
        workspace=workspace, name="corpus", kind="auto", location=str(corpus_dir.resolve()), status="deleting"
    )

    with pytest.raises(CommandError) as excinfo:
        import_source(corpus_dir)

    assert "being deleted" in str(excinfo.value)
    assert not PipelineRun.objects.exists()


def test_it_rejects_a_missing_path(workspace: Workspace, tmp_path: Path) -> None:
    with pytest.raises(CommandError) as excinfo:
        import_source(tmp_path / "does-not-exist")

    assert "does-not-exist" in str(excinfo.value)
    assert not Source.objects.exists()


def test_binary_junk_and_empty_files_are_per_document_errors_and_the_run_completes(
    workspace: Workspace, corpus_dir: Path
) -> None:
    (corpus_dir / "junk.md").write_bytes(bytes(range(256)) * 8)
    (corpus_dir / "empty.md").write_bytes(b"")

    out = import_source(corpus_dir)

    run = latest_run()
    assert run.status == PipelineRun.Status.COMPLETED
    assert {e["document"] for e in run.errors} == {"junk.md", "empty.md"}
    assert all(e["message"] for e in run.errors)
    assert not Document.objects.filter(path__in=["junk.md", "empty.md"]).exists()
    assert Document.objects.filter(source__workspace=workspace).count() == 4
    assert "error junk.md" in out and "error empty.md" in out
    assert readiness_get(workspace=workspace).state == "ready_minimal"


def test_files_without_readable_text_still_publish_an_empty_memory(workspace: Workspace, tmp_path: Path) -> None:
    folder = tmp_path / "blank"
    folder.mkdir()
    (folder / "front-matter-only.md").write_text("---\ntitle: Nothing yet\n---\n")
    (folder / "blank.txt").write_text("   \n\n")

    import_source(folder)

    assert latest_run().status == PipelineRun.Status.COMPLETED
    assert not Fact.objects.exists()
    assert IndexVersion.objects.get(workspace=workspace).status == IndexVersion.Status.PUBLISHED
    r = readiness_get(workspace=workspace)
    assert (r.state, r.has_facts, r.has_tree_index) == ("ready_minimal", False, False)


def test_a_failed_run_exits_with_status_1(workspace: Workspace, corpus_dir: Path) -> None:
    # A source of a kind this installation cannot read, registered at the same path.
    Source.objects.create(workspace=workspace, name="corpus", kind="no-such-kind", location=str(corpus_dir.resolve()))

    with pytest.raises(SystemExit) as excinfo:
        import_source(corpus_dir)

    assert excinfo.value.code == 1
    assert latest_run().status == PipelineRun.Status.FAILED


# --- kinds and single files --------------------------------------------------------------


def test_kind_markdown_reads_only_markdown_files(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir, kind="markdown")

    paths = set(Document.objects.values_list("path", flat=True))
    assert paths == {"projects/meridian.md", "clients/northwind.md", "processes/refund-policy.md"}
    assert "notes.txt" in {s["document"] for s in latest_run().skipped}


def test_it_imports_a_single_file(workspace: Workspace, corpus_dir: Path) -> None:
    import_source(corpus_dir / "processes" / "refund-policy.md")

    document = Document.objects.get()
    assert document.path == "refund-policy.md"
    assert document.facts.count() == 2


def test_it_refuses_other_workspace(make_workspace: Callable[..., Workspace], corpus_dir: Path) -> None:
    """The same path imported into two workspaces makes two sources; neither sees the other."""
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    import_source(corpus_dir, workspace="acme")
    acme_facts = set(Fact.objects.filter(workspace=acme).values_list("id", flat=True))

    import_source(corpus_dir, workspace="globex")

    assert Source.objects.filter(workspace=acme).count() == 1
    assert Source.objects.filter(workspace=globex).count() == 1
    assert set(Fact.objects.filter(workspace=acme).values_list("id", flat=True)) == acme_facts
    assert Fact.objects.filter(workspace=globex).count() == len(acme_facts)
    assert not Fact.objects.filter(workspace=globex, source__workspace=acme).exists()
    assert not Section.objects.filter(workspace=globex, facts__workspace=acme).exists()
    assert IndexVersion.objects.filter(workspace=acme).count() == 1
