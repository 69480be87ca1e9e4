"""Which workspace a dashboard request is about (SPEC §6: who sees what).

A workspace admin always gets their own workspace: nothing in the request can name another.
An operator (superuser) picks one with `?workspace=<slug>`, remembered in the session; every
object a page looks up is then filtered by that workspace, so another workspace's id is a 404.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404, HttpRequest

from developer_api.ids import row_id
from memory.models import Workspace

SESSION_KEY = "pam_dashboard_workspace"


@dataclass(frozen=True)
class NavItem:
    url_name: str
    label: str


NAV = (
    NavItem("admin:pam-setup", "Setup"),
    NavItem("admin:pam-access", "Access"),
    NavItem("admin:pam-usage", "Usage"),
    NavItem("admin:pam-requests", "Request Log"),
    NavItem("admin:pam-memory", "Memory"),
    NavItem("admin:pam-sources", "Sources"),
)


def dashboard_workspaces(request: HttpRequest) -> list[Workspace]:
    """The workspaces the signed-in user may open: their own, or every one for an operator."""
    user = request.user
    if user.is_superuser:
        return list(Workspace.objects.order_by("slug"))
    workspace_id = getattr(user, "workspace_id", None)
    return list(Workspace.objects.filter(pk=workspace_id)) if workspace_id else []


def dashboard_workspace(request: HttpRequest) -> Workspace:
    """The workspace this page shows; 404 when there is none the user may open."""
    user = request.user
    if not user.is_superuser:
        workspace_id = getattr(user, "workspace_id", None)
        if workspace_id is None:
            raise Http404("No workspace.")
        return Workspace.objects.select_related("plan").get(pk=workspace_id)
    slug = request.GET.get("workspace") or request.session.get(SESSION_KEY)
    rows = Workspace.objects.select_related("plan").order_by("slug")
    workspace = rows.filter(slug=slug).first() if slug else None
    if workspace is None:
        workspace = rows.first()
    if workspace is None:
        raise Http404("No workspace yet: create one with manage.py create_workspace.")
    if request.session.get(SESSION_KEY) != workspace.slug:  # a session write only on a change
        request.session[SESSION_KEY] = workspace.slug
    return workspace


def path_row_id(value: int) -> int:
    """A path id as a row id; one too large for a row id names no row (404) and must not
    reach the database."""
    checked = row_id(value)
    if checked is None:
        raise Http404("Not found in this workspace.")
    return checked
