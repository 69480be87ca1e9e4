"""manage.py import_memory --workspace SLUG FILE (issue 14): the operator's import through the
function of POST /v1/memory/import; each line keeps the credential that wrote it and its times,
so a restored workspace answers `recall` as the original did, attribution included."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any, Callable

import pytest
from django.core.management import CommandError, call_command

from memory.models import AgentMemory, Workspace
from tests.memory.xmemo import mcp_for, remember
from tests.memory_api.conftest import KEY, write


def recall(mcp: Any, query: str) -> list[dict[str, Any]]:
    results = mcp.call({"query": query}, name="recall")["structuredContent"]["results"]
    return [{k: v for k, v in item.items() if k != "reference"} for item in results]


def test_a_shell_round_trip_answers_recall_the_same_with_its_attribution(
    workspace: Workspace, make_workspace: Callable[..., Workspace], tmp_path: Path
) -> None:
    source = mcp_for(workspace)
    remember(source, "Quarterly planning starts the first Monday of March.", path="planning")
    remember(source, "The design system lives in Figma under Acme DS.", path="design", team="design")
    remember(source, "My scratch: check the flaky billing test.", path="scratch", bucket="private")
    target = tmp_path / "acme.jsonl"
    call_command("export_memory", "--workspace", "acme", "--output", str(target))
    copy = make_workspace("restored")
    out = StringIO()
    call_command("import_memory", str(target), "--workspace", "restored", stdout=out)
    assert json.loads(out.getvalue())["created"] == 3
    private = AgentMemory.objects.get(workspace=copy, bucket="private")
    assert private.credential == AgentMemory.objects.get(workspace=workspace, bucket="private").credential
    restored = mcp_for(copy)
    for query in ("when does quarterly planning start", "where is the design system"):
        assert recall(restored, query) == recall(source, query) != []


def test_a_failed_or_refused_line_exits_1_after_importing_the_rest(workspace: Workspace, tmp_path: Path) -> None:
    target = tmp_path / "lines.jsonl"
    target.write_text(
        json.dumps({"path": "a", "content": "A good line about lunch."}) + "\n"
        + json.dumps({"path": "b", "content": "token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop"}) + "\n"
        + "nonsense\n"
    )
    out = StringIO()
    with pytest.raises(CommandError, match="1 line\\(s\\) failed and 1 were refused"):
        call_command("import_memory", str(target), "--workspace", "acme", stdout=out)
    report = json.loads(out.getvalue())
    assert (report["created"], report["refused"], report["failed"]) == (1, 1, 1)
    assert [e["line"] for e in report["errors"]] == [2, 3]
    assert AgentMemory.objects.get().credential == "shell"  # a line that names no writer


def test_the_lines_credential_is_kept(workspace: Workspace, tmp_path: Path) -> None:
    target = tmp_path / "one.jsonl"
    target.write_text(json.dumps({"path": "a", "content": "Written by the agent.", "credential": KEY}) + "\n")
    call_command("import_memory", str(target), "--workspace", "acme", stdout=StringIO())
    assert AgentMemory.objects.get().credential == KEY


def test_an_unknown_workspace_or_file_is_a_clear_error(workspace: Workspace, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="Unknown workspace 'nope'"):
        call_command("import_memory", str(tmp_path / "x.jsonl"), "--workspace", "nope")
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_memory", str(tmp_path / "missing.jsonl"), "--workspace", "acme")
    write(workspace, "Unchanged.")
    assert AgentMemory.objects.count() == 1
