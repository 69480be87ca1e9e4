"""Developer API views: one APIView per operation (HackSoft style), JSON in and out."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.core.exceptions import ObjectDoesNotExist
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework_simplejwt.serializers import TokenRefreshSerializer
from rest_framework_simplejwt.settings import api_settings as jwt_settings
from rest_framework_simplejwt.tokens import RefreshToken

from developer_api.authentication import WorkspaceMember
from developer_api.keys import api_key_revoke, api_key_rotate
from memory.models import Workspace
from memory.pipelines.readiness import readiness_get
from pam.errors import PamError


def _expires_in() -> int:
    return int(jwt_settings.ACCESS_TOKEN_LIFETIME.total_seconds())


class AuthTokenApi(APIView):
    """POST /v1/auth/token {"email", "password"} → {"access", "refresh", "expires_in"}."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        email = serializers.CharField(max_length=254)
        password = serializers.CharField(max_length=1024, trim_whitespace=False)

    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            email=data.validated_data["email"].strip().lower(),
            password=data.validated_data["password"],
        )
        if user is None:
            raise PamError("invalid_credentials", "The email or password is incorrect.")
        refresh = RefreshToken.for_user(user)
        return Response({"access": str(refresh.access_token), "refresh": str(refresh), "expires_in": _expires_in()})


class AuthRefreshApi(APIView):
    """POST /v1/auth/refresh {"refresh"} → a new pair; the old refresh token stops working."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict) or not isinstance(request.data.get("refresh"), str):
            raise PamError("invalid_request", "refresh: this field is required and must be a string.")
        serializer = TokenRefreshSerializer(data={"refresh": request.data["refresh"]})
        try:
            serializer.is_valid(raise_exception=True)  # TokenError → 401 invalid_token
        except ObjectDoesNotExist as exc:
            # simplejwt looks the user up unguarded: a deleted user's token is just invalid.
            raise PamError("invalid_token", "The refresh token is invalid or revoked.") from exc
        return Response(
            {
                "access": serializer.validated_data["access"],
                "refresh": serializer.validated_data["refresh"],
                "expires_in": _expires_in(),
            }
        )


class WorkspaceApi(APIView):
    permission_classes = [IsAuthenticated, WorkspaceMember]

    def workspace(self, request: Request) -> Workspace:
        # WorkspaceMember has checked that the user belongs to an enabled workspace.
        workspace = getattr(request.user, "workspace", None)
        assert isinstance(workspace, Workspace)
        return workspace


class KeyRotateApi(WorkspaceApi):
    """POST /v1/dev/rotate-key: a new agent key, shown once; the old one is revoked at once."""

    def post(self, request: Request) -> Response:
        issued = api_key_rotate(workspace=self.workspace(request))
        return Response(
            {
                "api_key": issued.api_key,
                "key_prefix": issued.key.key_prefix,
                "rotated_at": issued.key.created_at.isoformat(),
            }
        )


class KeyRevokeApi(WorkspaceApi):
    """POST /v1/dev/revoke-key → {"revoked": true}, or 404 no_active_key."""

    def post(self, request: Request) -> Response:
        if not api_key_revoke(workspace=self.workspace(request)):
            raise PamError("no_active_key", "This workspace has no active agent key.")
        return Response({"revoked": True})


class ReadinessApi(WorkspaceApi):
    """GET /v1/dev/readiness (SPEC §3.1)."""

    def get(self, request: Request) -> Response:
        return Response(readiness_get(workspace=self.workspace(request)).as_dict())
