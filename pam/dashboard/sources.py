"""The Sources page of the dashboard (SPEC §6, issue 15)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace


def sources_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    return render_page(request, "pam/dashboard/sources.html", title="Sources", nav="admin:pam-sources", workspace=workspace)


urlpatterns = [path("sources/", sources_page, name="pam-sources")]
