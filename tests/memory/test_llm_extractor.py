"""The optional LLM extractor (SPEC §7: LLM_BASE_URL, LLM_MODEL, LLM_API_KEY).

The model is the outside world, so it is the one thing faked: a small OpenAI-compatible
server on 127.0.0.1 that records what it was sent.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from memory.models import Fact, PipelineRun, Source, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import run_create

MODEL_FACT = "Acme's fiscal year starts in February."
MODEL_ANSWER = {"choices": [{"message": {"content": json.dumps({"facts": [MODEL_FACT]})}}]}
DOCUMENTS = {
    "finance/calendar.md": "# Finance calendar\n\nThe Finance team holds the budget review every March.\n",
    "handbook/holidays.md": "# Holidays\n\nThe Acme office closes between Christmas and New Year.\n",
}
LOCAL_FACTS = {
    "The Finance team holds the budget review every March.",
    "The Acme office closes between Christmas and New Year.",
}


@dataclass
class FakeModel:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    body: bytes = json.dumps(MODEL_ANSWER).encode()


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    model = FakeModel(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            model.requests.append({"path": self.path, "headers": dict(self.headers), "body": raw})
            self.send_response(model.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(model.body)))
            self.end_headers()
            self.wfile.write(model.body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield model
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture
def llm(settings: Any, fake_model: FakeModel, monkeypatch: pytest.MonkeyPatch) -> FakeModel:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    settings.LLM_BASE_URL = fake_model.url
    settings.LLM_MODEL = "fake"
    settings.LLM_API_KEY = "sk-test"
    return fake_model


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for rel, text in DOCUMENTS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def import_folder(workspace: Workspace, folder: Path) -> PipelineRun:
    source = Source.objects.create(workspace=workspace, name="docs", kind="auto", location=str(folder))
    return source_sync(run_id=run_create(source=source).pk)


def statements() -> set[str]:
    return set(Fact.objects.values_list("statement", flat=True))


def test_the_facts_are_the_models(workspace: Workspace, folder: Path, llm: FakeModel) -> None:
    run = import_folder(workspace, folder)

    assert run.status == "completed", run.errors
    assert run.errors == []
    assert list(Fact.objects.order_by("document__path").values_list("document__path", "statement")) == [
        ("finance/calendar.md", MODEL_FACT),
        ("handbook/holidays.md", MODEL_FACT),
    ]
    stored = PipelineRun.objects.get(pk=run.pk)
    assert stored.llm_calls == 2
    assert len(llm.requests) == 2


def test_the_request_carries_the_model_the_key_and_the_document(
    workspace: Workspace, folder: Path, llm: FakeModel
) -> None:
    import_folder(workspace, folder)

    assert {r["path"] for r in llm.requests} == {"/v1/chat/completions"}
    for request in llm.requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        assert headers["authorization"] == "Bearer sk-test"
        assert headers["content-type"] == "application/json"
        body = json.loads(request["body"])
        assert body["model"] == "fake"
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
    sent = sorted(json.loads(r["body"])["messages"][-1]["content"] for r in llm.requests)
    assert "The Finance team holds the budget review every March." in sent[0]
    assert "Finance calendar" in sent[0]
    assert "The Acme office closes between Christmas and New Year." in sent[1]


def test_no_authorization_header_is_sent_without_an_api_key(
    workspace: Workspace, folder: Path, llm: FakeModel, settings: Any
) -> None:
    settings.LLM_API_KEY = None

    assert import_folder(workspace, folder).status == "completed"

    assert len(llm.requests) == 2
    assert all("authorization" not in {k.lower() for k in r["headers"]} for r in llm.requests)


def test_an_unchanged_document_is_not_sent_again(workspace: Workspace, folder: Path, llm: FakeModel) -> None:
    run = import_folder(workspace, folder)

    again = source_sync(run_id=run_create(source=run.source).pk)

    assert again.status == "completed"
    assert PipelineRun.objects.get(pk=again.pk).llm_calls == 0
    assert len(llm.requests) == 2


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (500, b'{"error": "overloaded"}'),
        (200, b"<html>not json</html>"),
        (200, b'{"choices": []}'),
        (200, json.dumps({"choices": [{"message": {"content": "Sure! Here are the facts."}}]}).encode()),
        (200, json.dumps({"choices": [{"message": {"content": '{"facts": "none"}'}}]}).encode()),
    ],
)
def test_a_failing_model_falls_back_to_the_local_extractor(
    workspace: Workspace, folder: Path, llm: FakeModel, status: int, body: bytes
) -> None:
    llm.status, llm.body = status, body

    run = import_folder(workspace, folder)

    assert run.status == "completed"
    assert statements() == LOCAL_FACTS
    stored = PipelineRun.objects.get(pk=run.pk)
    assert stored.llm_calls == 2
    assert sorted(e["document"] for e in stored.errors) == sorted(DOCUMENTS)
    assert all("local extractor" in e["message"] for e in stored.errors)
    assert all("sk-test" not in e["message"] for e in stored.errors)


def test_no_request_is_made_without_llm_base_url(
    workspace: Workspace, folder: Path, llm: FakeModel, settings: Any
) -> None:
    settings.LLM_BASE_URL = None

    run = import_folder(workspace, folder)

    assert run.status == "completed"
    assert llm.requests == []
    assert PipelineRun.objects.get(pk=run.pk).llm_calls == 0
    assert statements() == LOCAL_FACTS
