"""The Memory page of the dashboard (SPEC §6, issue 15)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace


def memory_browser_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    return render_page(request, "pam/dashboard/memory_browser.html", title="Memory", nav="admin:pam-memory", workspace=workspace)


urlpatterns = [path("memory/", memory_browser_page, name="pam-memory")]
