"""Agent keys: format, hashing and authentication (SPEC §3, DESIGN §3.5).

A key is `pam_mkey_` + 32 random alphanumerics. We store `key_prefix` (`pam_mkey_` + the first
8 characters of the secret, for lookup and display) and the SHA-256 of the whole key. Keys
carry ~190 bits of entropy, so a fast hash is enough; comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from developer_api.models import AgentKey, default_scopes
from memory.models import Workspace

KEY_PREFIX = "pam_mkey_"
_ALPHABET = string.ascii_letters + string.digits
_SECRET_LENGTH = 32


def key_hash(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def key_prefix_of(raw_key: str) -> str:
    return raw_key[: len(KEY_PREFIX) + 8]


@dataclass(frozen=True)
class IssuedKey:
    api_key: str
    key: AgentKey


def api_key_rotate(
    *,
    workspace: Workspace,
    scopes: list[str] | None = None,
    buckets: list[str] | None = None,
    teams: list[str] | None = None,
) -> IssuedKey:
    """Issue a new key and revoke the active one at once (one active key per workspace).
    SPEC §2.4: the key carries `scopes` (default both), and the agent-memory `buckets` and
    `teams` it sees (default: empty = all)."""
    secret = "".join(secrets.choice(_ALPHABET) for _ in range(_SECRET_LENGTH))
    raw = KEY_PREFIX + secret
    now = timezone.now()
    with transaction.atomic():
        # Lock the workspace row so two rotations never both leave an active key.
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        AgentKey.objects.filter(workspace=workspace, revoked_at__isnull=True).update(revoked_at=now)
        key = AgentKey.objects.create(
            workspace=workspace,
            key_prefix=key_prefix_of(raw),
            key_hash=key_hash(raw),
            created_at=now,
            scopes=sorted(set(scopes)) if scopes else default_scopes(),
            buckets=sorted(set(buckets or [])),
            teams=sorted(set(teams or [])),
        )
    return IssuedKey(api_key=raw, key=key)


def api_key_active(*, workspace: Workspace) -> AgentKey | None:
    """The workspace's one active agent key, if any (SPEC §3: one at a time)."""
    return AgentKey.objects.filter(workspace=workspace, revoked_at__isnull=True).first()


def api_key_revoke(*, workspace: Workspace) -> bool:
    """Revoke the active key; False when there is none."""
    return bool(
        AgentKey.objects.filter(workspace=workspace, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
    )


def api_key_authenticate(raw_key: str) -> AgentKey | None:
    """The active key matching `raw_key`, or None. Constant-time digest comparison."""
    if not raw_key.startswith(KEY_PREFIX) or len(raw_key) > 200:
        return None
    digest = key_hash(raw_key)
    candidates = AgentKey.objects.select_related("workspace__plan").filter(
        key_prefix=key_prefix_of(raw_key), revoked_at__isnull=True
    )
    for candidate in candidates:
        if hmac.compare_digest(candidate.key_hash, digest):
            return candidate
    return None


def api_key_touch(*, key: AgentKey, verified: bool = False) -> None:
    """Record use; mark `mcp_verified` after the first successful retrieve_memory."""
    now = timezone.now()
    fields: dict[str, object] = {"last_used_at": now}
    if verified and not key.mcp_verified:
        fields["mcp_verified"] = True
        key.mcp_verified = True
    AgentKey.objects.filter(pk=key.pk).update(**fields)
    key.last_used_at = now
