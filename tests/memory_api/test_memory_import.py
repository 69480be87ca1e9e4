"""POST /v1/memory/import (issue 14): JSON Lines as an x-ndjson body or a multipart `file`;
an upsert by reference or semantic_key per line, the capture policy on every line, a report
with per-line errors, a size limit (413, nothing imported)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from memory.models import AgentMemory, AgentMemoryVersion, Workspace
from tests.developer_api.conftest import assert_error
from tests.memory_api.conftest import URL, assert_invalid, bearer, scope_user, user_label, write

IMPORT = f"{URL}/import"


def jsonl(*lines: Any) -> bytes:
    return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines).encode()


def imported(client: Client, auth: dict[str, str], body: bytes, status: int = 200) -> dict[str, Any]:
    response = client.post(IMPORT, body, content_type="application/x-ndjson", headers=auth)
    assert response.status_code == status, response.content
    return dict(response.json())


def test_it_reports_created_updated_skipped_refused_and_failed_lines(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    existing = write(workspace, "The wiki moved to Notion.", path="tools/wiki", semantic_key="wiki")
    past = (timezone.now() - timedelta(days=1)).isoformat()
    body = jsonl(
        {"path": "people/lena", "content": "Lena owns the Northwind account.", "team": "sales"},  # 1 created
        {"path": "tools/wiki", "content": "The wiki moved to Confluence.", "semantic_key": "wiki"},  # 2 updated
        "",  # 3 blank
        {"path": "ops", "content": "Root password: Tr0ub4dor&3"},  # 4 refused
        "{not json",  # 5
        {"path": "p", "content": "c", "importance": 7},  # 6 invalid
        {"path": "old", "content": "Forgotten thing.", "deleted_at": "2026-01-01T00:00:00+00:00"},  # 7 skipped
        {"path": "old", "content": "Expired thing.", "expires_at": past},  # 8 skipped
        [1, 2],  # 9
    )
    report = imported(client, auth, body)
    counts = {k: report[k] for k in ("lines", "created", "updated", "skipped", "refused", "failed")}
    assert counts == {"lines": 8, "created": 1, "updated": 1, "skipped": 2, "refused": 1, "failed": 3}
    assert [(e["line"], e["error_code"]) for e in report["errors"]] == [
        (4, "capture_refused"), (5, "invalid_json"), (6, "invalid_arguments"), (9, "invalid_json"),
    ]
    assert report["errors"][2]["errors"] == [{"field": "importance", "message": "must be between 0 and 1 (got 7)"}]
    assert "rule 'password'" in report["errors"][0]["message"] and report["errors_truncated"] is False
    existing.refresh_from_db()
    assert existing.content == "The wiki moved to Confluence."
    assert AgentMemoryVersion.objects.get(memory=existing).content == "The wiki moved to Notion."
    lena = AgentMemory.objects.get(path="people/lena")
    assert (lena.team, lena.credential, lena.workspace_id) == ("sales", user_label(workspace), workspace.pk)


def test_a_multipart_file_is_read_the_same(client: Client, auth: dict[str, str]) -> None:
    upload = SimpleUploadedFile("memory.jsonl", jsonl({"path": "a", "content": "Alpha fact about onboarding."}))
    response = client.post(IMPORT, {"file": upload}, headers=auth)
    assert response.status_code == 200, response.content
    assert response.json()["created"] == 1


def test_reimporting_an_export_changes_nothing(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    write(workspace, "Fact one about hiring.", semantic_key="hiring")
    write(workspace, "Fact two about offices.", path="offices")
    export = b"".join(client.get(f"{URL}/export", headers=auth).streaming_content)  # type: ignore[attr-defined]
    report = imported(client, auth, export)
    assert (report["created"], report["updated"], report["skipped"]) == (0, 0, 2)
    assert AgentMemory.objects.count() == 2 and not AgentMemoryVersion.objects.exists()


def test_a_line_with_a_reference_updates_that_memory(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    memory = write(workspace, "Budget owner is Sam.")
    report = imported(client, auth, jsonl({"reference": memory.reference, "path": memory.path, "content": "Budget owner is Ana."}))
    assert report["updated"] == 1
    memory.refresh_from_db()
    assert memory.content == "Budget owner is Ana." and memory.audit.last().action == "imported"  # type: ignore[union-attr]


def test_another_workspaces_reference_creates_a_new_memory_and_leaves_theirs(
    client: Client, workspace: Workspace, other: Workspace
) -> None:
    theirs = write(other, "Globex budget is secret.")
    report = imported(client, bearer(client, workspace), jsonl({"reference": theirs.reference, "path": "x", "content": "Overwrite attempt."}))
    assert report["created"] == 1
    theirs.refresh_from_db()
    assert theirs.content == "Globex budget is secret."
    mine = AgentMemory.objects.get(workspace=workspace)
    assert mine.reference != theirs.reference and mine.content == "Overwrite attempt."


def test_a_fresh_reference_is_kept(client: Client, auth: dict[str, str]) -> None:
    imported(client, auth, jsonl({"reference": "mem_0123456789abcdef01234567", "path": "x", "content": "Kept reference."}))
    assert AgentMemory.objects.get().reference == "mem_0123456789abcdef01234567"


def test_buckets_the_user_cannot_see_fail_by_line(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    scope_user(workspace, buckets=["public"])
    report = imported(client, auth, jsonl({"path": "x", "content": "Finance fact.", "bucket": "finance"}, {"path": "y", "content": "Public fact."}))
    assert (report["created"], report["failed"]) == (1, 1)
    assert report["errors"][0]["line"] == 1 and report["errors"][0]["errors"][0]["field"] == "bucket"


def test_private_lines_become_the_importers_private_memories(client: Client, auth: dict[str, str], workspace: Workspace) -> None:
    imported(client, auth, jsonl({"path": "x", "content": "A private thought.", "bucket": "private", "credential": "pam_mkey_someone"}))
    assert AgentMemory.objects.get().credential == user_label(workspace)


def test_a_file_over_the_limit_is_413_and_nothing_is_imported(client: Client, auth: dict[str, str], settings: Any) -> None:
    settings.PAM_MEMORY_IMPORT_MAX_BYTES = 100
    body = jsonl({"path": "a", "content": "x" * 200})
    body_error = assert_error(client.post(IMPORT, body, content_type="application/x-ndjson", headers=auth), 413, "payload_too_large")
    assert "PAM_MEMORY_IMPORT_MAX_BYTES" in body_error["error_message"]
    upload = SimpleUploadedFile("m.jsonl", body)
    assert_error(client.post(IMPORT, {"file": upload}, headers=auth), 413, "payload_too_large")
    assert not AgentMemory.objects.exists()


def test_other_media_types_and_a_missing_file_are_refused(client: Client, auth: dict[str, str]) -> None:
    assert_error(client.post(IMPORT, "a,b", content_type="text/csv", headers=auth), 415, "unsupported_media_type")
    assert_invalid(client.post(IMPORT, {"name": "x"}, headers=auth), "file")


def test_an_empty_file_imports_nothing(client: Client, auth: dict[str, str]) -> None:
    assert imported(client, auth, b"")["lines"] == 0


def test_it_needs_a_jwt(client: Client, workspace: Workspace) -> None:
    assert_error(client.post(IMPORT, jsonl({"path": "a", "content": "b"}), content_type="application/x-ndjson"), 401, "invalid_token")
    assert not AgentMemory.objects.exists()
