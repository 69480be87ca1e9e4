"""Helpers of the dashboard tests: request-log rows written through the service, a signed-in
admin, and the check that a page carries no inline script or style (strict CSP)."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest
from django.test import Client

from developer_api.services import LogEntry, request_log_create
from memory.models import User, Workspace

@pytest.fixture(autouse=True)
def _syncs_run_in_process(settings: Any) -> None:
    """The service run sets a Redis broker and starts no worker for these tests: a sync the
    dashboard queues runs in-process, as in the embedded default."""
    settings.CELERY_TASK_ALWAYS_EAGER = True


UTC = timezone.utc
T0 = datetime(2026, 5, 28, 16, 3, 11, tzinfo=UTC)
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>")


def log_call(
    workspace: Workspace,
    *,
    prompt: str = "What is Meridian?",
    text: str = "# Answer\n\nThe rollout is **at risk**.",
    tool: str = "retrieve_memory",
    outcome: str = "success",
    credential: str = "pam_mkey_abcdefgh",
    at: datetime = T0,
    structured: dict[str, Any] | None = None,
    duration_ms: int = 120,
    tokens: int = 300,
) -> str:
    request_id = str(uuid.uuid4())
    request_log_create(
        entry=LogEntry(
            request_id=request_id, workspace=workspace, credential=credential, agent_key=None, tool_name=tool,
            arguments={"prompt": prompt}, prompt=prompt, outcome=outcome,
            result={"content": [{"type": "text", "text": text}], "structuredContent": structured or {"status": "ok"},
                    "isError": outcome != "success"},
            created_at=at, duration_ms=duration_ms, estimated_tokens=tokens,
        )
    )
    return request_id


def admin_client(workspace: Workspace) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(User.objects.get(workspace=workspace))
    return client


def assert_no_inline_code(html: str) -> None:
    assert not INLINE_SCRIPT.search(html)
    assert " style=" not in html


