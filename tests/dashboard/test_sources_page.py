"""The Sources page of the dashboard (SPEC §5, §6, §7; issue 15): the workspace's sources with
their counts and runs, re-sync and delete through the services behind POST /v1/dev/sources/{id}/
sync and DELETE /v1/dev/sources/{id}, and another workspace's source never reachable."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from django.test import Client
from django.urls import reverse

from memory.models import PipelineRun, Source, User, Workspace
from memory.services import source_import

INLINE = re.compile(r"<style|\sstyle=|<script(?![^>]*\ssrc=)|\son[a-z]+=", re.IGNORECASE)


def admin_client(workspace: Workspace) -> Client:
    client = Client()
    client.force_login(User.objects.get(email=f"admin@{workspace.slug}.example"))
    return client


def small_folder(root: Path) -> Path:
    root.mkdir()
    (root / "handbook.md").write_text("# Handbook\n\nThe support desk answers within four business hours.\n")
    (root / "broken.md").write_bytes(b"\xff\xfe\x00 not text")
    return root


def imported(workspace: Workspace, tmp_path: Path, name: str = "docs") -> Source:
    return source_import(workspace=workspace, path=small_folder(tmp_path / name)).source


def test_it_lists_each_source_with_kind_status_counts_and_runs(workspace: Workspace, tmp_path: Path) -> None:
    source = imported(workspace, tmp_path)
    run = PipelineRun.objects.get(source=source)
    response = admin_client(workspace).get(reverse("admin:pam-sources"))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-source-id="{source.pk}"' in html and source.name in html and source.kind in html
    assert "ready" in html and f'data-run-id="{run.pk}"' in html and "completed" in html
    card = re.search(r"<dt>Documents</dt><dd>(\d+)</dd>.*?<dt>Facts</dt><dd>(\d+)</dd>", html, re.S)
    assert card and card.groups() == (str(source.documents.count()), str(source.facts.count()))
    assert int(card.group(2)) > 0
    assert 'class="pam-progress"' in html and "sources.js" in html
    assert INLINE.findall(html) == []


def test_a_run_shows_its_errors(workspace: Workspace, tmp_path: Path) -> None:
    source = imported(workspace, tmp_path)
    run = PipelineRun.objects.get(source=source)
    html = admin_client(workspace).get(reverse("admin:pam-sources")).content.decode()
    for error in run.errors:
        assert str(error["message"]) in html or str(error["message"]).replace("'", "&#x27;") in html


def test_an_empty_workspace_says_how_to_connect_a_source(workspace: Workspace) -> None:
    html = admin_client(workspace).get(reverse("admin:pam-sources")).content.decode()
    assert "No sources yet: connect one" in html


def test_resync_queues_a_run_of_the_source(workspace: Workspace, tmp_path: Path) -> None:
    source = imported(workspace, tmp_path)
    client = admin_client(workspace)
    response = client.post(reverse("admin:pam-source-sync", args=[source.pk]))
    assert response.status_code == 302
    assert response["Location"].endswith(f"#source-{source.pk}")
    queued = PipelineRun.objects.filter(source=source, status=PipelineRun.Status.QUEUED)
    assert queued.count() == 1
    html = client.get(reverse("admin:pam-sources")).content.decode()
    assert f"run #{queued.get().pk} queued" in html


def test_resync_needs_a_post(workspace: Workspace, tmp_path: Path) -> None:
    source = imported(workspace, tmp_path)
    assert admin_client(workspace).get(reverse("admin:pam-source-sync", args=[source.pk])).status_code == 405
    assert PipelineRun.objects.filter(source=source).count() == 1


def test_delete_asks_first_then_starts_removing_the_source(workspace: Workspace, tmp_path: Path) -> None:
    source = imported(workspace, tmp_path)
    client = admin_client(workspace)
    html = client.get(reverse("admin:pam-sources")).content.decode()
    delete_form = re.search(r'<form[^>]*action="%s"[^>]*>' % re.escape(reverse("admin:pam-source-delete", args=[source.pk])), html)
    assert delete_form and "data-confirm=" in delete_form.group(0)
    response = client.post(reverse("admin:pam-source-delete", args=[source.pk]))
    assert response.status_code == 302
    # In the embedded default the removal run works in-process once the request commits; in the
    # test's transaction it stays queued, and the source is marked deleting.
    assert Source.objects.get(pk=source.pk).status == Source.Status.DELETING
    html = client.get(reverse("admin:pam-sources")).content.decode()
    assert "deleting" in html


def test_the_card_fragment_is_one_source_for_the_live_refresh(workspace: Workspace, tmp_path: Path) -> None:
    source = imported(workspace, tmp_path)
    response = admin_client(workspace).get(reverse("admin:pam-source-card", args=[source.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('class="pam-panel pam-source"') == 1 and "<html" not in html


def test_someone_not_signed_in_or_not_staff_is_sent_to_the_login_page(workspace: Workspace, tmp_path: Path) -> None:
    source = imported(workspace, tmp_path)
    outsider = Client()
    outsider.force_login(User.objects.create_user("member@acme.example", "pw-123456789", workspace=workspace))
    for client in (Client(), outsider):
        for url in (reverse("admin:pam-sources"), reverse("admin:pam-source-card", args=[source.pk])):
            response = client.get(url)
            assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))
        client.post(reverse("admin:pam-source-sync", args=[source.pk]))
    assert PipelineRun.objects.filter(source=source).count() == 1


def test_an_operator_opens_a_workspace_with_the_query_string(
    workspace: Workspace, make_workspace: Callable[..., Workspace], tmp_path: Path
) -> None:
    imported(workspace, tmp_path, "acme-docs")
    make_workspace("zeta")
    operator = Client()
    operator.force_login(User.objects.create_superuser("op@pam.example", "pw-123456789"))
    assert "acme-docs" in operator.get(reverse("admin:pam-sources"), {"workspace": "acme"}).content.decode()
    assert "acme-docs" not in operator.get(reverse("admin:pam-sources"), {"workspace": "zeta"}).content.decode()


def test_another_workspaces_source_is_not_found_and_nothing_changes(
    workspace: Workspace, make_workspace: Callable[..., Workspace], tmp_path: Path
) -> None:
    other = make_workspace("other")
    theirs = imported(other, tmp_path, "theirs")
    client = admin_client(workspace)
    assert client.get(reverse("admin:pam-source-card", args=[theirs.pk])).status_code == 404
    assert client.post(reverse("admin:pam-source-sync", args=[theirs.pk])).status_code == 404
    assert client.post(reverse("admin:pam-source-delete", args=[theirs.pk])).status_code == 404
    assert client.get(f"/admin/dashboard/sources/{2**70}/").status_code == 404
    assert client.post(f"/admin/dashboard/sources/{2**70}/sync/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == Source.Status.READY
    assert PipelineRun.objects.filter(source=theirs).count() == 1
    assert "theirs" not in client.get(reverse("admin:pam-sources")).content.decode()
