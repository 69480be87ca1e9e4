"""POST /v1/dev/sources/{id}/items (SPEC §7: pushed items; the same external_id updates).

Tasks run in-process in both CI runs (the service run has no worker here): the sync is queued
on commit and executed by `django_capture_on_commit_callbacks(execute=True)`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from memory.engine import retrieve
from memory.models import Document, Fact, PipelineRun, Source, Workspace
from memory.services import source_create_for_items
from tests.developer_api.conftest import access_token, assert_error

HELIOS = "The Helios migration is owned by the Infrastructure team."
HELIOS_NOW = "The Helios migration is now owned by the Data Platform team."


@pytest.fixture(autouse=True)
def _tasks_run_in_process(settings: Any) -> None:
    # The service run sets a Redis broker and starts no worker for these tests.
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def source(workspace: Workspace) -> Source:
    return source_create_for_items(workspace=workspace, name="Tickets")


def item(**overrides: Any) -> dict[str, Any]:
    return {
        "external_id": "TICKET-1",
        "title": "Helios migration",
        "text": HELIOS,
        "created_at": "2026-03-02T09:30:00Z",
        "author": "Dana Ortiz",
        "url": "https://tickets.example/TICKET-1",
        "metadata": {"priority": "high", "votes": 3},
        **overrides,
    }


def push(client: Client, auth: dict[str, str], source_id: int, body: Any) -> Any:
    return client.post(f"/v1/dev/sources/{source_id}/items", body, content_type="application/json", headers=auth)


def stored_items(source: Source) -> list[Path]:
    return sorted(Path(source.location).glob("*"))


def test_it_works(
    client: Client, workspace: Workspace, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = push(client, auth, source.pk, {"items": [item()]})
        assert response.status_code == 202, response.content
        assert set(response.json()) == {"run_id"}
        run = PipelineRun.objects.get(pk=response.json()["run_id"])
        assert (run.source_id, run.status) == (source.pk, "queued")

    assert len(callbacks) == 1
    run.refresh_from_db()
    assert run.status == "completed", run.errors
    assert run.errors == []
    result = retrieve(workspace, "Who owns the Helios migration?")
    assert result.facts[0].statement == HELIOS
    assert result.facts[0].source_document == "TICKET-1"


def test_an_item_keeps_its_title_date_author_url_and_metadata(
    client: Client, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        push(client, auth, source.pk, {"items": [item()]})

    document = Document.objects.get(source=source)
    assert document.path == "TICKET-1"
    assert document.title == "Helios migration"
    assert document.doc_date == dt.date(2026, 3, 2)
    assert document.metadata == {
        "priority": "high",
        "votes": "3",
        "author": "Dana Ortiz",
        "url": "https://tickets.example/TICKET-1",
    }
    assert Fact.objects.get(document=document, statement=HELIOS).effective_date == dt.date(2026, 3, 2)


def test_only_external_id_title_and_text_are_required(
    client: Client, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = push(client, auth, source.pk, {"items": [{"external_id": "N-1", "title": "Note", "text": HELIOS}]})

    assert response.status_code == 202, response.content
    document = Document.objects.get(source=source)
    assert (document.path, document.doc_date) == ("N-1", None)
    assert document.facts.filter(statement=HELIOS).exists()


def test_the_same_external_id_updates_its_document(
    client: Client, workspace: Workspace, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        first = push(client, auth, source.pk, {"items": [item()]}).json()["run_id"]
    with django_capture_on_commit_callbacks(execute=True):
        second = push(client, auth, source.pk, {"items": [item(text=HELIOS_NOW)]}).json()["run_id"]

    assert first != second
    assert PipelineRun.objects.get(pk=second).status == "completed"
    assert Document.objects.filter(source=source).count() == 1
    assert len(stored_items(source)) == 1
    statements = set(Fact.objects.filter(source=source).values_list("statement", flat=True))
    assert HELIOS_NOW in statements
    assert HELIOS not in statements
    found = [f.statement for f in retrieve(workspace, "Who owns the Helios migration?").facts]
    assert found[0] == HELIOS_NOW
    assert HELIOS not in found


def test_different_external_ids_are_different_documents(
    client: Client, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    items = [item(), item(external_id="TICKET-2", title="Refunds", text="Refunds above $5,000 need CFO approval.")]

    with django_capture_on_commit_callbacks(execute=True):
        push(client, auth, source.pk, {"items": items})

    assert set(Document.objects.filter(source=source).values_list("path", flat=True)) == {"TICKET-1", "TICKET-2"}


def test_a_push_while_a_run_is_queued_joins_that_run(
    client: Client, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        first = push(client, auth, source.pk, {"items": [item()]})
        second = push(client, auth, source.pk, {"items": [item(external_id="TICKET-2", title="Other")]})

    assert first.json() == second.json()
    assert len(callbacks) == 1
    assert Document.objects.filter(source=source).count() == 2  # the one run read both items


def test_an_item_pushed_while_a_run_is_running_is_synced_by_a_later_run(
    client: Client, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    from memory.pipelines.sync import source_sync
    from memory.services import source_items_push

    first = source_items_push(source=source, items=[item()])
    answers: list[Any] = []

    def push_midway(run: PipelineRun) -> None:
        if run.stage == "tree" and not answers:
            answers.append(push(client, auth, source.pk, {"items": [item(external_id="TICKET-2", title="Later")]}))

    with django_capture_on_commit_callbacks(execute=True):
        assert source_sync(run_id=first.pk, progress=push_midway).status == "completed"
    assert answers[0].status_code == 202
    later = PipelineRun.objects.filter(source=source, status="queued").first()
    if later is not None:
        source_sync(run_id=later.pk)

    assert set(Document.objects.filter(source=source).values_list("path", flat=True)) == {"TICKET-1", "TICKET-2"}


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "items"),
        ({"items": []}, "items"),
        ({"items": "TICKET-1"}, "items"),
        ({"items": [{"title": "T", "text": HELIOS}]}, "items[0].external_id"),
        ({"items": [{"external_id": "1", "text": HELIOS}]}, "items[0].title"),
        ({"items": [{"external_id": "1", "title": "T"}]}, "items[0].text"),
        ({"items": [{"external_id": "1", "title": "T", "text": ""}]}, "items[0].text"),
        ({"items": [{"external_id": "1", "title": "T", "text": ["a", "b"]}]}, "items[0].text"),
        ({"items": [{"external_id": "1", "title": {"t": 1}, "text": HELIOS}]}, "items[0].title"),
        ({"items": [{"external_id": True, "title": "T", "text": HELIOS}]}, "items[0].external_id"),
        ({"items": [{"external_id": "1", "title": "T", "text": HELIOS, "created_at": "last week"}]}, "items[0].created_at"),
        ({"items": [{"external_id": "1", "title": "T", "text": HELIOS, "url": "not a url"}]}, "items[0].url"),
        ({"items": [{"external_id": "1", "title": "T", "text": HELIOS, "metadata": "high"}]}, "items[0].metadata"),
        ({"items": [{"external_id": "1", "title": "T", "text": HELIOS}, {"external_id": "2", "title": "T"}]}, "items[1].text"),
        ({"items": ["TICKET-1"]}, "items[0]"),
    ],
)
def test_it_rejects_an_invalid_item_naming_the_field(
    client: Client, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any, body: Any, field: str
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = push(client, auth, source.pk, body)

    message = assert_error(response, 400, "invalid_request")["error_message"]
    assert message.startswith(field), message
    assert callbacks == []
    assert not PipelineRun.objects.exists()
    assert stored_items(source) == []  # a valid first item is not written either


def test_a_non_object_item_is_named_by_its_position_alone(
    client: Client, source: Source, auth: dict[str, str]
) -> None:
    response = push(client, auth, source.pk, {"items": ["TICKET-1"]})

    message = assert_error(response, 400, "invalid_request")["error_message"]
    assert message.startswith("items[0]: "), message


def test_it_rejects_more_than_1000_items(
    client: Client, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    items = [{"external_id": str(n), "title": "T", "text": "x"} for n in range(1001)]

    with django_capture_on_commit_callbacks(execute=True):
        response = push(client, auth, source.pk, {"items": items})

    message = assert_error(response, 400, "invalid_request")["error_message"]
    assert message.startswith("items")
    assert stored_items(source) == []
    assert not PipelineRun.objects.exists()


def test_it_accepts_exactly_1000_items(
    client: Client, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    items = [{"external_id": str(n), "title": "T", "text": f"Ticket {n} is closed."} for n in range(1000)]

    with django_capture_on_commit_callbacks(execute=False):
        response = push(client, auth, source.pk, {"items": items})

    assert response.status_code == 202, response.content
    assert len(stored_items(source)) == 1000


def test_it_refuses_items_for_a_source_that_is_not_an_items_source(
    client: Client, imported_workspace: Workspace, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    folder = Source.objects.get(workspace=imported_workspace)
    files = sorted(Path(folder.location).rglob("*"))

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = push(client, auth, folder.pk, {"items": [item()]})

    message = assert_error(response, 400, "invalid_request")["error_message"]
    assert message.startswith("items")
    assert "kind" in message
    assert callbacks == []
    assert sorted(Path(folder.location).rglob("*")) == files
    assert folder.runs.count() == 1


def test_it_answers_not_found_for_an_unknown_source(client: Client, auth: dict[str, str]) -> None:
    assert_error(push(client, auth, 999999, {"items": [item()]}), 404, "not_found")


def test_it_refuses_a_request_without_a_token(client: Client, source: Source) -> None:
    response = client.post(f"/v1/dev/sources/{source.pk}/items", {"items": [item()]}, content_type="application/json")

    assert_error(response, 401, "invalid_token")
    assert stored_items(source) == []


def test_a_chat_transcript_item_becomes_one_fact_per_message_keeping_author_time_and_id(
    client: Client, workspace: Workspace, source: Source, auth: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    transcript = {
        "external_id": "standup-2026-03-02",
        "title": "Platform stand-up",
        "messages": [
            {"id": "m1", "author": "Dana Ortiz", "sent_at": "2026-03-02T09:30:00Z", "text": "Who is taking the Helios cut-over?"},
            {"id": "m2", "author": "Ravi Menon", "sent_at": "2026-03-02T09:31:00+00:00", "text": "I will run the Helios cut-over on Thursday night."},
            {"id": "m3", "author": "Dana Ortiz", "text": "   "},
        ],
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = push(client, auth, source.pk, {"items": [transcript]})
    assert response.status_code == 202, response.content
    run = PipelineRun.objects.get(pk=response.json()["run_id"])
    assert run.status == "completed", run.errors
    facts = list(Fact.objects.filter(source=source).order_by("position").values_list("statement", "locator", "effective_date"))
    assert facts == [
        ("Dana Ortiz: Who is taking the Helios cut-over?", "m1", dt.date(2026, 3, 2)),
        ("Ravi Menon: I will run the Helios cut-over on Thursday night.", "m2", dt.date(2026, 3, 2)),
    ]
    result = retrieve(workspace, "When is the Helios cut-over?")
    assert result.facts[0].statement.startswith("Ravi Menon: I will run the Helios cut-over")


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"external_id": "x", "title": "t"}, "items[0].text"),
        ({"external_id": "x", "title": "t", "messages": []}, "items[0].text"),
        ({"external_id": "x", "title": "t", "messages": "hello"}, "items[0].messages"),
        ({"external_id": "x", "title": "t", "messages": ["hello"]}, "items[0].messages"),
        ({"external_id": "x", "title": "t", "messages": [{"author": "Dana"}]}, "items[0].messages"),
        ({"external_id": "x", "title": "t", "messages": [{"text": "hi", "sent_at": "yesterday"}]}, "items[0].messages"),
    ],
)
def test_it_refuses_an_item_without_text_or_with_malformed_messages_and_stores_nothing(
    client: Client, source: Source, auth: dict[str, str], bad: dict[str, Any], field: str
) -> None:
    body = assert_error(push(client, auth, source.pk, {"items": [bad]}), 400, "invalid_request")
    assert body["error_message"].startswith(field), body
    assert stored_items(source) == []
    assert not PipelineRun.objects.filter(source=source).exists()


def test_a_deeply_nested_body_is_a_bad_request_not_a_500(client: Client, source: Source, auth: dict[str, str]) -> None:
    # Issue 17 defect 1: the same for every JSON body of /v1/dev/*.
    for depth in (2000, 900):
        metadata = "{\"a\": " * depth + "1" + "}" * depth
        raw = '{"items": [{"external_id": "x", "title": "t", "text": "t", "metadata": ' + metadata + "}]}"
        response = client.post(f"/v1/dev/sources/{source.pk}/items", raw, content_type="application/json", headers=auth)

        assert_error(response, 400, "invalid_request")
    assert not PipelineRun.objects.filter(source=source).exists()
