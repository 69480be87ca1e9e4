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
from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import URLPattern, URLResolver, path

from pam.dashboard import access, memory_browser, request_log, setup, sources, usage
from pam.dashboard.scope import NAV, dashboard_workspaces


class OperatorOnly:
    """The model admin is the operators' (SPEC §6): its tables span every workspace, so a
    workspace admin gets no view of it even if someone grants them model permissions; they see
    their workspace through the dashboard pages, which scope every query."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser and super().has_module_permission(request)  # type: ignore[misc]

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return request.user.is_superuser and super().has_view_permission(request, obj)  # type: ignore[misc]

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return request.user.is_superuser and super().has_add_permission(request, *args)  # type: ignore[misc]

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return request.user.is_superuser and super().has_change_permission(request, obj)  # type: ignore[misc]

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return request.user.is_superuser and super().has_delete_permission(request, obj)  # type: ignore[misc]


class PamAdminSite(admin.AdminSite):
    site_header = "PAM"
    site_title = "PAM company memory"
    index_title = "Operator administration"
    enable_nav_sidebar = False

    def register(self, model_or_iterable: Any, admin_class: Any = None, **options: Any) -> None:
        """Every model admin is operator-only unless it scopes its rows itself
        (`workspace_scoped = True`, as memory.admin.WorkspaceScoped does)."""
        base = admin_class or admin.ModelAdmin
        if not getattr(base, "workspace_scoped", False):
            base = type(base.__name__, (OperatorOnly, base), {"__module__": base.__module__})
        super().register(model_or_iterable, base, **options)

    def has_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and (user.is_superuser or getattr(user, "workspace_id", None)))

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:  # type: ignore[override]
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
                assert isinstance(pattern, URLPattern) and pattern.name
                pages.append(path(f"dashboard/{pattern.pattern}", self.admin_view(pattern.callback), name=pattern.name))
        return pages + super().get_urls()
