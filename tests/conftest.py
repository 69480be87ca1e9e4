"""Shared fixtures: real database rows built through our own services, never mocks."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest
from django.conf import settings as django_settings
from django.test import Client

from developer_api.keys import api_key_rotate
from memory.engine import dense
from memory.models import Workspace
from memory.services import workspace_create

# The suite tests rules, not the model: it runs with MiniLM alone, 7x faster to encode than the
# default pair (pam/settings.py), unless PAM_DENSE_MODEL is set. Django is set up before this
# file is read, so the setting is set here too; servers and workers the tests start inherit the
# environment. The pair's own tests (tests/memory/test_dense.py, test_setup_demo.py) set it
# themselves.
os.environ.setdefault("PAM_DENSE_MODEL", "minilm")
django_settings.PAM_DENSE_MODEL = os.environ["PAM_DENSE_MODEL"]

# The tests that run all-mpnet-base-v2 (the default pair's second model) skip, saying so, where
# `make install` has not put it in PAM_MODEL_DIR.
needs_mpnet = pytest.mark.skipif(
    not (dense.mpnet_dir() / "model.safetensors").exists(),
    reason=f"all-mpnet-base-v2 is not in {dense.mpnet_dir()}: make install-mpnet",
)

PLANS = importlib.import_module("developer_api.migrations.0003_plans_and_cache_table").PLANS
SHARED = Path(os.environ.get("PAM_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated_data_dir(settings: Any, tmp_path: Path) -> None:
    """Each test writes indexes under its own directory."""
    settings.PAM_DATA_DIR = tmp_path / "data"
    settings.PAM_DATA_DIR.mkdir()
    from memory.engine import index

    index._loaded.clear()


@pytest.fixture(autouse=True)
def _fresh_redis(settings: Any) -> None:
    """Redis is not rolled back with the database: start every test with an empty cache DB
    (session histories are keyed by workspace id, which another test may have used)."""
    if settings.REDIS_URL:
        from django.core.cache import cache

        cache.clear()


@pytest.fixture(autouse=True)
def _answers_match_the_openapi_document(settings: Any) -> Any:
    """Every /v1/dev and /v1/auth answer of the test client is checked against the OpenAPI
    document (tests/openapi_check.py); a mismatch fails the test."""
    from tests import openapi_check

    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "tests.openapi_check.OpenApiCheckMiddleware"]
    openapi_check.mismatches.clear()
    yield
    found = list(openapi_check.mismatches)
    openapi_check.mismatches.clear()
    assert not found, "answers that do not match the OpenAPI document:\n" + "\n".join(found)


# The project's own copies (memory/mcp/schemas/, documented in docs/mcp-schemas.md);
# tests/memory/test_schemas_match_shared.py checks them against ../shared when it is there.
SCHEMAS = REPO / "memory" / "mcp" / "schemas"


def load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text())


@pytest.fixture
def make_workspace(db: None) -> Callable[..., Workspace]:
    counter = {"n": 0}

    def make(slug: str | None = None, plan: str = "unlimited") -> Workspace:
        # Transactional tests flush the tables, taking the plans the migrations created.
        from developer_api.models import Plan

        for row in PLANS:
            Plan.objects.get_or_create(name=row["name"], defaults=row)
        counter["n"] += 1
        slug = slug or f"ws{counter['n']}"
        return workspace_create(
            slug=slug, admin_email=f"admin@{slug}.example", admin_password="pw-123456789", plan_name=plan
        )

    return make


@pytest.fixture
def workspace(make_workspace: Callable[..., Workspace]) -> Workspace:
    return make_workspace("acme")


@pytest.fixture
def agent_key(workspace: Workspace) -> str:
    return api_key_rotate(workspace=workspace).api_key


class Mcp:
    """Posts JSON-RPC messages to /v1/mcp/memory through Django's test client."""

    def __init__(self, client: Client, key: str | None) -> None:
        self.client = client
        self.key = key
        self._id = 0

    def post(self, body: Any, *, raw: bytes | None = None, headers: dict[str, str] | None = None, key: str | None = "default") -> Any:
        hdrs = dict(headers or {})
        use_key = self.key if key == "default" else key
        if use_key is not None:
            hdrs.setdefault("Authorization", use_key)
        data = raw if raw is not None else json.dumps(body)
        return self.client.post("/v1/mcp/memory", data=data, content_type="application/json", headers=hdrs)

    def request(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        self._id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._id, "method": method}
        if params is not None:
            message["params"] = params
        return self.post(message, **kwargs)

    def call(self, arguments: Any, name: str = "retrieve_memory", **kwargs: Any) -> dict[str, Any]:
        response = self.request("tools/call", {"name": name, "arguments": arguments}, **kwargs)
        assert response.status_code == 200, response.content
        return response.json()["result"]


@pytest.fixture
def mcp(client: Client, agent_key: str) -> Mcp:
    return Mcp(client, agent_key)


FIXTURE_CORPUS = {
    "projects/meridian.md": """---
title: Meridian Platform Rollout
date: 2026-04-02
---
# Meridian Platform Rollout

Platform Engineering owns the Meridian platform rollout through Q3.
Dana Ortiz leads the Platform Engineering team.

## Status
- The Meridian rollout is at risk.
- On 22 May the rollout was blocked by a delayed vendor sign-off and a staging capacity issue.
""",
    "clients/northwind.md": """---
title: Client Profile - Northwind Retail
date: 2026-03-01
---
# Client Profile - Northwind Retail

Northwind Retail is a retail company and a Tier-1 client with ARR of $540,000.
- Lena Park is the account owner for Northwind Retail.
""",
    "processes/refund-policy.md": """---
title: Refund Policy
date: 2025-11-01
---
# Refund Policy

Customers may request a full refund within 30 days of purchase.
Refunds above $5,000 need approval from the CFO.
""",
    "notes.txt": "Weekly notes\n\nThe office coffee machine was repaired on Monday.\n",
    "diagram.png": "not really a png",
}


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    for rel, text in FIXTURE_CORPUS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def dense_encoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the dense stage encodes from here on, in order (it still encodes them)."""
    from memory.engine import dense

    encoded: list[str] = []
    real = dense.encode

    def recording(texts: list[str]) -> Any:
        encoded.extend(texts)
        return real(texts)

    monkeypatch.setattr(dense, "encode", recording)
    return encoded


def run_create(*, source: Any) -> Any:
    """A queued run of the source, as the services create them."""
    from memory.models import PipelineRun

    return PipelineRun.objects.create(workspace=source.workspace, source=source)


def items_import(workspace: Workspace, items: list[dict[str, Any]], name: str = "Chat") -> None:
    """Push `items` (as the items API writes them) into a new `items` source, run to completion."""
    from memory.pipelines.sync import source_sync
    from memory.services import source_create_for_items
    from memory.sources.push import item_write

    source = source_create_for_items(workspace=workspace, name=name)
    for item in items:
        item_write(Path(source.location), item)
    run = source_sync(run_id=run_create(source=source).pk)
    assert run is not None and run.status == "completed", run and run.errors


def evaluation_company(tmp_path: Path, page: str, rows: list[dict[str, Any]]) -> Path:
    """An evaluation company of one Markdown page (`corpus/page.md`) and its questions file,
    as `manage.py evaluate <company> --data PATH` reads them: the questions file's path."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "page.md").write_text(page)
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return questions


def folder_import(workspace: Workspace, folder: Path, files: dict[str, str] | None = None) -> None:
    """Import a folder of files (kind `auto`, named after it) as a source, run to completion;
    `files` (path inside the folder -> text) are written into it first."""
    from memory.models import Source
    from memory.pipelines.sync import source_sync

    for name, text in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    source = Source.objects.create(workspace=workspace, name=folder.name, kind="auto", location=str(folder))
    run = source_sync(run_id=run_create(source=source).pk)
    assert run is not None and run.status == "completed", run and run.errors


@pytest.fixture
def imported_workspace(workspace: Workspace, corpus_dir: Path) -> Workspace:
    """The workspace with the fixture corpus imported through the real pipeline."""
    from memory.models import Source
    from memory.pipelines.sync import source_sync

    source = Source.objects.create(workspace=workspace, name="corpus", kind="auto", location=str(corpus_dir))
    run = source_sync(run_id=run_create(source=source).pk)
    assert run.status == "completed", run.errors
    return workspace
