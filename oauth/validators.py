"""PAM's rules on top of django-oauth-toolkit's validator (SPEC §4).

- RFC 8707: PAM protects one resource, the MCP endpoint. An authorization request may name it
  (exactly as the protected-resource metadata advertises it) or name nothing; either way the
  code, and every token issued from it, is bound to it. Any other resource is `invalid_target`.
- Scopes: a registered client may ask only for the scopes it registered (RFC 7591 `scope`).
- Connected apps: a new refresh-token family opens an `OAuthConnection`; each rotation moves
  its expiry; revoking a token (RFC 7009) disconnects the whole family.
- A refresh is refused once the user is inactive or has left the workspace.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from oauth2_provider.models import AccessToken, RefreshToken
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2.rfc6749 import errors

from oauth import connections
from oauth.models import OAuthConnection, RegisteredClient


def resource_error(resource: Any) -> str | None:
    """Why these RFC 8707 `resource` values cannot be granted, or None when they can."""
    values = resource if isinstance(resource, list) else [resource]
    wrong = [value for value in values if value != settings.PAM_MCP_URL]
    if wrong:
        return f"Unknown resource {str(wrong[0])[:200]!r}: this server protects only {settings.PAM_MCP_URL}."
    return None


def registered_scopes(application: Any) -> set[str] | None:
    """The scopes a dynamically registered client may ask for; None for operator-made ones."""
    try:
        return set(application.pam_client.scope.split())
    except RegisteredClient.DoesNotExist:
        return None


def member(user: Any) -> bool:
    """SPEC §4: any active member of a workspace may hold tokens."""
    return bool(user is not None and user.is_active and user.workspace_id is not None)


class PamOAuth2Validator(OAuth2Validator):
    def validate_scopes(self, client_id: str, scopes: list[str], client: Any, request: Any, *args: Any, **kwargs: Any) -> bool:
        if not super().validate_scopes(client_id, scopes, client, request, *args, **kwargs):
            return False
        allowed = registered_scopes(client)
        return allowed is None or set(scopes) <= allowed

    def validate_code(self, client_id: str, code: str, client: Any, request: Any, *args: Any, **kwargs: Any) -> bool:
        # The user may have left the workspace between consent and the exchange (60 s).
        return bool(super().validate_code(client_id, code, client, request, *args, **kwargs) and member(request.user))

    def _create_authorization_code(self, request: Any, code: Any, expires: Any = None) -> Any:
        resource = getattr(request, "resource", None) or []
        problem = resource_error(resource) if resource else None
        if problem:  # the consent view checks first; this guards a tampered form
            raise errors.CustomOAuth2Error(error="invalid_target", description=problem, request=request)
        request.resource = [settings.PAM_MCP_URL]  # absent means the MCP endpoint
        return super()._create_authorization_code(request, code, expires)

    def _create_refresh_token(
        self, request: Any, refresh_token_code: str, access_token: AccessToken, previous_refresh_token: Any
    ) -> RefreshToken:
        refresh = super()._create_refresh_token(request, refresh_token_code, access_token, previous_refresh_token)
        if previous_refresh_token is None:
            connections.connection_open(
                user=request.user,
                application=request.client,
                scope=access_token.scope,
                token_family=refresh.token_family,
                access_expires=access_token.expires,
            )
        else:
            connections.connection_refreshed(
                token_family=refresh.token_family, scope=access_token.scope, access_expires=access_token.expires
            )
        return refresh

    def validate_refresh_token(self, refresh_token: str, client: Any, request: Any, *args: Any, **kwargs: Any) -> bool:
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            self._close_replayed_family(refresh_token)
            return False
        user = request.user
        family = request.refresh_token_instance.token_family
        connection = OAuthConnection.objects.filter(token_family=family, revoked_at__isnull=True).first()
        return bool(member(user) and connection is not None and connection.workspace_id == user.workspace_id)

    def _close_replayed_family(self, refresh_token: str) -> None:
        """A spent refresh token presented again: DOT's reuse protection has revoked the whole
        family (RFC 9700 §4.14.2); the connection is shown revoked too."""
        checksum = hashlib.sha256(refresh_token.encode("utf-8")).hexdigest()
        spent = (
            RefreshToken.objects.filter(token_checksum=checksum, revoked__isnull=False)
            .values_list("token_family", flat=True)
            .first()
        )
        connection = OAuthConnection.objects.filter(token_family=spent).first() if spent else None
        if connection is not None:
            connections.connection_revoke(connection=connection)

    def revoke_token(self, token: str, token_type_hint: str, request: Any, *args: Any, **kwargs: Any) -> None:
        """RFC 7009: revoking either token of a connection disconnects its whole family."""
        checksum = hashlib.sha256(token.encode("utf-8")).hexdigest()
        application_pk = getattr(request.client, "pk", None)
        family = (
            RefreshToken.objects.filter(token_checksum=checksum, application_id=application_pk)
            .values_list("token_family", flat=True)
            .first()
        ) or (
            RefreshToken.objects.filter(
                access_token__token_checksum=checksum, application_id=application_pk
            )
            .values_list("token_family", flat=True)
            .first()
        )
        super().revoke_token(token, token_type_hint, request, *args, **kwargs)
        if application_pk is None or family is None:
            return
        connection = OAuthConnection.objects.filter(token_family=family).first()
        if connection is not None:
            connections.connection_revoke(connection=connection)
