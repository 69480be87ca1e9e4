"""The Request Log page of the dashboard (SPEC §6, issue 15)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path

from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace


def request_log_page(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    return render_page(request, "pam/dashboard/request_log.html", title="Request Log", nav="admin:pam-requests", workspace=workspace)


urlpatterns = [path("requests/", request_log_page, name="pam-requests")]
