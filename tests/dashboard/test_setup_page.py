"""The Setup page (SPEC §6, §3.1, §7, issue 15): who may open it, connecting sources by
upload or server-side path, the live status fragment, and the agent key shown once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from developer_api.keys import api_key_authenticate, api_key_rotate
from developer_api.models import AgentKey
from memory.models import PipelineRun, Source, User, Workspace

SETUP = "/admin/dashboard/setup/"
NOTE = b"# Meridian\n\nPlatform Engineering owns the Meridian platform rollout through Q3.\n"


def admin_of(workspace: Workspace) -> User:
    return User.objects.get(email=f"admin@{workspace.slug}.example")


def signed_in(workspace: Workspace) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(admin_of(workspace))
    return client


def page_messages(response: Any) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_a_workspace_admin_sees_the_setup_page_of_an_empty_workspace(workspace: Workspace) -> None:
    response = signed_in(workspace).get(SETUP)
    assert response.status_code == 200
    html = response.content.decode()
    assert "No sources yet: connect one" in html
    assert 'data-state="waiting_for_sources"' in html
    assert "Generate agent key" in html
    assert f"claude mcp add --transport http pam http://127.0.0.1:8000/v1/mcp/memory" in html
    assert "Waiting for the first agent call" in html
    assert "<script>" not in html and 'style="' not in html


def test_someone_who_is_not_staff_is_sent_to_sign_in(workspace: Workspace) -> None:
    user = admin_of(workspace)
    user.is_staff = False
    user.save()
    client = Client()
    client.force_login(user)
    response = client.get(SETUP)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert Client().get(SETUP)["Location"].startswith("/admin/login/")


def test_an_operator_picks_the_workspace_with_its_slug(make_workspace: Callable[..., Workspace]) -> None:
    make_workspace("alpha")
    beta = make_workspace("beta")
    api_key_rotate(workspace=beta)
    operator = Client()
    operator.force_login(User.objects.create_superuser("root@pam.example", "pw-123456789"))
    response = operator.get(SETUP, {"workspace": "beta"})
    assert response.status_code == 200 and response.context["workspace"] == beta
    assert response.context["config"]["key_prefix"] == AgentKey.objects.get(workspace=beta).key_prefix
    assert operator.get(SETUP).context["workspace"] == beta  # remembered in the session


def test_a_workspace_admin_cannot_name_another_workspace(make_workspace: Callable[..., Workspace]) -> None:
    own = make_workspace("own")
    make_workspace("other")
    response = signed_in(own).get(SETUP, {"workspace": "other"})
    assert response.context["workspace"] == own


def test_an_upload_creates_a_source_and_builds_memory(workspace: Workspace, django_capture_on_commit_callbacks: Any) -> None:
    client = signed_in(workspace)
    upload = SimpleUploadedFile("meridian.md", NOTE, content_type="text/markdown")
    with django_capture_on_commit_callbacks(execute=True):  # the queued run starts on commit
        posted = client.post(f"{SETUP}upload/", {"file": upload, "kind": "markdown", "name": "Handbook"})
    assert posted.status_code == 302 and posted["Location"] == SETUP
    source = Source.objects.get(workspace=workspace)
    assert source.name == "Handbook" and source.kind == "markdown"
    assert PipelineRun.objects.get(source=source).status == "completed"  # the embedded default syncs in-process
    response = client.get(SETUP)
    assert page_messages(response) == ["Added “Handbook”: PAM is building memory from it."]
    assert response.context["readiness"].ready
    assert 'data-state="ready_minimal"' in response.content.decode()


def test_an_upload_without_a_file_or_with_an_unknown_kind_says_why(workspace: Workspace) -> None:
    client = signed_in(workspace)
    missing = client.post(f"{SETUP}upload/", {"kind": "auto"}, follow=True)
    assert missing.status_code == 200 and "The file was not added" in page_messages(missing)[0]
    upload = SimpleUploadedFile("a.md", NOTE)
    unknown = client.post(f"{SETUP}upload/", {"file": upload, "kind": "telepathy"}, follow=True)
    assert unknown.status_code == 200 and "telepathy" in page_messages(unknown)[0]
    assert not Source.objects.exists()


def test_an_upload_over_the_size_limit_says_why(workspace: Workspace, settings: Any) -> None:
    settings.PAM_MAX_UPLOAD_BYTES = 10
    upload = SimpleUploadedFile("big.md", NOTE)
    response = signed_in(workspace).post(f"{SETUP}upload/", {"file": upload, "kind": "auto"}, follow=True)
    assert response.status_code == 200 and "larger than 10 bytes" in page_messages(response)[0]
    assert not Source.objects.exists()


def test_a_folder_inside_the_import_roots_becomes_a_source(workspace: Workspace, settings: Any, tmp_path: Path) -> None:
    root = tmp_path / "imports"
    (root / "handbook").mkdir(parents=True)
    (root / "handbook" / "meridian.md").write_bytes(NOTE)
    settings.PAM_IMPORT_ROOTS = [str(root)]
    response = signed_in(workspace).post(f"{SETUP}path/", {"path": str(root / "handbook"), "kind": "auto"}, follow=True)
    source = Source.objects.get(workspace=workspace)
    assert source.name == "handbook" and PipelineRun.objects.filter(source=source).exists()
    assert page_messages(response) == ["Connected “handbook”: PAM is building memory from it."]


def test_a_folder_outside_the_import_roots_or_missing_says_why(workspace: Workspace, settings: Any, tmp_path: Path) -> None:
    settings.PAM_IMPORT_ROOTS = [str(tmp_path / "imports")]
    client = signed_in(workspace)
    outside = client.post(f"{SETUP}path/", {"path": "/etc", "kind": "auto"}, follow=True)
    assert outside.status_code == 200 and "PAM_IMPORT_ROOTS" in page_messages(outside)[0]
    missing = client.post(f"{SETUP}path/", {"path": str(tmp_path / "imports" / "nope"), "kind": "auto"}, follow=True)
    assert "does not exist" in page_messages(missing)[0]
    empty = client.post(f"{SETUP}path/", {"path": "", "kind": "auto"}, follow=True)
    assert "The folder was not added" in page_messages(empty)[0]
    assert not Source.objects.exists()


def test_the_status_fragment_reports_readiness_runs_and_the_badge(workspace: Workspace, django_capture_on_commit_callbacks: Any) -> None:
    client = signed_in(workspace)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"{SETUP}upload/", {"file": SimpleUploadedFile("m.md", NOTE), "kind": "auto"})
    status = client.get(f"{SETUP}status/").json()
    assert status["ready"] is True and status["state"].startswith("ready_")
    assert status["mcp_verified"] is False
    assert "m.md" in status["html"] and "completed" in status["html"]


def test_generating_a_key_shows_it_once_and_it_works(workspace: Workspace) -> None:
    client = signed_in(workspace)
    response = client.post(f"{SETUP}key/")
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    shown = re.search(r'data-testid="new-key">(pam_mkey_[A-Za-z0-9]+)<', response.content.decode())
    assert shown is not None
    key = api_key_authenticate(shown.group(1))
    assert key is not None and key.workspace == workspace
    assert f"Bearer {shown.group(1)}" in response.context["configs"]["claude_code"]  # the configs carry it this once
    again = client.get(SETUP).content.decode()
    assert shown.group(1) not in again and key.key_prefix in again


def test_rotating_from_setup_revokes_the_previous_key(workspace: Workspace) -> None:
    old = api_key_rotate(workspace=workspace).api_key
    signed_in(workspace).post(f"{SETUP}key/")
    assert api_key_authenticate(old) is None
    assert AgentKey.objects.filter(workspace=workspace, revoked_at__isnull=True).count() == 1


def test_the_actions_refuse_a_get(workspace: Workspace) -> None:
    client = signed_in(workspace)
    for action in ("upload/", "path/", "key/", "try/"):
        assert client.get(f"{SETUP}{action}").status_code == 405
    assert not AgentKey.objects.exists()


def test_a_run_in_progress_shows_a_progress_bar(workspace: Workspace) -> None:
    source = Source.objects.create(workspace=workspace, name="handbook", kind="auto", location="/nowhere")
    run = PipelineRun.objects.create(
        workspace=workspace, source=source, status="running", stage="extract", progress_done=3, progress_total=8
    )
    html = signed_in(workspace).get(f"{SETUP}status/").json()["html"]
    assert f'data-run-id="{run.pk}"' in html
    assert '<progress class="pam-progress" max="8" value="3"' in html and "extract · 3 / 8" in html
    assert 'data-active-runs="1"' in html
