"""The two counter stores of developer_api.quotas, side by side under parallel reservations:
the SQL table (one guarded upsert per change) and Redis (a Lua script). The e2e test
tests/e2e/test_quota_concurrency.py drives the whole stack; this one each store alone."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections

from developer_api.quotas import Counters, RedisCounters, SqlCounters, windows_at
from memory.models import Workspace

NOW = datetime.now(timezone.utc)  # Redis drops keys whose expiry is past
K = 7


def stores() -> list[Any]:
    params = [pytest.param(SqlCounters, id="sql")]
    params.append(
        pytest.param(RedisCounters, id="redis", marks=pytest.mark.skipif(not settings.REDIS_URL, reason="no REDIS_URL"))
    )
    return params


@pytest.mark.parametrize("store", stores())
def test_reserve_takes_both_windows_or_neither(store: type[Counters], workspace: Workspace) -> None:
    counters = store()
    w = windows_at(NOW)
    assert counters.reserve(workspace.pk, [(w["month"], 2), (w["week"], 1)]) is None
    assert counters.reserve(workspace.pk, [(w["month"], 2), (w["week"], 1)]) == w["week"]
    assert counters.read(workspace.pk, [w["month"], w["week"]]) == {"month": 1, "week": 1}
    counters.release(workspace.pk, [w["month"], w["week"]])
    counters.release(workspace.pk, [w["month"], w["week"]])  # never below zero
    assert counters.read(workspace.pk, [w["month"], w["week"]]) == {"month": 0, "week": 0}


@pytest.mark.parametrize("store", stores())
def test_a_zero_limit_refuses_at_once(store: type[Counters], workspace: Workspace) -> None:
    w = windows_at(NOW)
    assert store().reserve(workspace.pk, [(w["month"], 0)]) == w["month"]


@pytest.mark.parametrize("store", stores())
@pytest.mark.django_db(transaction=True)
def test_parallel_reservations_never_overshoot(store: type[Counters], make_workspace: Any) -> None:
    if store is SqlCounters and connection.vendor == "sqlite":
        pytest.skip("the in-memory SQLite test database is one connection; tests/e2e covers a SQLite file")
    workspace = make_workspace("rush")
    w = windows_at(NOW)

    def reserve(_: int) -> bool:
        try:
            return store().reserve(workspace.pk, [(w["month"], K), (w["week"], -1)]) is None
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=12) as pool:
        granted = list(pool.map(reserve, range(3 * K)))
    assert granted.count(True) == K
    assert store().read(workspace.pk, [w["month"], w["week"]]) == {"month": K, "week": K}
