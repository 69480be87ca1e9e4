"""The Setup page of the dashboard (SPEC §6, issue 15): from an empty workspace to a verified
MCP connection in the browser.

The readiness checklist (SPEC §3.1) with a live progress bar per pipeline run (the
`workspace_<id>_pipeline` group, SPEC §7); connecting a source by upload or server-side path
(the services of `POST /v1/dev/sources`); the MCP config to copy (`mcp_config_get`); the agent
key, shown once right after it is issued (SPEC §3: only its hash is kept); the hello-world
prompt with the "MCP verified" badge; and "try a prompt", which runs `retrieve_memory` as the
signed-in admin through the one path of every tool call, with the dashboard credential (logged
as `dashboard:<user id>`, never counted against quota, never verifying the agent key).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, cast

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import path
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET, require_POST

from developer_api.keys import api_key_active, api_key_rotate
from developer_api.mcp_config import KEY_PLACEHOLDER, mcp_config_get
from memory.mcp.calls import tool_call
from memory.mcp.credentials import dashboard_credential
from memory.mcp.errors import JsonRpcError
from memory.mcp.tools import CallContext
from memory.models import PipelineRun, Source, User, Workspace
from memory.readiness import readiness_get
from memory.selectors import run_list, source_list
from memory.services import run_enqueue, source_create_from_path, source_create_from_upload
from pam.dashboard.markdown import render_markdown
from pam.dashboard.pages import render_page
from pam.dashboard.scope import dashboard_workspace
from pam.dashboard.setup_forms import PathForm, TryPromptForm, UploadForm, form_problems
from pam.errors import PamError

RECENT_RUNS = 5
ACTIVE = (PipelineRun.Status.QUEUED, PipelineRun.Status.RUNNING)
CLAUDE_CODE_COMMAND = 'claude mcp add --transport http {name} {url} --header "Authorization: Bearer {key}"'
CLIENT_SERVER_NAME = "pam"  # the server name in the Claude Code and Cursor configs


@dataclass(frozen=True)
class TryAnswer:
    """The report (or the error) of a prompt tried from the dashboard."""

    is_error: bool
    text: str

    @property
    def html(self) -> SafeString:
        return render_markdown(self.text)


def setup_status_context(workspace: Workspace) -> dict[str, Any]:
    """What the live part of the page shows: the checklist and the runs (refetched by JS)."""
    runs = run_list(workspace=workspace, limit=RECENT_RUNS)
    key = api_key_active(workspace=workspace)
    return {
        "readiness": readiness_get(workspace=workspace),
        "runs": runs,
        "active_runs": [run for run in runs if run.status in ACTIVE],
        "mcp_verified": bool(key and key.mcp_verified),
    }


def _client_configs(config: dict[str, Any], key: str | None) -> dict[str, str]:
    """Ready-to-paste client configs; the placeholder stands for the key unless it was just issued."""
    shown_key = key or KEY_PLACEHOLDER
    cursor = {"mcpServers": {CLIENT_SERVER_NAME: {"url": config["mcp_url"], "headers": {"Authorization": f"Bearer {shown_key}"}}}}
    return {
        "claude_code": CLAUDE_CODE_COMMAND.format(name=CLIENT_SERVER_NAME, url=config["mcp_url"], key=shown_key),
        "cursor": json.dumps(cursor, indent=2),
    }


def _render_setup(request: HttpRequest, workspace: Workspace, *, new_key: str | None = None, **extra: Any) -> HttpResponse:
    config = mcp_config_get(workspace=workspace)
    return render_page(
        request,
        "pam/dashboard/setup.html",
        title="Setup",
        nav="admin:pam-setup",
        workspace=workspace,
        config=config,
        configs=_client_configs(config, new_key),
        new_key=new_key,
        has_sources=source_list(workspace=workspace).exists(),
        upload_form=UploadForm(),
        path_form=PathForm(),
        import_roots=settings.PAM_IMPORT_ROOTS,
        try_form=extra.pop("try_form", None) or TryPromptForm(initial={"prompt": config["hello_world_prompt"]}),
        **setup_status_context(workspace),
        **extra,
    )


@require_GET
def setup_page(request: HttpRequest) -> HttpResponse:
    return _render_setup(request, dashboard_workspace(request))


@require_GET
def setup_status(request: HttpRequest) -> JsonResponse:
    """The checklist and runs as HTML, with the two flags the page's script acts on."""
    workspace = dashboard_workspace(request)
    context = {"workspace": workspace, **setup_status_context(workspace)}
    return JsonResponse(
        {
            "ready": context["readiness"].ready,
            "state": context["readiness"].state,
            "mcp_verified": context["mcp_verified"],
            "html": render_to_string("pam/dashboard/setup/status.html", context, request=request),
        }
    )


def _connect_source(
    request: HttpRequest, form: forms.Form, create: Callable[..., Source], *, what: str, done: str
) -> HttpResponse:
    """Validate `form`, create the source with its fields and queue its sync; every outcome is
    a message on Setup (POST/redirect/GET)."""
    if not form.is_valid():
        messages.error(request, f"The {what} was not added. {form_problems(form)}")
        return redirect("admin:pam-setup")
    try:
        source = create(workspace=dashboard_workspace(request), **form.cleaned_data)
        run_enqueue(source=source)
    except PamError as error:
        messages.error(request, f"The {what} was not added: {error.message}")
    else:
        messages.success(request, f"{done} “{source.name}”: PAM is building memory from it.")
    return redirect("admin:pam-setup")


def _create_from_upload(*, file: UploadedFile, **fields: Any) -> Source:
    return source_create_from_upload(upload=file, **fields)  # the form's field is `file`


@require_POST
def setup_upload(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.POST, request.FILES)
    return _connect_source(request, form, _create_from_upload, what="file", done="Added")


@require_POST
def setup_path(request: HttpRequest) -> HttpResponse:
    return _connect_source(request, PathForm(request.POST), source_create_from_path, what="folder", done="Connected")


@require_POST
def setup_key(request: HttpRequest) -> HttpResponse:
    """Issue a new key (revoking the old one) and show it on this response only: no redirect
    carries it, and nothing keeps it."""
    workspace = dashboard_workspace(request)
    issued = api_key_rotate(workspace=workspace)
    return _render_setup(request, workspace, new_key=issued.api_key)


@require_POST
def setup_try(request: HttpRequest) -> HttpResponse:
    workspace = dashboard_workspace(request)
    form = TryPromptForm(request.POST)
    if not form.is_valid():
        return _render_setup(request, workspace, try_form=form)
    user = cast(User, request.user)  # admin_view: a signed-in staff user
    credential = dashboard_credential(
        workspace=workspace,
        user_id=user.pk,
        buckets=frozenset(user.memory_buckets or []),
        teams=frozenset(user.memory_teams or []),
    )
    try:
        result = tool_call(CallContext(credential=credential, handshake_session_id=None), "retrieve_memory", {"prompt": form.cleaned_data["prompt"]})
    except JsonRpcError as error:
        answer = TryAnswer(is_error=True, text=error.message)
    else:
        text = "\n\n".join(str(part["text"]) for part in result.get("content", []) if part.get("type") == "text")
        answer = TryAnswer(is_error=bool(result.get("isError")), text=text)
    return _render_setup(request, workspace, try_form=form, try_answer=answer)


urlpatterns = [
    path("setup/", setup_page, name="pam-setup"),
    path("setup/status/", setup_status, name="pam-setup-status"),
    path("setup/upload/", setup_upload, name="pam-setup-upload"),
    path("setup/path/", setup_path, name="pam-setup-path"),
    path("setup/key/", setup_key, name="pam-setup-key"),
    path("setup/try/", setup_try, name="pam-setup-try"),
]
