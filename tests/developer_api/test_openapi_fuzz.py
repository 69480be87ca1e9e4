"""Generated requests for every operation of the OpenAPI document (issue 17): schemathesis
derives valid and invalid inputs from `/v1/dev/openapi.json` and sends them, signed in, to the
real WSGI application. No answer may be a 500, and every answer must be declared in the
document with its status, content type and body shape. Derandomized: a failure reproduces."""

from __future__ import annotations

from typing import Any

import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from hypothesis import HealthCheck, settings
from schemathesis.checks import (  # registered checks, resolved by name
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from rest_framework_simplejwt.tokens import RefreshToken

from memory.models import Workspace

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


# Loaded once at collection from the application itself (the document needs no database).
schema = schemathesis.openapi.from_wsgi("/v1/dev/openapi.json", WSGIHandler())


@schema.parametrize()
@settings(max_examples=12, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_request_gets_a_500_or_an_undocumented_answer(case: Any, workspace: Workspace) -> None:
    token = RefreshToken.for_user(workspace.users.get()).access_token  # no login per example (rate-limited)
    headers = {"Authorization": f"Bearer {token}", "Host": "127.0.0.1"}
    case.call_and_validate(headers=headers, checks=CHECKS)
