"""Connected apps (SPEC §3 `oauth-connections`, §4): one per refresh-token family.

A connection is opened when an authorization code is exchanged (a new family), follows the
family through every rotation, and is what the MCP endpoint checks on each call: revoking it
revokes the family (every refresh and access token of it), so the next call is refused.
Access tokens are looked up by DOT's SHA-256 checksum; PAM never stores them in clear.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from oauth2_provider.models import Application, get_access_token_model, get_refresh_token_model

from memory.models import User, Workspace
from oauth.models import OAuthConnection
from pam.errors import PamError

# `last_used_at` is written at most once a minute per connection: a busy agent would otherwise
# update the same row on every call.
TOUCH_EVERY = timedelta(seconds=60)
MAX_TOKEN_LENGTH = 500


@dataclass(frozen=True)
class OAuthGrant:
    workspace: Workspace
    connection_id: int
    connection_label: str  # "oauth:<connection id>", stable across refreshes
    scopes: frozenset[str]
    # SPEC §2.4: the agent-memory buckets and teams of the user who connected; empty = all.
    buckets: frozenset[str] = frozenset()
    teams: frozenset[str] = frozenset()


def client_key(*, client_name: str, redirect_uris: list[str]) -> str:
    """What makes two registrations "the same client" (SPEC §4 reconnects)."""
    material = "\n".join([client_name, *sorted(redirect_uris)])
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def refresh_expiry(access_expires: datetime) -> datetime:
    # DOT lets a refresh token live REFRESH_TOKEN_EXPIRE_SECONDS past its access token.
    return access_expires + timedelta(seconds=settings.PAM_OAUTH_REFRESH_TOKEN_SECONDS)


def connection_open(
    *, user: User, application: Application, scope: str, token_family: uuid.UUID, access_expires: datetime
) -> OAuthConnection:
    """A new refresh-token family: the user connected `application`.

    Reconnecting the same client (same user, client name and redirect URIs) revokes the old
    family and takes over its row, instead of piling up one row per connect.
    """
    if user.workspace_id is None:  # the consent page refuses such users; never a connection
        raise PamError("invalid_request", "The user belongs to no workspace.")
    uris = sorted(application.redirect_uris.split())
    key = client_key(client_name=application.name, redirect_uris=uris)
    now = timezone.now()
    fields = {
        "workspace_id": user.workspace_id,
        "application": application,
        "client_id": application.client_id,
        "client_name": application.name,
        "redirect_uris": " ".join(uris),
        "scope": scope,
        "token_family": token_family,
        "created_at": now,
        "expires_at": refresh_expiry(access_expires),
        "last_used_at": None,
        "revoked_at": None,
    }
    for _attempt in range(2):
        existing = OAuthConnection.objects.select_for_update().filter(user=user, client_key=key).first()
        if existing is not None:
            if existing.token_family != token_family:
                get_refresh_token_model().revoke_family(existing.token_family)
            replaced = existing.application
            for name, value in fields.items():
                setattr(existing, name, value)
            existing.save()
            _forget_registration(replaced, keep=application)
            return existing
        try:
            with transaction.atomic():  # a savepoint: a concurrent first connect may win the row
                return OAuthConnection.objects.create(user=user, client_key=key, **fields)
        except IntegrityError:
            continue
    raise PamError("invalid_request", "The connection changed concurrently; retry.")


def _forget_registration(application: Application | None, *, keep: Application) -> None:
    """A client that registered anew on reconnect leaves its old registration unused: delete
    it (and its revoked tokens) rather than keep one client row per connect."""
    if application is None or application.pk == keep.pk:
        return
    if application.registration_source != Application.RegistrationSource.DCR:
        return  # operator-made clients stay
    if OAuthConnection.objects.filter(application=application).exists():
        return
    application.delete()


def connection_refreshed(*, token_family: uuid.UUID, scope: str, access_expires: datetime) -> None:
    """A rotation inside the family: the connection lives on with a later expiry."""
    OAuthConnection.objects.filter(token_family=token_family, revoked_at__isnull=True).update(
        scope=scope, expires_at=refresh_expiry(access_expires)
    )


def connection_list(*, workspace: Workspace) -> QuerySet[OAuthConnection]:
    return OAuthConnection.objects.filter(workspace=workspace).order_by("-created_at", "-id")


def connection_get(*, workspace: Workspace, connection_id: int) -> OAuthConnection:
    """The workspace's connection; another workspace's id is simply not found."""
    connection = OAuthConnection.objects.filter(workspace=workspace, pk=connection_id).first()
    if connection is None:
        raise PamError("not_found", f"No OAuth connection {connection_id} in this workspace.")
    return connection


@transaction.atomic
def connection_revoke(*, connection: OAuthConnection) -> OAuthConnection:
    """Revoke the family at once: its refresh tokens and every live access token of it."""
    get_refresh_token_model().revoke_family(connection.token_family)
    if connection.revoked_at is None:
        connection.revoked_at = timezone.now()
        connection.save(update_fields=["revoked_at"])
    return connection


def access_token_authenticate(raw_token: str) -> OAuthGrant | None:
    """The grant of a live access token presented to the MCP endpoint, or None (401).

    Live means: unexpired and not revoked (revocation deletes it), bound to the MCP endpoint
    exactly as the protected-resource metadata advertises it (RFC 8707 audience), issued in
    a refresh-token family whose connection is not revoked, to a user still active and still
    a member of the connection's workspace.
    """
    if not raw_token or len(raw_token) > MAX_TOKEN_LENGTH:
        return None
    checksum = hashlib.sha256(raw_token.encode("utf-8")).hexdigest()
    token = (
        get_access_token_model()
        .objects.select_related("user__workspace__plan", "refresh_token")
        .filter(token_checksum=checksum)
        .first()
    )
    if token is None or token.is_expired() or token.user is None or not token.user.is_active:
        return None
    if token.resource != [settings.PAM_MCP_URL]:
        return None
    refresh = getattr(token, "refresh_token", None)
    if refresh is None or refresh.token_family is None:
        return None  # not issued through the authorization-code flow (e.g. a DCR token)
    connection = OAuthConnection.objects.filter(token_family=refresh.token_family, revoked_at__isnull=True).first()
    workspace = token.user.workspace
    if connection is None or workspace is None or connection.workspace_id != workspace.pk:
        return None
    now = timezone.now()
    if connection.last_used_at is None or now - connection.last_used_at >= TOUCH_EVERY:
        OAuthConnection.objects.filter(pk=connection.pk).update(last_used_at=now)
    return OAuthGrant(
        workspace=workspace,
        connection_id=connection.pk,
        connection_label=f"oauth:{connection.pk}",
        scopes=frozenset(token.scope.split()),
        buckets=frozenset(token.user.memory_buckets or []),
        teams=frozenset(token.user.memory_teams or []),
    )
