"""The REST memory API (SPEC §2.4 "the REST API takes the wider filter set"; issue 14;
docs/api/memory.md): agent memories over JWT, as on `/v1/dev/*`.

    GET    /v1/memory                        → MemoryPage (filters, keyset cursor)
    POST   /v1/memory                        → 201 {action, memory} (the `remember` service)
    GET    /v1/memory/export                 → JSON Lines, streamed (the list's filters)
    POST   /v1/memory/import                 → ImportReport (multipart `file` or x-ndjson body)
    GET    /v1/memory/{reference}            → MemoryDetail (with history and audit)
    PATCH  /v1/memory/{reference}            → MemoryDetail (content, metadata, importance, expires_at)
    POST   /v1/memory/{reference}/forget     → MemoryDetail ({"reason"}; soft delete)
    POST   /v1/memory/{reference}/restore    → MemoryDetail ({"reason"?}; undo a forget)

The signed-in user reads and writes as a credential does (`viewer_of`): the buckets and teams
on the user row (empty = all), and the bucket `private` only with what this user wrote
(`user:<id>`). Invalid arguments are HTTP 422 `{"error_code": "invalid_arguments",
"error_message", "errors": [{"field", "message"}]}`; a capture-policy refusal is 422
`capture_refused` with the reason; the rest is SPEC §3's error shape (401, 403, 404 — also for
another workspace's references —, 409 `conflict`, 413, 415).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Callable

from django.conf import settings
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from developer_api.apis import WorkspaceApi
from developer_api.exception_handler import memory_exception_handler
from developer_api.parsers import BoundedJSONParser
from developer_api.memory_serializers import (
    ImportReportSerializer,
    InvalidArgumentsSerializer,
    MemoryDetailSerializer,
    MemoryPageSerializer,
    MemorySerializer,
    MemoryWrittenSerializer,
)
from developer_api.selectors import Cursor, keyset_page
from developer_api.serializers import ErrorSerializer
from memory.agent_memory.browse import MemoryFilters, memory_get, memory_rows
from memory.agent_memory.drafts import (
    MEMORY_FIELDS_SCHEMA,
    MEMORY_PATCH_SCHEMA,
    memory_fields_check,
    memory_patch_check,
)
from memory.agent_memory.jsonl import memory_export_lines, memory_import, memory_record, with_history
from memory.agent_memory.services import (
    Writer,
    memory_forget_one,
    memory_patch,
    memory_remember,
    memory_restore,
)
from memory.engine.live import Viewer
from memory.models import AgentMemory
from pam.errors import PamError

MAX_LIMIT = 100
DEFAULT_LIMIT = 10
MAX_REASON_CHARS = 1000
USER_LABEL = "user:{id}"  # the credential label of a signed-in user (provenance, `private`)
USER_KIND = "user"
NDJSON_TYPES = ("application/x-ndjson", "application/jsonl", "application/json-lines")
EXPORT_TYPE = "application/x-ndjson; charset=utf-8"
PATH_REFERENCE = OpenApiParameter("reference", str, OpenApiParameter.PATH, description="the memory's reference (mem_…)")
# An unencoded "+00:00" in a query string arrives as " 00:00" (after a time, not as the time).
SPACED_OFFSET = re.compile(r"^(.+[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?) (\d\d:?\d\d)$")

# The answers of every /v1/memory operation besides SPEC §3's (developer_api.schema adds those).
INVALID = {422: OpenApiResponse(InvalidArgumentsSerializer, description="invalid_arguments, field by field (SPEC §2.4)")}
CONFLICT = {409: OpenApiResponse(ErrorSerializer, description="conflict: the memory is (not) forgotten")}
REFUSED = {
    422: OpenApiResponse(
        InvalidArgumentsSerializer,
        description="invalid_arguments with `errors`, or capture_refused (the capture policy's reason; no `errors`)",
    )
}


def viewer_of(request: Request) -> Viewer:
    """The signed-in user as a credential (SPEC §2.4: users carry buckets and teams)."""
    user: Any = request.user
    return Viewer(
        label=USER_LABEL.format(id=user.pk), buckets=frozenset(user.memory_buckets or []), teams=frozenset(user.memory_teams or [])
    )


def writer_of(request: Request) -> Writer:
    return Writer(label=USER_LABEL.format(id=request.user.pk), kind=USER_KIND, request_id="")


class IsoDateTimeQuery(serializers.DateTimeField):
    """An ISO 8601 query parameter; a bare date-time is UTC."""

    def to_internal_value(self, value: Any) -> datetime:
        if isinstance(value, str):
            value = SPACED_OFFSET.sub(r"\1+\2", value.strip())
        return super().to_internal_value(value)


class MemoryApi(WorkspaceApi):
    """Invalid arguments answer 422 in SPEC §2.4's shape on every /v1/memory operation; bodies
    are JSON (another media type: 415)."""

    parser_classes = [BoundedJSONParser]

    def caller(self, request: Request) -> dict[str, Any]:
        """The workspace and the user as a reader: the keyword arguments of every read."""
        return {"workspace": self.workspace(request), "viewer": viewer_of(request)}

    def get_exception_handler(self) -> Callable[[Exception, dict[str, Any]], Response | None]:
        return memory_exception_handler


class FilterQuery(serializers.Serializer[Any]):
    """The filters of the list and the export (docs/api/memory.md)."""

    bucket = serializers.CharField(required=False, max_length=64)
    team = serializers.CharField(required=False, max_length=100)
    project = serializers.CharField(required=False, max_length=100)
    path_prefix = serializers.CharField(required=False, max_length=700, trim_whitespace=False, help_text="a plain prefix; end with '/' for a folder")
    memory_type = serializers.CharField(required=False, max_length=40)
    credential = serializers.CharField(
        required=False, max_length=100, help_text="provenance: the key prefix, oauth:<connection id> or user:<id> that wrote it"
    )
    created_after = IsoDateTimeQuery(required=False, help_text="inclusive")
    created_before = IsoDateTimeQuery(required=False, help_text="exclusive")
    expires_after = IsoDateTimeQuery(required=False, help_text="inclusive; leaves out memories that never expire")
    expires_before = IsoDateTimeQuery(required=False, help_text="exclusive; leaves out memories that never expire")
    include_forgotten = serializers.BooleanField(required=False, default=False)
    include_expired = serializers.BooleanField(required=False, default=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for low, high in (("created_after", "created_before"), ("expires_after", "expires_before")):
            if low in attrs and high in attrs and attrs[low] >= attrs[high]:
                raise serializers.ValidationError({high: [f"must be later than {low}"]})
        return attrs


class ListQuery(FilterQuery):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT)
    page = serializers.IntegerField(min_value=1, max_value=10**9, default=1)
    cursor = serializers.CharField(required=False, max_length=100, help_text="next_cursor of the previous page")


def _query(query: type[serializers.Serializer[Any]], request: Request) -> dict[str, Any]:
    serializer = query(data=request.query_params.dict())  # a dict: "" is invalid, not "absent"
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _filters(query: dict[str, Any]) -> MemoryFilters:
    names = MemoryFilters.__dataclass_fields__
    return MemoryFilters(**{name: value for name, value in query.items() if name in names})


def _detail(memory: AgentMemory) -> dict[str, Any]:
    fresh = with_history(AgentMemory.objects.filter(pk=memory.pk)).get()
    return dict(MemoryDetailSerializer(memory_record(fresh, history=True)).data)


class MemoryListApi(MemoryApi):
    """GET: the memories you can see, newest first · POST: remember one."""

    @extend_schema(operation_id="memory_list", parameters=[ListQuery], responses={200: MemoryPageSerializer, **INVALID})
    def get(self, request: Request) -> Response:
        query = _query(ListQuery, request)
        try:
            cursor = Cursor.parse(query["cursor"]) if "cursor" in query else None
        except PamError as exc:
            raise serializers.ValidationError({"cursor": [exc.message.removeprefix("cursor: ")]}) from exc
        rows = memory_rows(**self.caller(request), filters=_filters(query))
        page = keyset_page(
            rows.order_by("-created_at", "-id"), total=rows.count(), limit=query["limit"], page=query["page"], cursor=cursor
        )
        page.items = [memory_record(m, history=False) for m in page.items]
        return Response(MemoryPageSerializer(page).data)

    @extend_schema(
        operation_id="memory_create",
        request={"application/json": MEMORY_FIELDS_SCHEMA},
        responses={201: MemoryWrittenSerializer, 200: MemoryWrittenSerializer, **REFUSED},
    )
    def post(self, request: Request) -> Response:
        draft = memory_fields_check(request.data)
        done = memory_remember(**self.caller(request), writer=writer_of(request), draft=draft)
        body = {"action": done.action, "memory": _detail(done.memory)}
        return Response(MemoryWrittenSerializer(body).data, status=201 if done.action == "created" else 200)


class MemoryDetailApi(MemoryApi):
    """GET one memory (forgotten and expired ones too) · PATCH it."""

    @extend_schema(operation_id="memory_detail", parameters=[PATH_REFERENCE], responses=MemoryDetailSerializer)
    def get(self, request: Request, reference: str) -> Response:
        memory = memory_get(**self.caller(request), reference=reference)
        return Response(_detail(memory))

    @extend_schema(
        operation_id="memory_patch",
        parameters=[PATH_REFERENCE],
        request={"application/json": MEMORY_PATCH_SCHEMA},
        responses={200: MemoryDetailSerializer, **CONFLICT, **REFUSED},
    )
    def patch(self, request: Request, reference: str) -> Response:
        memory_get(**self.caller(request), reference=reference)  # 404 before 422
        changes = memory_patch_check(request.data)
        memory = memory_patch(
            **self.caller(request),
            writer=writer_of(request),
            reference=reference,
            changes=changes,
        )
        return Response(_detail(memory))


class ForgetInput(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=MAX_REASON_CHARS, help_text="kept in the audit trail")


class RestoreInput(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=MAX_REASON_CHARS, required=False, default="", allow_blank=True)


class _MemoryStateApi(MemoryApi):
    """POST {"reason"}: change whether the memory answers (`service`), with an audit row."""

    reason_input: type[serializers.Serializer[Any]]
    service: Callable[..., AgentMemory]

    def change(self, request: Request, reference: str) -> Response:
        memory_get(**self.caller(request), reference=reference)  # 404 before 422
        data = self.reason_input(data=request.data)
        data.is_valid(raise_exception=True)
        memory = type(self).service(
            **self.caller(request), writer=writer_of(request), reference=reference, reason=data.validated_data["reason"]
        )
        return Response(_detail(memory))


class MemoryForgetApi(_MemoryStateApi):
    """POST {"reason"}: the memory leaves every answer at once; an audit row keeps why."""

    reason_input = ForgetInput
    service = memory_forget_one

    @extend_schema(
        operation_id="memory_forget", parameters=[PATH_REFERENCE], request=ForgetInput,
        responses={200: MemoryDetailSerializer, **CONFLICT, **INVALID},
    )
    def post(self, request: Request, reference: str) -> Response:
        return self.change(request, reference)


class MemoryRestoreApi(_MemoryStateApi):
    """POST {"reason"?}: a forgotten memory answers again at once; an audit row keeps who."""

    reason_input = RestoreInput
    service = memory_restore

    @extend_schema(
        operation_id="memory_restore", parameters=[PATH_REFERENCE], request=RestoreInput,
        responses={200: MemoryDetailSerializer, **CONFLICT, **INVALID},
    )
    def post(self, request: Request, reference: str) -> Response:
        return self.change(request, reference)


class MemoryExportApi(MemoryApi):
    """Every memory you can see that matches the list's filters, as JSON Lines (one memory
    with its provenance, history and audit per line), streamed oldest first."""

    @extend_schema(
        operation_id="memory_export",
        parameters=[FilterQuery],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR, description="JSON Lines: one memory (MemoryDetail) per line"),
            (422, "application/json"): INVALID[422],
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse | Response:
        workspace = self.workspace(request)
        rows = memory_rows(workspace=workspace, viewer=viewer_of(request), filters=_filters(_query(FilterQuery, request)))
        response = StreamingHttpResponse(memory_export_lines(rows), content_type=EXPORT_TYPE)
        name = f"pam-memory-{workspace.slug}-{timezone.now():%Y%m%d-%H%M%S}.jsonl"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


class MemoryImportApi(MemoryApi):
    """A JSON Lines file (an export, or lines of `remember`'s fields): upserted line by line
    through the capture policy; the report counts created, updated, skipped, refused and
    failed lines and names the line of each error. Larger than PAM_MEMORY_IMPORT_MAX_BYTES:
    413 and nothing imported."""

    parser_classes = [MultiPartParser]

    @extend_schema(
        operation_id="memory_import",
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {"file": {"type": "string", "format": "binary"}},
                "required": ["file"],
            },
            "application/x-ndjson": {"type": "string", "description": "JSON Lines: one memory object per line"},
        },
        responses={200: ImportReportSerializer, **INVALID},
    )
    def post(self, request: Request) -> Response:
        limit = settings.PAM_MEMORY_IMPORT_MAX_BYTES
        too_large = PamError("payload_too_large", f"The file is larger than {limit} bytes (PAM_MEMORY_IMPORT_MAX_BYTES): nothing was imported.")
        declared = request.META.get("CONTENT_LENGTH") or ""
        if declared.isdigit() and int(declared) > limit:
            raise too_large
        media_type = (request.content_type or "").split(";")[0].strip().lower()
        if media_type == "multipart/form-data":
            upload = request.data.get("file")
            if upload is None or not hasattr(upload, "read"):
                raise serializers.ValidationError({"file": ["this field is required: the JSON Lines file"]})
            data = upload.read(limit + 1)
        elif media_type in NDJSON_TYPES:
            data = request._request.read(limit + 1)
        elif not media_type and declared in ("", "0"):
            data = b""  # an empty body names no media type: an empty file
        else:
            raise PamError(
                "unsupported_media_type",
                f"Unsupported media type {media_type!r}: send application/x-ndjson or a multipart/form-data `file`.",
            )
        if len(data) > limit:
            raise too_large
        report = memory_import(**self.caller(request), writer=writer_of(request), lines=data.split(b"\n"))
        return Response(ImportReportSerializer(report.as_dict()).data)
