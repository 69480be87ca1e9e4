"""pam.concurrency.BoundedHttp: at most N HTTP requests in the application at once (so at most N
database connections per ASGI process); the rest wait, none is refused; websockets pass."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pam.concurrency import BoundedHttp


def test_no_more_than_the_limit_run_at_once_and_every_request_is_served() -> None:
    inside, peak, served = 0, 0, 0

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        nonlocal inside, peak, served
        inside += 1
        peak = max(peak, inside)
        await asyncio.sleep(0.01)
        inside -= 1
        served += 1

    bounded = BoundedHttp(app, 3)

    async def main() -> None:
        await asyncio.gather(*(bounded({"type": "http"}, None, None) for _ in range(20)))

    asyncio.run(main())
    assert (peak, served) == (3, 20)


def test_websockets_are_not_bounded() -> None:
    inside, peak = 0, 0

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        nonlocal inside, peak
        inside += 1
        peak = max(peak, inside)
        await asyncio.sleep(0.01)
        inside -= 1

    bounded = BoundedHttp(app, 1)

    async def main() -> None:
        await asyncio.gather(*(bounded({"type": "websocket"}, None, None) for _ in range(5)))

    asyncio.run(main())
    assert peak == 5


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="PAM_MAX_CONCURRENT_REQUESTS"):
        BoundedHttp(lambda *a: None, 0)  # type: ignore[arg-type,return-value]


def test_the_asgi_application_is_bounded(settings: Any) -> None:
    from pam.asgi import application

    http = application.application_mapping["http"]
    assert isinstance(http, BoundedHttp) and http.limit == settings.PAM_MAX_CONCURRENT_REQUESTS
