from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import include, path

from developer_api.urls import auth_urlpatterns, dev_urlpatterns
from memory.mcp.transport import mcp_endpoint

urlpatterns = [
    path("v1/mcp/memory", mcp_endpoint, name="mcp-memory"),
    path("v1/auth/", include(auth_urlpatterns)),
    path("v1/dev/", include(dev_urlpatterns)),
    path("admin/", admin.site.urls),
]


def json_not_found(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if request.path.startswith("/v1/"):
        return JsonResponse({"error_code": "not_found", "error_message": "Not found."}, status=404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def json_server_error(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/v1/"):
        return JsonResponse(
            {"error_code": "internal_error", "error_message": "Internal error."}, status=500
        )
    from django.views.defaults import server_error

    return server_error(request)


handler404 = json_not_found
handler500 = json_server_error
