from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import include, path

from developer_api.urls import auth_urlpatterns, dev_urlpatterns, memory_urlpatterns
from memory.mcp.transport import mcp_endpoint
from oauth.urls import oauth2_provider_urlpatterns
from oauth.urls import urlpatterns as oauth_urlpatterns

urlpatterns = [
    path("v1/mcp/memory", mcp_endpoint, name="mcp-memory"),
    path("v1/auth/", include(auth_urlpatterns)),
    path("v1/dev/", include(dev_urlpatterns)),
    *memory_urlpatterns,
    path("admin/", admin.site.urls),
    path("", include((oauth2_provider_urlpatterns, "oauth2_provider"))),
    *oauth_urlpatterns,
]


def json_not_found(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if request.path.startswith("/v1/"):
        return JsonResponse({"error_code": "not_found", "error_message": "Not found."}, status=404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def json_bad_request(request: HttpRequest, exception: Any = None) -> HttpResponse:
    # Also answers a Host outside ALLOWED_HOSTS (DisallowedHost): JSON on the API surfaces.
    if request.path.startswith("/v1/"):
        if request.path.startswith("/v1/mcp/"):
            body: dict[str, Any] = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "Bad Request"},
            }
        else:
            body = {"error_code": "invalid_request", "error_message": "Bad Request."}
        return JsonResponse(body, status=400)
    from django.views.defaults import bad_request

    return bad_request(request, exception)


def json_server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/v1/"):
        return JsonResponse(
            {"error_code": "internal_error", "error_message": "Internal error."}, status=500
        )
    from django.views.defaults import server_error

    return server_error(request)


handler400 = json_bad_request
handler404 = json_not_found
handler500 = json_server_error
