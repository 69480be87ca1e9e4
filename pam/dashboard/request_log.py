"""The Request Log of the dashboard (SPEC §2.2, §6; issue 15): every tool call of the
workspace, newest first, with search and filters, one page at a time; a detail page per call;
new calls arrive live over `/ws/requests/` (static/pam/dashboard/requests.js fetches each new
row's partial from `requests/<request_id>/row/`).

Paging is by keyset only (the `Cursor` of `GET /v1/dev/mcp-requests`, "<created_at>|<id>",
on the index `requestlog_ws_time`): the page never counts the log, not even for "page N of M"
(the API's `total_count` comes from the usage roll-up, which knows nothing of these filters).
The search is the API's own (`request_log_matching`: the GIN-indexed tsvector on PostgreSQL).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone as dt_timezone
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import path

from developer_api.apis_mcp import MAX_Q
from developer_api.models import SCOPE_READ, SCOPE_WRITE, RequestLog
from developer_api.selectors import Cursor, cursor_after, request_get, request_log_matching
from memory.mcp.tools import tools_for
from pam.dashboard.markdown import render_markdown
from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace
from pam.errors import PamError

PAGE_SIZE = 25
MAX_CREDENTIAL = 100  # RequestLog.credential's length
# The columns a page of the list leaves unread: the full result is kilobytes per row.
LIST_DEFERRED = ("result", "arguments", "response_text")
UTC = dt_timezone.utc


class RequestFilters(forms.Form):
    """The list's query string: every field optional; `from`/`to` are UTC dates, inclusive."""

    q = forms.CharField(required=False, max_length=MAX_Q, label="Search", help_text="Words in the tool, prompt or answer")
    outcome = forms.ChoiceField(required=False, choices=[("", "Any outcome"), *RequestLog.Outcome.choices])
    tool = forms.ChoiceField(required=False)
    credential = forms.CharField(required=False, max_length=MAX_CREDENTIAL, help_text="pam_mkey_…, oauth:<id> or dashboard:<id>")
    cursor = forms.CharField(required=False, max_length=100, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        names = sorted(tool.name for tool in tools_for(frozenset({SCOPE_READ, SCOPE_WRITE})))
        tool_field = self.fields["tool"]
        assert isinstance(tool_field, forms.ChoiceField)
        tool_field.choices = [("", "Any tool"), *((name, name) for name in names)]
        # "from" is a Python keyword: these two are added by name.
        self.fields["from"] = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
        self.fields["to"] = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    def clean_cursor(self) -> Cursor | None:
        raw = self.cleaned_data["cursor"]
        try:
            return Cursor.parse(raw) if raw else None
        except PamError:
            raise forms.ValidationError("This page link is broken: start again from the newest calls.")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        start, end = cleaned.get("from"), cleaned.get("to")
        if start and end and start > end:
            self.add_error("to", "The end date is before the start date.")
        return cleaned

    @property
    def narrowed(self) -> bool:
        """Whether a filter or a cursor leaves out some of the newest calls."""
        return any(self.cleaned_data.get(name) for name in ("q", "outcome", "tool", "credential", "from", "to", "cursor"))


@dataclass
class LogPage:
    items: list[RequestLog]
    next_cursor: Cursor | None


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def request_log_page(*, workspace: Any, filters: dict[str, Any], limit: int = PAGE_SIZE) -> LogPage:
    """The newest `limit` calls matching `filters` (after `filters["cursor"]`), and the cursor
    of the next page when there is one: `limit + 1` rows read, nothing counted."""
    rows = RequestLog.objects.filter(workspace=workspace)
    if filters.get("q"):
        rows = request_log_matching(rows, filters["q"])
    if filters.get("outcome"):
        rows = rows.filter(outcome=filters["outcome"])
    if filters.get("tool"):
        rows = rows.filter(tool_name=filters["tool"])
    if filters.get("credential"):
        rows = rows.filter(credential=filters["credential"])
    if filters.get("from"):
        rows = rows.filter(created_at__gte=_midnight(filters["from"]))
    if filters.get("to") and filters["to"] < date.max:  # 9999-12-31 has no next day: no bound
        rows = rows.filter(created_at__lt=_midnight(filters["to"] + timedelta(days=1)))
    if filters.get("cursor"):
        rows = rows.filter(cursor_after(filters["cursor"]))
    window = list(rows.defer(*LIST_DEFERRED).order_by("-created_at", "-id")[: limit + 1])
    items = window[:limit]
    return LogPage(items, Cursor(items[-1].created_at, items[-1].pk) if len(window) > limit else None)


def _older_query(request: HttpRequest, cursor: Cursor) -> str:
    query = request.GET.copy()
    query["cursor"] = str(cursor)
    return query.urlencode()


def _newest_query(request: HttpRequest) -> str:
    query = request.GET.copy()
    query.pop("cursor", None)
    return query.urlencode()


def request_log_list(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    form = RequestFilters(request.GET)
    valid = form.is_valid()
    page = request_log_page(workspace=workspace, filters=form.cleaned_data) if valid else LogPage([], None)
    response = render_page(
        request,
        "pam/dashboard/request_log.html",
        title="Request Log",
        nav="admin:pam-requests",
        workspace=workspace,
        form=form,
        page=page,
        narrowed=not valid or form.narrowed,
        paged=valid and form.cleaned_data.get("cursor") is not None,
        older_query=_older_query(request, page.next_cursor) if page.next_cursor else "",
        newest_query=_newest_query(request),
    )
    if not valid:
        response.status_code = 400
    return response


def _scoped_row(request: HttpRequest, request_id: str) -> tuple[Any, RequestLog]:
    workspace = dashboard_workspace(request)
    try:
        return workspace, request_get(workspace=workspace, request_id=request_id)
    except PamError:
        raise Http404("No call with this id in this workspace.")


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)


def request_detail(request: HttpRequest, request_id: str) -> HttpResponse:
    workspace, row = _scoped_row(request, request_id)
    result = row.result if isinstance(row.result, dict) else {}
    content = result.get("content") or [{}]
    answer = content[0].get("text", "") if isinstance(content[0], dict) else ""
    structured = result.get("structuredContent")
    diagnostics = structured.get("diagnostics") if isinstance(structured, dict) else None
    return render_page(
        request,
        "pam/dashboard/request_detail.html",
        title=f"{row.tool_name} call",
        nav="admin:pam-requests",
        workspace=workspace,
        row=row,
        answer_html=render_markdown(answer) if answer else "",
        arguments_json=_pretty(row.arguments),
        structured_json=_pretty(structured) if structured is not None else "",
        diagnostics_json=_pretty(diagnostics) if diagnostics is not None else "",
    )


def request_row(request: HttpRequest, request_id: str) -> HttpResponse:
    """One row of the list, for the live feed to prepend (static/pam/dashboard/requests.js)."""
    _, row = _scoped_row(request, request_id)
    return HttpResponse(render_to_string("pam/dashboard/requests/row.html", {"row": row}, request=request))


urlpatterns = [
    path("requests/", request_log_list, name="pam-requests"),
    path("requests/<str:request_id>/", request_detail, name="pam-request-detail"),
    path("requests/<str:request_id>/row/", request_row, name="pam-request-row"),
]
