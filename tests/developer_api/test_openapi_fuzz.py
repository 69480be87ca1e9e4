"""Generated requests for every operation of the OpenAPI document (issue 17 "What to build" 1):
schemathesis derives valid and invalid inputs from `/v1/dev/openapi.json` and sends them, signed
in, to the real WSGI application. No answer may be a 500, every answer must be declared in the
document with its status, content type and body shape, and nothing may change in another
workspace. Derandomized, so a CI failure reproduces; capped at PAM_FUZZ_API_EXAMPLES (default
12) examples per operation and phase; each operation prints the cases it tried by status.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework_simplejwt.tokens import RefreshToken
from schemathesis.checks import (  # registered checks, resolved by name
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from developer_api.keys import api_key_rotate
from developer_api.models import AgentKey, RequestLog
from memory.models import Source, Workspace
from tests.developer_api.test_mcp_requests import log

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = int(os.environ.get("PAM_FUZZ_API_EXAMPLES", "12"))

@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx: Any, value: Any) -> bytes:
    """POST /v1/memory/import's JSON Lines body: a generated string as is, anything else as
    one JSON line."""
    return value.encode("utf-8", "surrogatepass") if isinstance(value, str) else (json.dumps(value) + "\n").encode()


# Loaded once at collection from the application itself (the document needs no database).
schema = schemathesis.openapi.from_wsgi("/v1/dev/openapi.json", WSGIHandler())


@pytest.fixture(autouse=True)
def _keep_the_test_connection() -> Any:
    """Requests go straight to a WSGIHandler, whose request signals close the database connection
    (Django's test client disconnects them): on PostgreSQL that would close the test's own
    transaction's connection after the first request."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def other(make_workspace: Any) -> Workspace:
    """Another workspace with a key, a source and a logged call: the fuzz must not touch them."""
    workspace = make_workspace("other")
    api_key_rotate(workspace=workspace)
    Source.objects.create(workspace=workspace, name="theirs", kind="items", location="")
    log(workspace, 2)
    return workspace


def snapshot(workspace: Workspace) -> tuple[Any, ...]:
    return (
        list(AgentKey.objects.filter(workspace=workspace).values_list("key_hash", "revoked_at")),
        list(Source.objects.filter(workspace=workspace).values_list("id", "name", "status")),
        RequestLog.objects.filter(workspace=workspace).count(),
    )


@pytest.fixture
def outcomes(request: pytest.FixtureRequest) -> Any:
    counted: Counter[int] = Counter()
    yield counted
    print(f"\n{request.node.name}: {sum(counted.values())} cases tried ({dict(sorted(counted.items()))})")


@schema.parametrize()
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_request_gets_a_500_an_undocumented_answer_or_touches_another_workspace(
    case: Any, workspace: Workspace, other: Workspace, outcomes: Counter[int]
) -> None:
    before = snapshot(other)
    token = RefreshToken.for_user(workspace.users.get()).access_token  # no login per example (rate-limited)
    response = case.call(headers={"Authorization": f"Bearer {token}", "Host": "127.0.0.1"})
    outcomes[response.status_code] += 1
    case.validate_response(response, checks=CHECKS)
    assert snapshot(other) == before
