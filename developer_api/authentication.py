"""PAM access JWTs for `/v1/dev/*` (djangorestframework-simplejwt, HS256, 15-minute access)."""

from __future__ import annotations

import hashlib
from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.exceptions import InvalidToken
from rest_framework_simplejwt.serializers import TokenRefreshSerializer
from rest_framework_simplejwt.settings import api_settings as jwt_settings
from rest_framework_simplejwt.tokens import Token

from developer_api.ids import row_id
from pam.errors import PamError


def check_user_claim(token: Token) -> None:
    """A validly signed token must still name a user by a row id: anything else (a string, a
    list, a float) is an invalid token (401), not a failed database lookup (500)."""
    if row_id(token.payload.get(jwt_settings.USER_ID_CLAIM)) is None:
        raise InvalidToken("The token names no user.")


class PamJWTAuthentication(JWTAuthentication):
    """Bearer <access JWT>. Agent keys and OAuth tokens are not accepted here."""

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="pam-developer-api"'

    def get_user(self, validated_token: Token) -> Any:
        check_user_claim(validated_token)
        return super().get_user(validated_token)


class PamTokenRefreshSerializer(TokenRefreshSerializer):
    """simplejwt's refresh, after the user claim check (it skips the user lookup entirely
    when the claim is missing or falsy, and lets a non-integer one reach the database)."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, str]:
        check_user_claim(self.token_class(attrs["refresh"]))
        return super().validate(attrs)


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


# simplejwt's blacklist app keeps every refresh token it issues in OutstandingToken.token, in
# clear: anyone reading the database (a backup) could use each one until it expires. Nothing
# reads that column back (the blacklist works by `jti`), so only its SHA-256 is stored.
STORED_TOKEN_PREFIX = "sha256:"


def stored_token(token: str) -> str:
    if token.startswith(STORED_TOKEN_PREFIX):
        return token
    return STORED_TOKEN_PREFIX + hashlib.sha256(token.encode("utf-8")).hexdigest()


def hash_outstanding_token(sender: Any, instance: Any, **kwargs: Any) -> None:
    """pre_save of OutstandingToken (connected in developer_api.apps)."""
    instance.token = stored_token(instance.token)
