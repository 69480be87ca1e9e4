"""Rendering one dashboard page: the admin site's context (navigation, workspace picker) plus
the page's own."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from memory.models import Workspace


def render_page(
    request: HttpRequest, template: str, *, title: str, nav: str, workspace: Workspace, **context: Any
) -> HttpResponse:
    return TemplateResponse(
        request,
        template,
        {**admin.site.each_context(request), "title": title, "nav_active": nav, "workspace": workspace, **context},
    )
