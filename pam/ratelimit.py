"""Fixed-window rate limits shared by every process: SPEC §3's 429 `rate_limited` with
`Retry-After` (login, refresh, OAuth token and registration endpoints).

    decision = hit("auth-token:203.0.113.7", limit=10, window_seconds=60)
    if not decision.allowed: ...answer 429 with Retry-After: decision.retry_after

or, in a view, ``enforce(scope, client_address(request), settings.PAM_RATE_LIMIT_...)``,
which raises ``RateLimited`` (a PamError the surfaces turn into 429 + Retry-After).

Counting is atomic across processes and machines: with REDIS_URL, one MULTI of INCR + EXPIRE
on a key per window; without it, one ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING``
statement on ``pam_ratelimit_counter`` (SQLite >= 3.35 and PostgreSQL), one row per key.
Windows are aligned on multiples of `window_seconds` since the epoch. Every attempt counts,
allowed or not, so hammering a limited key keeps it limited until its window ends.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.http import HttpRequest

from pam.errors import PamError

logger = logging.getLogger(__name__)

REDIS_PREFIX = "pam:ratelimit:"
MAX_KEY_LENGTH = 200  # pam.models.RateLimitCounter.key
IPV6_PREFIX_BITS = 64  # one IPv6 client owns a whole /64: limit the prefix, not the address


@dataclass(frozen=True)
class Decision:
    allowed: bool
    retry_after: int  # seconds until the window ends when refused; 0 when allowed
    count: int  # attempts in this window, this one included


@dataclass(frozen=True)
class Rate:
    """`limit` attempts per `window_seconds`; parsed from "LIMIT/SECONDS" (e.g. "10/60")."""

    limit: int
    window_seconds: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        try:
            limit, seconds = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"a rate is LIMIT/SECONDS, e.g. 10/60, not {text!r}") from None
        if limit < 1 or seconds < 1:
            raise ValueError(f"a rate needs a limit and a window of at least 1, not {text!r}")
        return cls(limit, seconds)


class RateLimited(PamError):
    def __init__(self, retry_after: int) -> None:
        super().__init__("rate_limited", f"Too many attempts; retry in {retry_after} seconds.")
        self.retry_after = retry_after


def hit(key: str, *, limit: int, window_seconds: int, now: float | None = None) -> Decision:
    """Count one attempt on `key` and say whether it is within `limit` per window."""
    if len(key) > MAX_KEY_LENGTH:
        raise ValueError(f"rate-limit keys are at most {MAX_KEY_LENGTH} characters")
    now = time.time() if now is None else now
    window_start = int(now // window_seconds) * window_seconds
    window_end = window_start + window_seconds
    if settings.REDIS_URL:
        count = _count_redis(key, window_start, window_seconds)
    else:
        count = _count_sql(key, window_start, window_end, now)
    if count is None or count <= limit:
        return Decision(allowed=True, retry_after=0, count=count or 0)
    return Decision(allowed=False, retry_after=max(1, math.ceil(window_end - now)), count=count)


def enforce(scope: str, subject: str, rate: Rate) -> None:
    """Count one attempt of `subject` (a client address, an account) on `scope`; raise
    RateLimited when it is over `rate`."""
    decision = hit(f"{scope}:{subject}"[:MAX_KEY_LENGTH], limit=rate.limit, window_seconds=rate.window_seconds)
    if not decision.allowed:
        raise RateLimited(decision.retry_after)


def client_address(request: HttpRequest) -> str:
    """The client's address as limits see it: REMOTE_ADDR, or with PAM_TRUSTED_PROXY_HOPS = N
    the N-th address from the right of X-Forwarded-For (the one the outermost trusted proxy
    saw; anything left of it is the client's to forge). IPv6 addresses become their /64."""
    address = request.META.get("REMOTE_ADDR") or ""
    hops = settings.PAM_TRUSTED_PROXY_HOPS
    if hops:
        forwarded = [part.strip() for part in request.headers.get("X-Forwarded-For", "").split(",") if part.strip()]
        if len(forwarded) >= hops:
            address = forwarded[-hops]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX_BITS}", strict=False))
    return str(ip)


def _count_redis(key: str, window_start: int, window_seconds: int) -> int | None:
    from django_redis import get_redis_connection
    from redis.exceptions import RedisError

    name = f"{REDIS_PREFIX}{key}:{window_start}"
    try:
        pipe = get_redis_connection("default").pipeline(transaction=True)
        pipe.incr(name)
        pipe.expire(name, window_seconds)
        count, _ = pipe.execute()
    except RedisError:
        # Fail open: an unreachable Redis must not lock every user out of login.
        logger.warning("rate limit not counted: Redis is unavailable")
        return None
    return int(count)


_UPSERT = """
INSERT INTO {table} ({key}, {start}, {end}, {count}) VALUES (%s, %s, %s, 1)
ON CONFLICT ({key}) DO UPDATE SET
    {count} = CASE WHEN {table}.{start} = excluded.{start} THEN {table}.{count} + 1 ELSE 1 END,
    {start} = excluded.{start},
    {end} = excluded.{end}
RETURNING {count}
"""
_PRUNE = "DELETE FROM {table} WHERE {end} <= %s"


def _sql(template: str) -> str:
    from pam.models import RateLimitCounter

    quote = connection.ops.quote_name
    return template.format(
        table=quote(RateLimitCounter._meta.db_table),
        key=quote("key"),
        start=quote("window_start"),
        end=quote("window_end"),
        count=quote("count"),
    )


def _count_sql(key: str, window_start: int, window_end: int, now: float) -> int:
    with connection.cursor() as cursor:
        cursor.execute(_sql(_UPSERT), [key, window_start, window_end])
        count = int(cursor.fetchone()[0])
        if count == 1:
            # A new window for this key: drop the counters whose window is over (indexed), so
            # the table holds only the keys seen within their current window.
            cursor.execute(_sql(_PRUNE), [int(now)])
    return count
