"""The `git` kind: a working tree is walked like a folder; `.git/` is never read."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from memory.models import Document, PipelineRun
from tests.memory.sources.conftest import documents, read


def make_work_tree(root: Path) -> Path:
    (root / ".git" / "objects").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git" / "description.md").write_text("# Not a document\n\nGit's own files stay out.\n")
    (root / "docs").mkdir()
    (root / "README.md").write_text("# Atlas\n\nAtlas is the billing platform of Acme.\n")
    (root / "docs" / "adr-001.md").write_text("# ADR 001\n\nWe chose PostgreSQL for the ledger.\n")
    (root / ".gitignore").write_text("*.log\n")
    return root


def test_it_walks_the_working_tree_and_skips_dot_git(tmp_path: Path) -> None:
    items = read("git", make_work_tree(tmp_path / "repo"))

    assert set(documents(items)) == {"README.md", "docs/adr-001.md"}
    assert not any(item.path.startswith(".git") for item in items)


def test_it_works_end_to_end(tmp_path: Path, sync: Callable[..., PipelineRun]) -> None:
    run = sync(make_work_tree(tmp_path / "repo"), kind="git")

    assert run.status == PipelineRun.Status.COMPLETED, run.errors
    assert set(Document.objects.values_list("path", flat=True)) == {"README.md", "docs/adr-001.md"}
