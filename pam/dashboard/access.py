"""The Access page of the dashboard (SPEC §3, §4, §6, issue 15): the workspace's agent key
(prefix, scopes, created, last used) with rotate and revoke, and the connected browser apps
(one OAuth connection per refresh-token family) with revoke. Every action is a confirmed POST;
a connection of another workspace is a 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import path
from django.views.decorators.http import require_GET, require_POST

from developer_api.keys import api_key_active, api_key_revoke, api_key_rotate
from memory.models import Workspace
from oauth.connections import connection_get, connection_list, connection_revoke
from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace
from pam.errors import PamError


def _render_access(request: HttpRequest, workspace: Workspace, *, new_key: str | None = None) -> HttpResponse:
    return render_page(
        request,
        "pam/dashboard/access.html",
        title="Access",
        nav="admin:pam-access",
        workspace=workspace,
        key=api_key_active(workspace=workspace),
        new_key=new_key,
        connections=list(connection_list(workspace=workspace).select_related("user")),
    )


@require_GET
def access_page(request: HttpRequest) -> HttpResponse:
    return _render_access(request, dashboard_workspace(request))


@require_POST
def access_key_rotate(request: HttpRequest) -> HttpResponse:
    """A new key, shown on this response only (the old one stops working at once)."""
    workspace = dashboard_workspace(request)
    issued = api_key_rotate(workspace=workspace)
    return _render_access(request, workspace, new_key=issued.api_key)


@require_POST
def access_key_revoke(request: HttpRequest) -> HttpResponse:
    if api_key_revoke(workspace=dashboard_workspace(request)):
        messages.success(request, "The agent key was revoked: agents using it are refused from now on.")
    else:
        messages.warning(request, "There was no active agent key to revoke.")
    return redirect("admin:pam-access")


@require_POST
def access_connection_revoke(request: HttpRequest, connection_id: int) -> HttpResponse:
    try:
        connection = connection_get(workspace=dashboard_workspace(request), connection_id=connection_id)
    except PamError as error:
        raise Http404(error.message) from error
    connection_revoke(connection=connection)
    messages.success(request, f"Disconnected {connection.client_name or connection.client_id}: its tokens stop working now.")
    return redirect("admin:pam-access")


urlpatterns = [
    path("access/", access_page, name="pam-access"),
    path("access/key/rotate/", access_key_rotate, name="pam-access-key-rotate"),
    path("access/key/revoke/", access_key_revoke, name="pam-access-key-revoke"),
    path("access/connections/<int:connection_id>/revoke/", access_connection_revoke, name="pam-access-connection-revoke"),
]
