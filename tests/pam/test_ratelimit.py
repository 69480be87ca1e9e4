"""pam/ratelimit.py: fixed-window limits counted atomically in Redis (REDIS_URL set, the
service run) or in one SQL statement (the embedded run), SPEC §3 `rate_limited`."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from django.test import RequestFactory

from pam.models import RateLimitCounter
from pam.ratelimit import Rate, RateLimited, client_address, enforce, hit

T0 = 1_800_000_000.0  # a window boundary for 60 s windows (divisible by 60)


@pytest.mark.django_db
def test_it_allows_the_limit_then_refuses_until_the_window_ends() -> None:
    decisions = [hit("login:a", limit=3, window_seconds=60, now=T0 + 10) for _ in range(5)]

    assert [d.allowed for d in decisions] == [True, True, True, False, False]
    assert [d.count for d in decisions] == [1, 2, 3, 4, 5]
    assert decisions[0].retry_after == 0
    assert decisions[3].retry_after == 50


def test_retry_after_is_at_least_one_second_and_rounds_up(db: None) -> None:
    for _ in range(2):
        last = hit("login:b", limit=1, window_seconds=60, now=T0 + 59.5)

    assert last.retry_after == 1


def test_a_new_window_starts_from_zero(db: None) -> None:
    for _ in range(4):
        hit("login:c", limit=3, window_seconds=60, now=T0 + 1)

    assert hit("login:c", limit=3, window_seconds=60, now=T0 + 60).allowed
    assert hit("login:c", limit=3, window_seconds=60, now=T0 + 61).count == 2


def test_keys_are_counted_separately(db: None) -> None:
    for _ in range(3):
        hit("login:d", limit=2, window_seconds=60, now=T0)

    assert not hit("login:d", limit=2, window_seconds=60, now=T0).allowed
    assert hit("login:e", limit=2, window_seconds=60, now=T0).allowed


def test_without_redis_it_keeps_one_row_per_key_and_prunes_finished_windows(db: None, settings: Any) -> None:
    settings.REDIS_URL = ""
    hit("login:old", limit=5, window_seconds=60, now=T0)
    hit("login:f", limit=5, window_seconds=60, now=T0 + 1)
    hit("login:f", limit=5, window_seconds=60, now=T0 + 2)

    assert RateLimitCounter.objects.get(key="login:f").count == 2
    hit("login:g", limit=5, window_seconds=60, now=T0 + 120)  # a new key: finished windows go

    assert set(RateLimitCounter.objects.values_list("key", flat=True)) == {"login:g"}


def test_with_redis_the_counter_lives_in_redis_and_expires(db: None, settings: Any) -> None:
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is unset: the embedded run counts in the database (tested above)")
    from django_redis import get_redis_connection

    hit("login:h", limit=5, window_seconds=60, now=T0)

    name = f"pam:ratelimit:login:h:{int(T0)}"
    assert int(get_redis_connection("default").get(name)) == 1
    assert 0 < get_redis_connection("default").ttl(name) <= 60
    assert not RateLimitCounter.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_concurrent_hits_never_overshoot_the_limit() -> None:
    if connection.vendor == "sqlite" and connection.settings_dict["NAME"].startswith(("file:memorydb", ":memory:")):
        pytest.skip("threads cannot share the in-memory SQLite test database; runs on PostgreSQL/Redis")
    allowed: list[bool] = []
    lock = threading.Lock()

    def worker() -> None:
        try:
            for _ in range(10):
                decision = hit("login:race", limit=25, window_seconds=3600, now=T0)
                with lock:
                    allowed.append(decision.allowed)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(allowed) == 80
    assert allowed.count(True) == 25


def test_enforce_raises_rate_limited_with_retry_after(db: None) -> None:
    enforce("scope", "subject", Rate(1, 3600))  # an hour: no window ends between the two

    with pytest.raises(RateLimited) as refused:
        enforce("scope", "subject", Rate(1, 3600))
    assert refused.value.code == "rate_limited"
    assert 1 <= refused.value.retry_after <= 3600


@pytest.mark.parametrize("text", ["10", "0/60", "10/0", "-1/60", "a/b", "10/60/1", ""])
def test_a_malformed_rate_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Rate.parse(text)


def test_a_rate_reads_limit_slash_seconds() -> None:
    assert Rate.parse("10/60") == Rate(limit=10, window_seconds=60)


@pytest.mark.parametrize(
    "remote, forwarded, hops, expected",
    [
        ("203.0.113.7", "", 0, "203.0.113.7"),
        ("203.0.113.7", "198.51.100.1", 0, "203.0.113.7"),  # not trusted: the header is ignored
        ("10.0.0.1", "forged, 198.51.100.1", 1, "198.51.100.1"),
        ("10.0.0.1", "forged, 198.51.100.1, 10.0.0.2", 2, "198.51.100.1"),
        ("10.0.0.1", "", 1, "10.0.0.1"),  # fewer hops than trusted: the peer
        ("2001:db8:1:2:3:4:5:6", "", 0, "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.7", "", 0, "203.0.113.7"),
    ],
)
def test_the_client_address_is_the_peer_or_the_trusted_proxys_view(
    settings: Any, remote: str, forwarded: str, hops: int, expected: str
) -> None:
    settings.PAM_TRUSTED_PROXY_HOPS = hops
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    request = RequestFactory().post("/", REMOTE_ADDR=remote, **headers)

    assert client_address(request) == expected
