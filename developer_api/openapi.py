"""The OpenAPI 3.1 document of `/v1/dev/*`, `/v1/auth/*` (SPEC §3) and the REST memory API
`/v1/memory` (SPEC §2.4), built by drf-spectacular
from the views and their output serializers (`developer_api.serializers`).

    GET /v1/dev/openapi.json   the document (public)
    GET /v1/dev/docs           Swagger UI over it (public); its files come from
                               drf-spectacular-sidecar through WhiteNoise, its start-up script
                               from a URL of its own, so the strict CSP holds

Every operation also declares the error answers of SPEC §3 in the one error shape
(`developer_api.schema`, the schema class DRF's settings name).
`tests/openapi_check.py` validates every Developer API answer the test suite produces against
this document.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny

API_PREFIXES = ("/v1/dev/", "/v1/auth/", "/v1/memory")
DOCUMENT_PATHS = ("/v1/dev/openapi.json", "/v1/dev/docs")
def only_api_paths(endpoints: list[tuple[str, str, str, Any]], **kwargs: Any) -> list[tuple[str, str, str, Any]]:
    """drf-spectacular preprocessing hook: the Developer API and auth routes, not the
    document's own."""
    return [e for e in endpoints if e[0].startswith(API_PREFIXES) and e[0] not in DOCUMENT_PATHS]


class PamJWTScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "developer_api.authentication.PamJWTAuthentication"
    name = "jwtAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return dict(build_bearer_security_scheme_object(header_name="HTTP_AUTHORIZATION", token_prefix="Bearer", bearer_format="JWT"))


class OpenApiDocumentView(SpectacularJSONAPIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]


class OpenApiDocsView(SpectacularSwaggerSplitView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
