"""manage.py export_memory --workspace SLUG [--output FILE] (issue 14): the operator's export,
every bucket (private ones included), through the export of GET /v1/memory/export."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memory.models import Workspace
from tests.memory_api.conftest import write


def test_it_writes_every_memory_to_a_file(workspace: Workspace, other: Workspace, tmp_path: Path) -> None:
    public = write(workspace, "A public memory.")
    private = write(workspace, "An agent's private memory.", path="p", bucket="private")
    write(other, "Another workspace's memory.")
    target = tmp_path / "memory.jsonl"
    call_command("export_memory", "--workspace", "acme", "--output", str(target))
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [line["reference"] for line in lines] == [public.reference, private.reference]
    assert lines[1]["bucket"] == "private" and "history" in lines[1] and "audit" in lines[1]


def test_without_output_it_writes_to_stdout(workspace: Workspace) -> None:
    memory = write(workspace, "Stdout memory.")
    out = StringIO()
    call_command("export_memory", "--workspace", "acme", stdout=out)
    assert json.loads(out.getvalue())["reference"] == memory.reference


def test_an_unknown_workspace_is_a_clear_error(db: None) -> None:
    with pytest.raises(CommandError, match="Unknown workspace 'nope'"):
        call_command("export_memory", "--workspace", "nope")
