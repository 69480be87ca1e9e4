"""The exact `total_count` of a request-log search (`GET /v1/dev/mcp-requests?q=`, SPEC §3).

Counting the matches of a word found in most of a million rows reads every match: seconds,
even through the GIN index (its bitmap of a million rows alone takes ~0.3 s). The log only
grows at its new end and shrinks at its old end (the retention purge), so the count is kept
in two parts: the matches among the *settled* rows (ids up to a mark), cached in the shared
cache (Redis, or the database cache: never per process), and the matches among the rows after
the mark, counted fresh on every request (few: those written since the last search). Each
request moves the mark up to the newest row older than `SETTLE`, counting only the rows in
between, so a busy log never makes the fresh part large.

Why that is exact: a log row is written with `created_at = now()` in its own short
transaction (`developer_api.services.request_log_create`), so a row created more than
`SETTLE` ago has committed, and so has every row with a smaller id (inserted before it).
Rows are never changed after insert; rows leave only through the purge, oldest first, which
changes the workspace's oldest row: a cached part whose oldest row is gone is dropped and
recounted. The first search for a word in a big log still pays the full count, once per
word and purge.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.core.cache import cache
from django.db.models import QuerySet
from django.utils import timezone

from developer_api.models import RequestLog
from memory.models import Workspace

SETTLE = timedelta(minutes=1)  # a log row's transaction has committed this long after created_at
CACHE_SECONDS = 24 * 3600


def _key(workspace: Workspace, q: str) -> str:
    digest = hashlib.sha256(" ".join(q.split()).lower().encode("utf-8")).hexdigest()[:32]
    return f"pam:request-search-count:{workspace.pk}:{digest}"


def _newest_id(rows: QuerySet[RequestLog]) -> int:
    """The id of the newest row of `rows` by the time index, or 0."""
    return rows.order_by("-created_at", "-id").values_list("id", flat=True).first() or 0


def search_count(*, workspace: Workspace, q: str, matching: QuerySet[RequestLog]) -> int:
    """How many of the workspace's log rows `matching` (its rows that match `q`) holds."""
    log = RequestLog.objects.filter(workspace=workspace)
    oldest = log.order_by("created_at", "id").values_list("id", flat=True).first()
    if oldest is None:
        return 0
    key = _key(workspace, q)
    cached = cache.get(key)
    mark, settled_count = (cached[1], cached[2]) if cached and cached[0] == oldest else (0, 0)
    settled = _newest_id(log.filter(created_at__lt=timezone.now() - SETTLE))
    if settled > mark:
        settled_count += matching.filter(id__gt=mark, id__lte=settled).count()
        mark = settled
        cache.set(key, (oldest, mark, settled_count), CACHE_SECONDS)
    return settled_count + matching.filter(id__gt=mark).count()
