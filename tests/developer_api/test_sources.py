"""/v1/dev/sources and /v1/dev/sources/{id}[/sync] (SPEC §7 "sources over REST", §3 errors).

Tasks run in-process in both CI runs (the service run has no worker here): the sync is queued
on commit and executed by `django_capture_on_commit_callbacks(execute=True)`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Callable

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from memory.engine import retrieve
from memory.models import Document, Entity, Fact, IndexVersion, PipelineRun, Relationship, Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import Mcp, run_create
from memory.services import source_create_for_items
from tests.developer_api.conftest import access_token, assert_error

URL = "/v1/dev/sources"
RUN_FIELDS = {"id", "source_id", "status", "stage", "progress", "errors", "started_at", "finished_at"}
SOURCE_FIELDS = {"id", "name", "kind", "status", "created_at", "last_synced_at", "document_count", "fact_count"}
MERIDIAN_OWNER = "Platform Engineering owns the Meridian platform rollout through Q3."
PRICING_MD = b"""---
title: Pricing
date: 2026-02-10
---
# Pricing

The Pro plan costs $59 per seat per month.
The Enterprise plan includes single sign-on.
"""


@pytest.fixture(autouse=True)
def _tasks_run_in_process(settings: Any) -> None:
    # The service run sets a Redis broker and starts no worker for these tests.
    settings.CELERY_TASK_ALWAYS_EAGER = True


def import_folder(workspace: Workspace, folder: Path, name: str = "") -> Source:
    source = Source.objects.create(workspace=workspace, name=name or folder.name, kind="auto", location=str(folder))
    assert source_sync(run_id=run_create(source=source).pk).status == "completed"
    return source


def write_folder(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def uploads(settings: Any) -> list[Path]:
    folder = Path(settings.PAM_DATA_DIR) / "uploads"
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def parse_time(value: str) -> dt.datetime:
    assert value.endswith("+00:00"), value
    return dt.datetime.fromisoformat(value)


# --- GET /v1/dev/sources -----------------------------------------------------------------


def test_it_lists_no_sources_for_a_new_workspace(client: Client, auth: dict[str, str]) -> None:
    response = client.get(URL, headers=auth)

    assert response.status_code == 200, response.content
    assert response.json() == {"items": []}


def test_it_lists_each_source_with_exactly_the_source_fields(
    client: Client, workspace: Workspace, corpus_dir: Path, tmp_path: Path, auth: dict[str, str]
) -> None:
    corpus = import_folder(workspace, corpus_dir, name="Handbook")
    other = Source.objects.create(workspace=workspace, name="Later", kind="markdown", location=str(tmp_path / "later"))

    response = client.get(URL, headers=auth)

    assert response.status_code == 200, response.content
    items = response.json()["items"]
    assert [set(item) for item in items] == [SOURCE_FIELDS, SOURCE_FIELDS]
    first, second = items
    assert first == {
        "id": corpus.pk,
        "name": "Handbook",
        "kind": "auto",
        "status": "ready",
        "created_at": first["created_at"],
        "last_synced_at": first["last_synced_at"],
        "document_count": 4,
        "fact_count": Fact.objects.filter(source=corpus).count(),
    }
    assert first["fact_count"] >= 8
    assert parse_time(first["last_synced_at"]) >= parse_time(first["created_at"])
    assert second == {
        "id": other.pk,
        "name": "Later",
        "kind": "markdown",
        "status": "idle",
        "created_at": second["created_at"],
        "last_synced_at": None,
        "document_count": 0,
        "fact_count": 0,
    }
    parse_time(second["created_at"])


def test_it_lists_only_the_workspaces_own_sources(
    client: Client, make_workspace: Callable[..., Workspace], tmp_path: Path
) -> None:
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    Source.objects.create(workspace=globex, name="Globex docs", kind="auto", location=str(tmp_path / "g"))
    mine = Source.objects.create(workspace=acme, name="Acme docs", kind="auto", location=str(tmp_path / "a"))

    response = client.get(URL, headers={"Authorization": f"Bearer {access_token(client)}"})

    assert [item["id"] for item in response.json()["items"]] == [mine.pk]


# --- POST a multipart upload -------------------------------------------------------------


def test_an_uploaded_markdown_file_becomes_a_source_with_a_queued_run(
    client: Client, workspace: Workspace, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    upload = SimpleUploadedFile("pricing.md", PRICING_MD, content_type="text/markdown")

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(URL, {"file": upload}, headers=auth)
        assert response.status_code == 201, response.content
        body = response.json()
        run = PipelineRun.objects.get(source_id=body["id"])
        assert run.status == "queued"  # handed to Celery only once the request commits

    assert len(callbacks) == 1
    assert set(body) == SOURCE_FIELDS
    assert body["name"] == "pricing.md"
    assert body["kind"] == "auto"
    assert body["last_synced_at"] is None
    assert body["document_count"] == 0
    source = Source.objects.get(pk=body["id"], workspace=workspace)
    run.refresh_from_db()
    assert run.status == "completed", run.errors
    assert source.documents.get().title == "Pricing"
    assert set(source.facts.values_list("statement", flat=True)) >= {"The Pro plan costs $59 per seat per month."}
    readiness = client.get("/v1/dev/readiness", headers=auth).json()
    assert readiness["ready"] is True
    assert readiness["latest_pipeline_status"] == "completed"
    after = client.get(f"{URL}/{source.pk}", headers=auth).json()
    assert after["status"] == "ready"
    assert after["document_count"] == 1
    assert after["fact_count"] == source.facts.count()


def test_an_upload_takes_the_name_and_kind_it_is_given(
    client: Client, workspace: Workspace, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    upload = SimpleUploadedFile("p.md", PRICING_MD, content_type="text/markdown")

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(URL, {"file": upload, "name": "Price list", "kind": "markdown"}, headers=auth)

    assert response.status_code == 201, response.content
    assert (response.json()["name"], response.json()["kind"]) == ("Price list", "markdown")
    assert Source.objects.get(pk=response.json()["id"]).runs.get().status == "completed"


def test_it_refuses_an_upload_over_the_size_limit_and_stores_nothing(
    client: Client, workspace: Workspace, auth: dict[str, str], settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.PAM_MAX_UPLOAD_BYTES = 64
    upload = SimpleUploadedFile("big.md", b"# Big\n\n" + b"The Pro plan costs $59. " * 20, content_type="text/markdown")

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(URL, {"file": upload}, headers=auth)

    assert 400 <= response.status_code < 500, response.content
    assert set(response.json()) == {"error_code", "error_message"}
    assert "file" in response.json()["error_message"]
    assert callbacks == []
    assert not Source.objects.exists()
    assert not PipelineRun.objects.exists()
    assert uploads(settings) == []


def test_an_upload_with_a_very_long_file_name_is_accepted_with_a_short_name_or_refused(
    client: Client, auth: dict[str, str], settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    upload = SimpleUploadedFile("p" * 240 + ".md", PRICING_MD, content_type="text/markdown")

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(URL, {"file": upload}, headers=auth)

    if response.status_code == 201:
        assert len(response.json()["name"]) <= 200
        assert len(Source.objects.get().name) <= 200
    else:
        body = assert_error(response, 400, "invalid_request")
        assert body["error_message"].startswith("file")
        assert not Source.objects.exists()
        assert uploads(settings) == []


def test_it_refuses_a_multipart_post_without_a_file(client: Client, auth: dict[str, str]) -> None:
    response = client.post(URL, {"name": "nothing"}, headers=auth)

    body = assert_error(response, 400, "invalid_request")
    assert body["error_message"].startswith("file")
    assert not Source.objects.exists()


def test_it_refuses_an_upload_of_an_unknown_kind_and_stores_nothing(
    client: Client, auth: dict[str, str], settings: Any
) -> None:
    upload = SimpleUploadedFile("p.md", PRICING_MD, content_type="text/markdown")

    response = client.post(URL, {"file": upload, "kind": "spreadsheet"}, headers=auth)

    body = assert_error(response, 400, "invalid_request")
    assert body["error_message"].startswith("kind")
    assert not Source.objects.exists()
    assert uploads(settings) == []


# --- POST a server-side path ---------------------------------------------------------------


@pytest.fixture
def import_root(tmp_path: Path, settings: Any) -> Path:
    root = tmp_path / "imports"
    root.mkdir()
    settings.PAM_IMPORT_ROOTS = [str(root.resolve())]
    return root


def test_a_path_inside_the_import_roots_becomes_a_source_and_is_synced(
    client: Client,
    workspace: Workspace,
    auth: dict[str, str],
    import_root: Path,
    corpus_dir: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    folder = corpus_dir.rename(import_root / "handbook")

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(URL, {"path": str(folder)}, content_type="application/json", headers=auth)

    assert response.status_code == 201, response.content
    assert len(callbacks) == 1
    body = response.json()
    assert set(body) == SOURCE_FIELDS
    assert (body["name"], body["kind"]) == ("handbook", "auto")
    source = Source.objects.get(pk=body["id"], workspace=workspace)
    assert source.location == str(folder.resolve())
    assert source.runs.get().status == "completed"
    assert source.documents.count() == 4
    assert retrieve(workspace, "Who owns the Meridian rollout?").facts[0].statement == MERIDIAN_OWNER


def test_the_import_root_itself_may_be_the_path(
    client: Client, auth: dict[str, str], import_root: Path, django_capture_on_commit_callbacks: Any
) -> None:
    (import_root / "pricing.md").write_bytes(PRICING_MD)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            URL, {"path": str(import_root), "name": "Imports"}, content_type="application/json", headers=auth
        )

    assert response.status_code == 201, response.content
    assert response.json()["name"] == "Imports"


@pytest.mark.parametrize(
    "where",
    [
        "outside the roots",
        "escaping with ../",
        "a path that does not exist",
        "a root that looks like a prefix",
        "a symbolic link out of the roots",
    ],
)
def test_it_refuses_a_path_that_is_not_an_existing_folder_inside_the_roots(
    client: Client, auth: dict[str, str], import_root: Path, tmp_path: Path, where: str
) -> None:
    outside = write_folder(tmp_path / "outside", {"secret.md": "# Secret\n\nThe vault code is 1234.\n"})
    prefixed = write_folder(tmp_path / "imports-private", {"secret.md": "# Secret\n\nThe vault code is 1234.\n"})
    (import_root / "link").symlink_to(outside, target_is_directory=True)
    path = {
        "outside the roots": str(outside),
        "escaping with ../": f"{import_root}/../outside",
        "a path that does not exist": str(import_root / "missing"),
        "a root that looks like a prefix": str(prefixed),
        "a symbolic link out of the roots": str(import_root / "link"),
    }[where]

    response = client.post(URL, {"path": path}, content_type="application/json", headers=auth)

    body = assert_error(response, 400, "invalid_request")
    assert body["error_message"].startswith("path")
    assert not Source.objects.exists()
    assert not PipelineRun.objects.exists()


def test_it_refuses_every_path_when_no_import_roots_are_configured(
    client: Client, auth: dict[str, str], settings: Any, corpus_dir: Path
) -> None:
    settings.PAM_IMPORT_ROOTS = []

    response = client.post(URL, {"path": str(corpus_dir)}, content_type="application/json", headers=auth)

    body = assert_error(response, 400, "invalid_request")
    assert body["error_message"].startswith("path")
    assert not Source.objects.exists()


def test_it_refuses_an_unknown_kind(client: Client, auth: dict[str, str], import_root: Path) -> None:
    (import_root / "pricing.md").write_bytes(PRICING_MD)

    response = client.post(
        URL, {"path": str(import_root), "kind": "spreadsheet"}, content_type="application/json", headers=auth
    )

    body = assert_error(response, 400, "invalid_request")
    assert body["error_message"].startswith("kind")
    assert "spreadsheet" in body["error_message"]
    assert not Source.objects.exists()


def test_it_refuses_a_json_body_without_a_path(client: Client, auth: dict[str, str]) -> None:
    response = client.post(URL, {"name": "nothing"}, content_type="application/json", headers=auth)

    body = assert_error(response, 400, "invalid_request")
    assert body["error_message"].startswith("path")


@pytest.mark.parametrize("data", ["{not json", "[1, 2]", '"a string"'])
def test_it_refuses_a_body_that_is_not_a_json_object(client: Client, auth: dict[str, str], data: str) -> None:
    response = client.post(URL, data=data, content_type="application/json", headers=auth)

    assert_error(response, 400, "invalid_request")
    assert not Source.objects.exists()


# --- POST a source for pushed items --------------------------------------------------------


def test_it_creates_a_source_for_pushed_items(
    client: Client, workspace: Workspace, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(
            URL, {"kind": "items", "name": "Support tickets"}, content_type="application/json", headers=auth
        )

    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == SOURCE_FIELDS
    assert (body["name"], body["kind"], body["document_count"]) == ("Support tickets", "items", 0)
    assert Source.objects.get(pk=body["id"]).workspace == workspace
    assert callbacks == []  # nothing to sync until items are pushed
    assert not PipelineRun.objects.exists()


# --- GET /v1/dev/sources/{id} --------------------------------------------------------------


def test_it_shows_one_source(client: Client, imported_workspace: Workspace, auth: dict[str, str]) -> None:
    source = Source.objects.get(workspace=imported_workspace)

    response = client.get(f"{URL}/{source.pk}", headers=auth)

    assert response.status_code == 200, response.content
    assert response.json() == client.get(URL, headers=auth).json()["items"][0]
    assert response.json()["id"] == source.pk


def test_it_answers_not_found_for_an_unknown_source(client: Client, auth: dict[str, str]) -> None:
    assert_error(client.get(f"{URL}/999999", headers=auth), 404, "not_found")


# --- tenant isolation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("get", "", None),
        ("delete", "", None),
        ("post", "/sync", {}),
        ("post", "/items", {"items": [{"external_id": "1", "title": "T", "text": "Globex is bankrupt."}]}),
    ],
)
def test_it_refuses_other_workspace(
    client: Client,
    make_workspace: Callable[..., Workspace],
    corpus_dir: Path,
    django_capture_on_commit_callbacks: Any,
    method: str,
    suffix: str,
    body: Any,
) -> None:
    make_workspace("acme")
    globex = make_workspace("globex")
    theirs = import_folder(globex, corpus_dir)
    items = source_create_for_items(workspace=globex, name="Tickets")
    target = items if suffix == "/items" else theirs
    facts = Fact.objects.filter(workspace=globex).count()
    headers = {"Authorization": f"Bearer {access_token(client)}"}  # acme's admin

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        kwargs: dict[str, Any] = {"headers": headers}
        if body is not None:
            kwargs.update(data=body, content_type="application/json")
        response = getattr(client, method)(f"{URL}/{target.pk}{suffix}", **kwargs)

    body_json = assert_error(response, 404, "not_found")
    assert "Globex" not in body_json["error_message"]
    assert callbacks == []
    assert Source.objects.filter(workspace=globex).count() == 2
    assert Fact.objects.filter(workspace=globex).count() == facts
    assert PipelineRun.objects.filter(workspace=globex).count() == 1
    assert not any(Path(items.location).glob("*.json"))


# --- DELETE /v1/dev/sources/{id} -----------------------------------------------------------


def test_deleting_a_source_removes_everything_derived_from_it_and_republishes(
    client: Client,
    workspace: Workspace,
    corpus_dir: Path,
    tmp_path: Path,
    auth: dict[str, str],
    django_capture_on_commit_callbacks: Any,
) -> None:
    corpus = import_folder(workspace, corpus_dir)
    pricing = write_folder(tmp_path / "pricing", {"pricing.md": PRICING_MD.decode()})
    kept = import_folder(workspace, pricing)
    kept_facts = set(Fact.objects.filter(source=kept).values_list("id", flat=True))
    assert Relationship.objects.filter(source=corpus).exists()
    assert retrieve(workspace, "Who owns the Meridian rollout?").facts[0].statement == MERIDIAN_OWNER
    version = IndexVersion.objects.filter(workspace=workspace, status="published").latest("version").version

    with django_capture_on_commit_callbacks(execute=True):
        response = client.delete(f"{URL}/{corpus.pk}", headers=auth)

    assert response.status_code == 202, response.content
    assert set(response.json()) == RUN_FIELDS
    assert (response.json()["source_id"], response.json()["status"]) == (corpus.pk, "queued")
    assert not Source.objects.filter(pk=corpus.pk).exists()
    for model in (Document, Fact, Relationship, PipelineRun):
        assert not model.objects.filter(source_id=corpus.pk).exists(), model.__name__
    assert set(Fact.objects.filter(workspace=workspace).values_list("id", flat=True)) == kept_facts
    assert not Entity.objects.filter(workspace=workspace, key__contains="meridian").exists()
    latest = IndexVersion.objects.filter(workspace=workspace, status="published").latest("version")
    assert latest.version > version
    assert latest.fact_count == len(kept_facts)
    statements = [f.statement for f in retrieve(workspace, "Who owns the Meridian platform rollout?").facts]
    assert MERIDIAN_OWNER not in statements
    pro = retrieve(workspace, "What does the Pro plan cost?")
    assert pro.facts[0].statement == "The Pro plan costs $59 per seat per month."
    assert [item["id"] for item in client.get(URL, headers=auth).json()["items"]] == [kept.pk]


def test_deleting_an_uploaded_source_removes_the_stored_file(
    client: Client, workspace: Workspace, auth: dict[str, str], settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    upload = SimpleUploadedFile("pricing.md", PRICING_MD, content_type="text/markdown")
    with django_capture_on_commit_callbacks(execute=True):
        source_id = client.post(URL, {"file": upload}, headers=auth).json()["id"]
    assert [p.name for p in uploads(settings)] == ["pricing.md"]

    with django_capture_on_commit_callbacks(execute=True):
        response = client.delete(f"{URL}/{source_id}", headers=auth)

    assert response.status_code == 202
    assert uploads(settings) == []
    assert not Fact.objects.exists()
    assert retrieve(workspace, "What does the Pro plan cost?").facts == []


def test_a_deleted_sources_facts_are_hidden_from_the_answer_on_until_its_run_removes_them(
    client: Client,
    mcp: Mcp,
    workspace: Workspace,
    corpus_dir: Path,
    tmp_path: Path,
    auth: dict[str, str],
    django_capture_on_commit_callbacks: Any,
) -> None:
    corpus = import_folder(workspace, corpus_dir)
    import_folder(workspace, write_folder(tmp_path / "pricing", {"pricing.md": PRICING_MD.decode()}))
    prompt = "Who owns the Meridian platform rollout?"
    assert mcp.call({"prompt": prompt})["structuredContent"]["retrieval"]["facts"][0]["statement"] == MERIDIAN_OWNER
    version = IndexVersion.objects.filter(workspace=workspace, status="published").latest("version").version

    with django_capture_on_commit_callbacks(execute=False) as queued:
        run = client.delete(f"{URL}/{corpus.pk}", headers=auth).json()

    # The run has not started: the rows and the published version still hold the facts.
    assert IndexVersion.objects.filter(workspace=workspace, status="published").latest("version").version == version
    assert Fact.objects.filter(source=corpus).exists()
    assert client.get(f"{URL}/{corpus.pk}", headers=auth).json()["status"] == "deleting"
    statements = [f["statement"] for f in mcp.call({"prompt": prompt})["structuredContent"]["retrieval"]["facts"]]
    assert MERIDIAN_OWNER not in statements
    pro = mcp.call({"prompt": "What does the Pro plan cost?"})["structuredContent"]["retrieval"]["facts"]
    assert pro[0]["statement"] == "The Pro plan costs $59 per seat per month."

    for callback in queued:
        callback()  # the worker runs it
    assert not PipelineRun.objects.filter(pk=run["id"]).exists()  # gone with its source
    assert not Source.objects.filter(pk=corpus.pk).exists()
    statements = [f["statement"] for f in mcp.call({"prompt": prompt})["structuredContent"]["retrieval"]["facts"]]
    assert MERIDIAN_OWNER not in statements


def test_deleting_an_unknown_source_answers_not_found(
    client: Client, imported_workspace: Workspace, auth: dict[str, str]
) -> None:
    facts = Fact.objects.count()

    assert_error(client.delete(f"{URL}/999999", headers=auth), 404, "not_found")
    assert Fact.objects.count() == facts


# --- POST /v1/dev/sources/{id}/sync --------------------------------------------------------


def test_a_sync_is_accepted_with_the_id_of_a_queued_run(
    client: Client, imported_workspace: Workspace, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    source = Source.objects.get(workspace=imported_workspace)
    finished = source.runs.get()

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(f"{URL}/{source.pk}/sync", headers=auth)

    assert response.status_code == 202, response.content
    assert set(response.json()) == {"run_id"}
    run = PipelineRun.objects.get(pk=response.json()["run_id"])
    assert run.pk != finished.pk
    assert (run.source_id, run.status) == (source.pk, "queued")
    assert len(callbacks) == 1


def test_a_second_sync_while_one_is_queued_returns_the_same_run(
    client: Client, imported_workspace: Workspace, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    source = Source.objects.get(workspace=imported_workspace)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = client.post(f"{URL}/{source.pk}/sync", headers=auth)
        second = client.post(f"{URL}/{source.pk}/sync", headers=auth)

    assert (first.status_code, second.status_code) == (202, 202)
    assert first.json() == second.json()
    assert source.runs.filter(status="queued").count() == 1
    assert len(callbacks) == 1  # one task for one run


def test_a_sync_runs_the_pipeline_again(
    client: Client, imported_workspace: Workspace, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    source = Source.objects.get(workspace=imported_workspace)
    versions = IndexVersion.objects.filter(workspace=imported_workspace, status="published").count()

    with django_capture_on_commit_callbacks(execute=True):
        run_id = client.post(f"{URL}/{source.pk}/sync", headers=auth).json()["run_id"]

    assert PipelineRun.objects.get(pk=run_id).status == "completed"
    assert IndexVersion.objects.filter(workspace=imported_workspace, status="published").count() == versions + 1
    with django_capture_on_commit_callbacks(execute=False):
        again = client.post(f"{URL}/{source.pk}/sync", headers=auth).json()["run_id"]
    assert again != run_id  # a finished run is never handed out again


# --- authentication -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", ""), ("post", ""), ("get", "/{id}"), ("delete", "/{id}"), ("post", "/{id}/sync"), ("post", "/{id}/items")],
)
def test_it_refuses_a_request_without_a_token(
    client: Client, imported_workspace: Workspace, method: str, path: str
) -> None:
    source = Source.objects.get(workspace=imported_workspace)
    facts = Fact.objects.count()

    response = getattr(client, method)(URL + path.format(id=source.pk))

    assert_error(response, 401, "invalid_token")
    assert Source.objects.count() == 1
    assert Fact.objects.count() == facts
    assert source.runs.count() == 1
