"""The admin site of the product: the dashboard pages of SPEC §6 (Setup, Access, Usage,
Request Log, Memory, Sources) beside the stock model admin, under one base template.

Who sees what (SPEC §6): a workspace admin (an active staff user who belongs to a workspace)
sees the dashboard pages of that workspace only; an operator (a superuser) sees every
workspace, chosen on each page, and the stock model admin. Every page is an `admin_view`, so
signing in, the session and CSRF are the admin's own.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import URLPattern, URLResolver, path

from pam.dashboard import access, memory_browser, request_log, setup, sources, usage
from pam.dashboard.scope import NAV, dashboard_workspaces


class PamAdminSite(admin.AdminSite):
    site_header = "PAM"
    site_title = "PAM company memory"
    index_title = "Operator administration"
    enable_nav_sidebar = False

    def has_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and (user.is_superuser or getattr(user, "workspace_id", None)))

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        """Workspace admins start on Setup; operators on the model index (their own tools)."""
        if not request.user.is_superuser:
            return redirect("admin:pam-setup")
        return super().index(request, extra_context)

    def each_context(self, request: HttpRequest) -> dict[str, Any]:
        context = super().each_context(request)
        context["pam_nav"] = NAV
        if request.user.is_authenticated and self.has_permission(request):
            context["pam_workspaces"] = dashboard_workspaces(request)
        return context

    def get_urls(self) -> list[URLResolver | URLPattern]:
        pages: list[URLResolver | URLPattern] = []
        for module in (setup, access, usage, request_log, memory_browser, sources):
            for pattern in module.urlpatterns:
                assert isinstance(pattern, URLPattern)
                pages.append(path(f"dashboard/{pattern.pattern}", self.admin_view(pattern.callback), name=pattern.name))
        return pages + super().get_urls()
