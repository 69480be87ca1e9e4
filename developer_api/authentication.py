"""PAM access JWTs for `/v1/dev/*` (djangorestframework-simplejwt, HS256, 15-minute access)."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework_simplejwt.authentication import JWTAuthentication

from pam.errors import PamError


class PamJWTAuthentication(JWTAuthentication):
    """Bearer <access JWT>. Agent keys and OAuth tokens are not accepted here."""

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="pam-developer-api"'


class WorkspaceMember(BasePermission):
    """The user belongs to a workspace that is not disabled (403 workspace_disabled)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        if not user or not user.is_authenticated:
            return False
        workspace = getattr(user, "workspace", None)
        if workspace is None or workspace.disabled:
            raise PamError("workspace_disabled", "This workspace is disabled.")
        return True
