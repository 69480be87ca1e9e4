"""Developer API views: one APIView per operation (HackSoft style), JSON in and out."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.core.exceptions import ObjectDoesNotExist
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework_simplejwt.settings import api_settings as jwt_settings
from rest_framework_simplejwt.tokens import RefreshToken

from developer_api.authentication import PamTokenRefreshSerializer, WorkspaceMember
from developer_api.ids import row_id
from developer_api.keys import api_key_revoke, api_key_rotate
from developer_api.models import SCOPE_READ, SCOPE_WRITE
from developer_api.serializers import (
    PipelineRunListSerializer,
    PipelineRunSerializer,
    ReadinessSerializer,
    RevokedSerializer,
    RotatedKeySerializer,
    RunIdSerializer,
    SourceListSerializer,
    SourceSerializer,
    TokenPairSerializer,
)
from memory.models import BUCKET_PATTERN, MAX_KEY_LABELS, PipelineRun, Source, Workspace
from memory.selectors import run_list, source_get, source_list
from memory.services import (
    run_enqueue,
    source_create_for_items,
    source_create_from_path,
    source_create_from_upload,
    source_delete,
    source_items_push,
)
from memory.readiness import readiness_get
from pam.errors import PamError
from pam.ratelimit import Rate, client_address, enforce


def _expires_in() -> int:
    return int(jwt_settings.ACCESS_TOKEN_LIFETIME.total_seconds())


class AuthTokenApi(APIView):
    """POST /v1/auth/token {"email", "password"} → {"access", "refresh", "expires_in"}."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    class TokenInput(serializers.Serializer):
        email = serializers.CharField(max_length=254)
        password = serializers.CharField(max_length=1024, trim_whitespace=False)

    @extend_schema(operation_id="auth_token", request=TokenInput, responses=TokenPairSerializer)
    def post(self, request: Request) -> Response:
        # Each attempt costs ~0.3 s of PBKDF2: limited per client address before anything else.
        enforce("auth-token", client_address(request), Rate.parse(settings.PAM_RATE_LIMIT_AUTH_TOKEN))
        data = self.TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            email=data.validated_data["email"].strip().lower(),
            password=data.validated_data["password"],
        )
        if user is None:
            raise PamError("invalid_credentials", "The email or password is incorrect.")
        refresh = RefreshToken.for_user(user)
        pair = {"access": str(refresh.access_token), "refresh": str(refresh), "expires_in": _expires_in()}
        return Response(TokenPairSerializer(pair).data)


class AuthRefreshApi(APIView):
    """POST /v1/auth/refresh {"refresh"} → a new pair; the old refresh token stops working."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_refresh",
        request=inline_serializer("RefreshRequest", {"refresh": serializers.CharField()}),
        responses=TokenPairSerializer,
    )
    def post(self, request: Request) -> Response:
        enforce("auth-refresh", client_address(request), Rate.parse(settings.PAM_RATE_LIMIT_AUTH_REFRESH))
        if not isinstance(request.data, dict) or not isinstance(request.data.get("refresh"), str):
            raise PamError("invalid_request", "refresh: this field is required and must be a string.")
        serializer = PamTokenRefreshSerializer(data={"refresh": request.data["refresh"]})
        try:
            serializer.is_valid(raise_exception=True)  # TokenError → 401 invalid_token
        except ObjectDoesNotExist as exc:
            # simplejwt looks the user up unguarded: a deleted user's token is just invalid.
            raise PamError("invalid_token", "The refresh token is invalid or revoked.") from exc
        pair = {
            "access": serializer.validated_data["access"],
            "refresh": serializer.validated_data["refresh"],
            "expires_in": _expires_in(),
        }
        return Response(TokenPairSerializer(pair).data)


class WorkspaceApi(APIView):
    permission_classes = [IsAuthenticated, WorkspaceMember]

    def workspace(self, request: Request) -> Workspace:
        # WorkspaceMember has checked that the user belongs to an enabled workspace.
        workspace = getattr(request.user, "workspace", None)
        assert isinstance(workspace, Workspace)
        return workspace


class KeyRotateApi(WorkspaceApi):
    """POST /v1/dev/rotate-key: a new agent key, shown once; the old one is revoked at once."""

    class RotateInput(serializers.Serializer):
        """SPEC §2.4: optional scopes, buckets and teams of the new key (default: both scopes,
        every bucket and team)."""

        scopes = serializers.ListField(
            child=serializers.ChoiceField(choices=[SCOPE_READ, SCOPE_WRITE]), allow_empty=False, required=False
        )
        buckets = serializers.ListField(
            child=serializers.RegexField(BUCKET_PATTERN), required=False, max_length=MAX_KEY_LABELS
        )
        teams = serializers.ListField(
            child=serializers.CharField(max_length=100), required=False, max_length=MAX_KEY_LABELS
        )

    @extend_schema(operation_id="rotate_key", request=RotateInput, responses=RotatedKeySerializer)
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise PamError("invalid_request", "The body must be a JSON object.")
        data = self.RotateInput(data=request.data)
        data.is_valid(raise_exception=True)
        issued = api_key_rotate(workspace=self.workspace(request), **data.validated_data)
        rotated = {
            "api_key": issued.api_key,
            "key_prefix": issued.key.key_prefix,
            "rotated_at": issued.key.created_at.isoformat(),
        }
        return Response(RotatedKeySerializer(rotated).data)


class KeyRevokeApi(WorkspaceApi):
    """POST /v1/dev/revoke-key → {"revoked": true}, or 404 no_active_key."""

    @extend_schema(operation_id="revoke_key", request=None, responses=RevokedSerializer)
    def post(self, request: Request) -> Response:
        if not api_key_revoke(workspace=self.workspace(request)):
            raise PamError("no_active_key", "This workspace has no active agent key.")
        return Response(RevokedSerializer({"revoked": True}).data)


class ReadinessApi(WorkspaceApi):
    """GET /v1/dev/readiness (SPEC §3.1)."""

    @extend_schema(operation_id="readiness", responses=ReadinessSerializer)
    def get(self, request: Request) -> Response:
        return Response(ReadinessSerializer(readiness_get(workspace=self.workspace(request)).as_dict()).data)


# --- sources and pipeline runs (SPEC §7) ---------------------------------------------------


def _iso(value: Any) -> str | None:
    return value.isoformat() if value else None


def _row_id(raw: str, field: str) -> int:
    """A row id from a query parameter, else 400 naming the field."""
    value = row_id(raw)
    if value is None:
        raise PamError("invalid_request", f"{field}: must be a source id (a positive integer).")
    return value


def source_json(source: Source) -> dict[str, Any]:
    return {
        "id": source.pk,
        "name": source.name,
        "kind": source.kind,
        "status": source.status,
        "created_at": _iso(source.created_at),
        "last_synced_at": _iso(source.last_synced_at),
        "document_count": source.documents.count(),
        "fact_count": source.facts.count(),
    }


def run_json(run: PipelineRun) -> dict[str, Any]:
    return {
        "id": run.pk,
        "source_id": run.source_id,
        "status": run.status,
        "stage": run.stage,
        "progress": {"done": run.progress_done, "total": run.progress_total},
        "errors": run.errors,
        "started_at": _iso(run.started_at),
        "finished_at": _iso(run.finished_at),
    }


class SourceListApi(WorkspaceApi):
    """GET /v1/dev/sources → {items}; POST a multipart `file` (optional `name`, `kind`) or JSON
    {"kind", "name", "path"} (a path inside PAM_IMPORT_ROOTS) → 201 source, with a queued run;
    JSON {"kind": "items", "name"} → 201 a source fed by POST /v1/dev/sources/{id}/items."""

    class SourceInput(serializers.Serializer):
        kind = serializers.CharField(max_length=32, required=False, default="auto")
        name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)

    class PathInput(SourceInput):
        path = serializers.CharField(max_length=1000, required=False)

    class UploadInput(SourceInput):
        file = serializers.FileField()

    @extend_schema(operation_id="sources_list", responses=SourceListSerializer)
    def get(self, request: Request) -> Response:
        sources = [source_json(s) for s in source_list(workspace=self.workspace(request))]
        return Response(SourceListSerializer({"items": sources}).data)

    @extend_schema(
        operation_id="sources_create",
        request={"multipart/form-data": UploadInput, "application/json": PathInput},
        responses={201: SourceSerializer},
    )
    def post(self, request: Request) -> Response:
        workspace = self.workspace(request)
        if request.content_type and request.content_type.startswith("multipart/"):
            upload = self.UploadInput(data=request.data)
            upload.is_valid(raise_exception=True)
            source = source_create_from_upload(
                workspace=workspace,
                upload=upload.validated_data["file"],
                kind=upload.validated_data["kind"],
                name=upload.validated_data["name"],
            )
        else:
            if not isinstance(request.data, dict):
                raise PamError("invalid_request", "body: expected a JSON object or a multipart upload.")
            data = self.PathInput(data=request.data)
            data.is_valid(raise_exception=True)
            if data.validated_data["kind"] == "items":
                # A source that receives items over POST /v1/dev/sources/{id}/items.
                source = source_create_for_items(workspace=workspace, name=data.validated_data["name"])
                return Response(SourceSerializer(source_json(source)).data, status=201)
            if "path" not in data.validated_data:
                raise PamError("invalid_request", "path: this field is required (or upload a file).")
            source = source_create_from_path(
                workspace=workspace,
                path=data.validated_data["path"],
                kind=data.validated_data["kind"],
                name=data.validated_data["name"],
            )
        run_enqueue(source=source)
        source.refresh_from_db()
        return Response(SourceSerializer(source_json(source)).data, status=201)


class SourceDetailApi(WorkspaceApi):
    """GET /v1/dev/sources/{id} · DELETE /v1/dev/sources/{id} → 202 the run that removes it and
    everything derived from it (its facts are hidden from retrieval from this answer on)."""

    @extend_schema(operation_id="sources_detail", responses=SourceSerializer)
    def get(self, request: Request, source_id: int) -> Response:
        source = source_get(workspace=self.workspace(request), source_id=source_id)
        return Response(SourceSerializer(source_json(source)).data)

    @extend_schema(operation_id="sources_delete", responses={202: PipelineRunSerializer})
    def delete(self, request: Request, source_id: int) -> Response:
        run = source_delete(source=source_get(workspace=self.workspace(request), source_id=source_id))
        return Response(PipelineRunSerializer(run_json(run)).data, status=202)


class SourceSyncApi(WorkspaceApi):
    """POST /v1/dev/sources/{id}/sync → 202 {run_id}."""

    @extend_schema(operation_id="sources_sync", request=None, responses={202: RunIdSerializer})
    def post(self, request: Request, source_id: int) -> Response:
        run = run_enqueue(source=source_get(workspace=self.workspace(request), source_id=source_id))
        return Response(RunIdSerializer({"run_id": run.pk}).data, status=202)


class SourceItemsApi(WorkspaceApi):
    """POST /v1/dev/sources/{id}/items {"items": [...]} → 202 {run_id}; same external_id = update."""

    class ItemMessage(serializers.Serializer):
        text = serializers.CharField(max_length=100_000, allow_blank=True)  # empty ones are skipped
        author = serializers.CharField(max_length=200, required=False, allow_blank=True)
        sent_at = serializers.DateTimeField(required=False)
        id = serializers.CharField(max_length=200, required=False, allow_blank=True)

    class Item(serializers.Serializer):
        external_id = serializers.CharField(max_length=500)
        title = serializers.CharField(max_length=500)
        # A document's text, or (for a chat transcript) `messages`: one fact per message.
        text = serializers.CharField(max_length=1_000_000, trim_whitespace=False, required=False)
        messages = serializers.ListField(max_length=10_000, required=False)
        created_at = serializers.DateTimeField(required=False)
        author = serializers.CharField(max_length=200, required=False)
        url = serializers.URLField(max_length=2000, required=False)
        metadata = serializers.DictField(required=False)

        def validate_messages(self, value: list[Any]) -> list[dict[str, Any]]:
            out = []
            for position, raw in enumerate(value):
                message = SourceItemsApi.ItemMessage(data=raw if isinstance(raw, dict) else {})
                if not isinstance(raw, dict) or not message.is_valid():
                    field, problems = next(iter(message.errors.items())) if isinstance(raw, dict) else ("", ["must be an object."])
                    raise serializers.ValidationError(f"[{position}]{'.' + field if field else ''}: {problems[0]}")
                out.append(dict(message.validated_data))
            return out

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if not attrs.get("text") and not attrs.get("messages"):
                raise serializers.ValidationError({"text": ["Give `text` or a non-empty `messages` list."]})
            return attrs

    class ItemsInput(serializers.Serializer):
        items = serializers.ListField(min_length=1, max_length=1000)

    @extend_schema(operation_id="sources_items", request=ItemsInput, responses={202: RunIdSerializer})
    def post(self, request: Request, source_id: int) -> Response:
        source = source_get(workspace=self.workspace(request), source_id=source_id)
        data = self.ItemsInput(data=request.data)
        data.is_valid(raise_exception=True)
        items = []
        for position, raw in enumerate(data.validated_data["items"]):
            if not isinstance(raw, dict):
                raise PamError("invalid_request", f"items[{position}]: must be an object.")
            item = self.Item(data=raw)
            if not item.is_valid():
                field, problems = next(iter(item.errors.items()))
                raise PamError("invalid_request", f"items[{position}].{field}: {problems[0]}")
            items.append(dict(item.validated_data))
        run = source_items_push(source=source, items=items)
        return Response(RunIdSerializer({"run_id": run.pk}).data, status=202)


class PipelineRunListApi(WorkspaceApi):
    """GET /v1/dev/pipeline-runs[?source=ID] → {items}, newest first."""

    @extend_schema(
        operation_id="pipeline_runs_list",
        parameters=[OpenApiParameter("source", int, description="only this source's runs")],
        responses=PipelineRunListSerializer,
    )
    def get(self, request: Request) -> Response:
        workspace = self.workspace(request)
        raw = request.query_params.get("source")
        source_id = None
        if raw is not None:
            source_id = source_get(workspace=workspace, source_id=_row_id(raw, "source")).pk
        runs = [run_json(r) for r in run_list(workspace=workspace, source_id=source_id)]
        return Response(PipelineRunListSerializer({"items": runs}).data)
