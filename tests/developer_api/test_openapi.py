"""GET /v1/dev/openapi.json and /v1/dev/docs (SPEC §3): a public OpenAPI 3.1 document of every
/v1/dev and /v1/auth operation, with a Swagger UI page served from PAM (no CDN), under the
strict CSP; and the check that holds every answer of the suite to it can fail."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern

from developer_api.urls import auth_urlpatterns, dev_urlpatterns, memory_urlpatterns
from tests import openapi_check


def test_the_document_is_public_openapi_3_1(client: Client) -> None:
    response = client.get("/v1/dev/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.1")
    assert document["components"]["securitySchemes"]["jwtAuth"]["scheme"] == "bearer"


def test_every_route_of_the_developer_api_is_documented(client: Client) -> None:
    paths = client.get("/v1/dev/openapi.json").json()["paths"]

    def template(prefix: str, pattern: URLPattern) -> str:
        return prefix + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern))

    expected = {template("/v1/dev/", p) for p in dev_urlpatterns} | {template("/v1/auth/", p) for p in auth_urlpatterns}
    expected |= {template("/", p) for p in memory_urlpatterns}
    expected -= {"/v1/dev/openapi.json", "/v1/dev/docs"}
    assert expected == set(paths)


def test_every_operation_declares_the_error_shape(client: Client) -> None:
    document = client.get("/v1/dev/openapi.json").json()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status in ("400", "401", "404", "429"):
                schema = operation["responses"][status]["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)


def test_the_docs_page_loads_its_files_from_pam_under_the_strict_csp(client: Client) -> None:
    response = client.get("/v1/dev/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<script>" not in html and "cdn" not in html.lower()
    assert "script-src 'self'" in response["Content-Security-Policy"]
    for url in re.findall(r'(?:src|href)="([^"]+)"', html):
        if url.startswith("/"):
            assert client.get(url.replace("&amp;", "&")).status_code == 200, url


def test_a_body_that_differs_from_the_document_is_reported() -> None:
    found = openapi_check.problems("GET", "/v1/dev/readiness", 200, b'{"ready": "yes"}', "application/json")
    assert found and "readiness" in found[0]


def test_an_undeclared_status_is_reported() -> None:
    found = openapi_check.problems("GET", "/v1/dev/readiness", 418, b"{}", "application/json")
    assert found == [f"GET /v1/dev/readiness → 418: status not declared ({sorted(openapi_check.document()['paths']['/v1/dev/readiness']['get']['responses'])})"]


def test_the_check_sees_the_test_clients_answers(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(openapi_check, "problems", lambda *args: seen.append(args) or [])
    client.get("/v1/dev/readiness")
    assert seen and seen[0][:3] == ("GET", "/v1/dev/readiness", 401)
