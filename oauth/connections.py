"""OAuth access tokens as an MCP credential (SPEC §4; the full server is a later issue).

django-oauth-toolkit stores a SHA-256 checksum of every token; we look tokens up by it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.utils import timezone
from oauth2_provider.models import get_access_token_model

from memory.models import Workspace


@dataclass(frozen=True)
class OAuthGrant:
    workspace: Workspace
    token_id: int
    connection_label: str
    scopes: frozenset[str]


def access_token_authenticate(raw_token: str) -> OAuthGrant | None:
    """The valid (unexpired, unrevoked) access token's grant, or None."""
    if not raw_token or len(raw_token) > 500:
        return None
    model = get_access_token_model()
    checksum = hashlib.sha256(raw_token.encode("utf-8")).hexdigest()
    token = (
        model.objects.select_related("user__workspace__plan")
        .filter(token_checksum=checksum)
        .first()
    )
    if token is None or token.expires <= timezone.now() or token.user is None:
        return None
    workspace = getattr(token.user, "workspace", None)
    if workspace is None:
        return None
    family = token.source_refresh_token_id or token.id
    return OAuthGrant(
        workspace=workspace,
        token_id=token.id,
        connection_label=f"oauth:{family}",
        scopes=frozenset(token.scope.split()),
    )
