"""A bound on the HTTP requests one ASGI process serves at once (issue 17).

Django runs each request's sync views in a thread of its own under ASGI, and each such thread
holds its own database connection: 50 concurrent agents meant 50 PostgreSQL connections from
one process, past what a shared server gives. Requests past `PAM_MAX_CONCURRENT_REQUESTS` wait
their turn here (their connection stays open, nothing is refused), so a process never holds
more connections than that. Websockets are not bounded (they hold no connection while idle).
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

Scope = dict[str, Any]
AsgiApp = Callable[[Scope, Any, Any], Awaitable[None]]


class BoundedHttp:
    def __init__(self, app: AsgiApp, limit: int) -> None:
        if limit < 1:
            raise ValueError("PAM_MAX_CONCURRENT_REQUESTS must be 1 or more")
        self.app = app
        self.limit = limit
        self._slots: asyncio.Semaphore | None = None  # made in the server's event loop

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
        async with self._slots:
            await self.app(scope, receive, send)
