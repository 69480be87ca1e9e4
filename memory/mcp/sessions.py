"""MCP sessions (one handshake session per workspace) and the last-5-prompts history.

History lives in Redis when REDIS_URL is set and in the database otherwise; never in a
per-process cache, so every web process and machine sees the same history (SPEC §2.3).
"""

from __future__ import annotations

import secrets
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memory.models import McpSession, SessionPrompt, Workspace

SESSION_TTL = timedelta(days=30)
HISTORY_TTL = timedelta(days=30)
HISTORY_KEEP = 5
TRIAGE_HISTORY = 3


def handshake_session(*, workspace: Workspace) -> str:
    """The workspace's current session id, created when there is none or it expired."""
    now = timezone.now()
    current = (
        McpSession.objects.filter(workspace=workspace, expires_at__gt=now).order_by("-expires_at").first()
    )
    if current is not None:
        return current.session_id
    with transaction.atomic():
        # Serialise concurrent initializes of one workspace so they agree on one session.
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        current = (
            McpSession.objects.filter(workspace=workspace, expires_at__gt=now)
            .order_by("-expires_at")
            .first()
        )
        if current is None:
            current = McpSession.objects.create(
                workspace=workspace,
                session_id=secrets.token_hex(16),
                created_at=now,
                expires_at=now + SESSION_TTL,
            )
    return current.session_id


# Sessions that the database confirmed valid, per process: (workspace id, session id) → the
# monotonic time until which that answer is reused. Sessions are only ever created (never
# changed or deleted, except with their workspace), so the answer holds until they expire; it
# is reused for at most VALID_REUSE_S seconds and never past the session's expiry.
VALID_REUSE_S = 1.0
_MAX_REMEMBERED = 10_000
_confirmed: dict[tuple[int, str], float] = {}


def session_is_valid(*, workspace: Workspace, session_id: str) -> bool:
    if not session_id or len(session_id) > 64:
        return False
    key = (workspace.pk, session_id)
    now = time.monotonic()
    if _confirmed.get(key, 0.0) > now:
        return True
    expires_at = (
        McpSession.objects.filter(workspace=workspace, session_id=session_id, expires_at__gt=timezone.now())
        .values_list("expires_at", flat=True)
        .first()
    )
    if expires_at is None:
        _confirmed.pop(key, None)
        return False
    if len(_confirmed) >= _MAX_REMEMBERED:
        _confirmed.clear()
    left = (expires_at - timezone.now()).total_seconds()
    _confirmed[key] = now + min(VALID_REUSE_S, left)
    return True


def _redis_key(workspace: Workspace, session_key: str) -> str:
    return f"pam:history:{workspace.pk}:{session_key}"


def history_push(*, workspace: Workspace, session_key: str, prompt: str) -> list[str]:
    """Append `prompt`; return the history *before* it, newest last (at most 5)."""
    if settings.REDIS_URL:
        from django_redis import get_redis_connection

        conn = get_redis_connection("default")
        key = _redis_key(workspace, session_key)
        pipe = conn.pipeline()
        pipe.lrange(key, 0, HISTORY_KEEP - 1)
        pipe.lpush(key, prompt)
        pipe.ltrim(key, 0, HISTORY_KEEP - 1)
        pipe.expire(key, int(HISTORY_TTL.total_seconds()))
        before = pipe.execute()[0]
        return [item.decode("utf-8") for item in reversed(before)]
    now = timezone.now()
    rows = SessionPrompt.objects.filter(
        workspace=workspace, session_key=session_key, created_at__gt=now - HISTORY_TTL
    ).order_by("-id")
    before = list(rows.values_list("prompt", flat=True)[:HISTORY_KEEP])
    SessionPrompt.objects.create(
        workspace=workspace, session_key=session_key, prompt=prompt, created_at=now
    )
    keep = list(
        SessionPrompt.objects.filter(workspace=workspace, session_key=session_key)
        .order_by("-id")
        .values_list("id", flat=True)[:HISTORY_KEEP]
    )
    SessionPrompt.objects.filter(workspace=workspace, session_key=session_key).exclude(
        id__in=keep
    ).delete()
    return list(reversed(before))


def history_get(*, workspace: Workspace, session_key: str) -> list[str]:
    """The stored prompts, oldest first (at most 5)."""
    if settings.REDIS_URL:
        from django_redis import get_redis_connection

        items = get_redis_connection("default").lrange(_redis_key(workspace, session_key), 0, -1)
        return [item.decode("utf-8") for item in reversed(items)]
    rows = SessionPrompt.objects.filter(
        workspace=workspace,
        session_key=session_key,
        created_at__gt=timezone.now() - HISTORY_TTL,
    ).order_by("-id")
    return list(reversed(list(rows.values_list("prompt", flat=True)[:HISTORY_KEEP])))
