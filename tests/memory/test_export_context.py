"""python manage.py export_context OUT_DIR --workspace SLUG: the context tree as Markdown files
(SPEC §5: `company_context/<area>/<topic>.md`, each the section's context document)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Callable

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memory.models import Section, Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import run_create


def export(out: Path, workspace: str = "acme") -> str:
    stdout = StringIO()
    call_command("export_context", str(out), workspace=workspace, stdout=stdout)
    return stdout.getvalue()


def written(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()}


def test_it_works(imported_workspace: Workspace, tmp_path: Path) -> None:
    out = tmp_path / "export"

    stdout = export(out)

    sections = Section.objects.filter(workspace=imported_workspace).exclude(markdown="")
    assert written(out) == {s.file_path: s.markdown for s in sections}
    assert f"Wrote {sections.count()} context documents" in stdout


def test_each_topic_is_a_markdown_file_under_its_area(imported_workspace: Workspace, tmp_path: Path) -> None:
    out = tmp_path / "export"

    export(out)

    files = written(out)
    refund = files["company_context/processes/refund_policy.md"]
    assert refund.startswith("# Refund Policy\n")
    assert "Customers may request a full refund within 30 days of purchase." in refund
    assert "processes/refund-policy.md" in refund  # each fact names its source document
    topics = Section.objects.filter(workspace=imported_workspace, parent__isnull=False)
    assert {t.file_path for t in topics} <= set(files)
    assert all(path.startswith("company_context/") and path.endswith(".md") for path in files)
    assert all(len(path.split("/")) == 3 for path in files)
    assert "company_context/projects/index.md" in files


def test_it_exports_only_the_workspaces_own_sections(
    make_workspace: Callable[..., Workspace], corpus_dir: Path, tmp_path: Path
) -> None:
    make_workspace("acme")
    globex = make_workspace("globex")
    source = Source.objects.create(workspace=globex, name="g", kind="auto", location=str(corpus_dir))
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"

    stdout = export(tmp_path / "acme")

    assert written(tmp_path / "acme") == {}
    assert "Wrote 0 context documents" in stdout
    export(tmp_path / "globex", workspace="globex")
    assert "company_context/processes/refund_policy.md" in written(tmp_path / "globex")


def test_exporting_again_overwrites_with_the_current_tree(
    imported_workspace: Workspace, corpus_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    export(out)
    refund = corpus_dir / "processes" / "refund-policy.md"
    refund.write_text(refund.read_text().replace("30 days", "45 days"))
    source = Source.objects.get(workspace=imported_workspace)
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"

    export(out)

    text = (out / "company_context/processes/refund_policy.md").read_text()
    assert "within 45 days" in text
    assert "within 30 days" not in text


def test_it_refuses_an_unknown_workspace(imported_workspace: Workspace, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="nope"):
        export(tmp_path / "export", workspace="nope")

    assert not (tmp_path / "export").exists()
