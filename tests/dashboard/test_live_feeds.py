"""The dashboard's websocket feeds (SPEC §6, §7): `/ws/requests/` and `/ws/pipeline/` join
the signed-in admin's own workspace group; an operator names the workspace; nobody else gets
in, and a page of another origin is refused."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Callable

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from django.contrib.auth.models import AnonymousUser

from developer_api.routing import websocket_urlpatterns as request_feeds
from developer_api.services import requests_group
from memory.consumers import NOT_ALLOWED, NOT_SIGNED_IN
from memory.models import User, Workspace
from memory.pipelines.progress import pipeline_group
from memory.routing import websocket_urlpatterns as pipeline_feeds

FEEDS = URLRouter(pipeline_feeds + request_feeds)
# A consumer ends once its channel-layer read returns: at most channels_redis's 5 s BZPOPMIN.
WAIT_S = 7

# A feed that stops answering fails its test within a minute instead of holding CI for the
# suite's ten-minute timeout.
pytestmark = pytest.mark.timeout(60)


class WebsocketCommunicator(ApplicationCommunicator):  # type: ignore[misc]
    """A websocket client speaking ASGI to the application (channels.testing's own needs
    daphne, which PAM does not install)."""

    def __init__(self, application: Any, path: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
        path, _, query = path.partition("?")
        scope = {"type": "websocket", "path": path, "query_string": query.encode(), "headers": headers or [], "subprotocols": []}
        super().__init__(application, scope)

    async def connect(self) -> tuple[bool, int | None]:
        await self.send_input({"type": "websocket.connect"})
        answer = await self.receive_output(2)
        if answer["type"] == "websocket.close":
            return False, answer.get("code")
        return True, None

    async def receive_json_from(self, timeout: float = 1) -> Any:
        return json.loads((await self.receive_output(timeout))["text"])

    async def disconnect(self) -> None:
        """Closes the socket as a server does after either side closed it: the application hears
        `websocket.disconnect` and ends inside this event loop. (Left running, a consumer refused
        at the handshake was cancelled only when the loop shut down, mid-read on Redis, and once
        hung CI for the whole test timeout.)"""
        await self.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.wait(WAIT_S)

    async def handshake(self) -> tuple[bool, int | None]:
        """Whether the application accepts the socket (and its close code when it does not),
        the socket closed again either way."""
        answer = await self.connect()
        await self.disconnect()
        return answer


EVENT = {"type": "request.logged", "request_id": "r-1", "tool_name": "retrieve_memory", "outcome": "success", "duration_ms": 3, "created_at": "2026-12-01T00:00:00+00:00"}


def connect(path: str, user: Any) -> tuple[bool, int | None]:
    """Whether the feed accepts `user` (and the close code when it does not)."""

    async def go() -> tuple[bool, int | None]:
        communicator = WebsocketCommunicator(FEEDS, path)
        communicator.scope["user"] = user
        return await communicator.handshake()

    return async_to_sync(go)()


def relayed(path: str, user: Any, group: str, event: dict[str, Any], idle_s: float = 0) -> Any:
    """What the feed at `path` sends `user` after `event` is pushed to `group`, `idle_s`
    seconds after it connected (one event loop throughout: the in-memory channel layer belongs
    to its loop)."""

    async def go() -> Any:
        communicator = WebsocketCommunicator(FEEDS, path)
        communicator.scope["user"] = user
        connected, _ = await communicator.connect()
        assert connected
        await asyncio.sleep(idle_s)
        await get_channel_layer().group_send(group, event)
        try:
            return await communicator.receive_json_from(timeout=2)
        finally:
            await communicator.disconnect()

    return async_to_sync(go)()


@pytest.fixture
def admin(make_workspace: Callable[..., Workspace]) -> User:
    return make_workspace("mine").users.get()


def test_a_workspace_admin_receives_their_workspaces_new_requests(admin: User) -> None:
    assert relayed("/ws/requests/", admin, requests_group(admin.workspace_id), EVENT) == EVENT


def test_a_workspace_admin_receives_pipeline_progress(admin: User) -> None:
    event = {"type": "pipeline.progress", "run_id": 1, "source_id": 2, "stage": "facts", "done": 1, "total": 3, "status": "running"}

    assert relayed("/ws/pipeline/", admin, pipeline_group(admin.workspace_id), event) == event


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the Redis channel layer only (REDIS_URL)")
def test_a_feed_left_idle_longer_than_a_redis_read_still_delivers(admin: User) -> None:
    # channels_redis blocks 5 s per read; with redis-py's default 5 s socket timeout an idle
    # consumer died with TimeoutError and the page's feed dropped.
    assert relayed("/ws/requests/", admin, requests_group(admin.workspace_id), EVENT, idle_s=12) == EVENT


@pytest.mark.parametrize("path", ["/ws/requests/", "/ws/pipeline/"])
def test_a_workspace_admin_cannot_join_another_workspaces_feed(admin: User, make_workspace: Callable[..., Workspace], path: str) -> None:
    other = make_workspace("other")

    connected, code = connect(f"{path}?workspace={other.pk}", admin)

    assert not connected and code == NOT_ALLOWED


@pytest.mark.parametrize("path", ["/ws/requests/", "/ws/pipeline/"])
def test_a_signed_out_visitor_is_closed(db: None, path: str) -> None:
    connected, code = connect(path, AnonymousUser())

    assert not connected and code == NOT_SIGNED_IN


def test_a_member_who_is_not_staff_is_closed(admin: User) -> None:
    admin.is_staff = False

    connected, code = connect("/ws/requests/", admin)

    assert not connected and code == NOT_SIGNED_IN


@pytest.mark.django_db(transaction=True)
def test_an_operator_joins_the_workspace_they_name_and_not_an_unknown_one(make_workspace: Callable[..., Workspace]) -> None:
    workspace = make_workspace("watched")
    operator = User.objects.create_superuser("op@example.com", "pw-123456789")

    assert relayed(f"/ws/requests/?workspace={workspace.pk}", operator, requests_group(workspace.pk), EVENT) == EVENT

    connected, code = connect("/ws/requests/?workspace=999999", operator)
    assert not connected and code == NOT_ALLOWED


@pytest.mark.parametrize(("origin", "stopped_by"), [(b"https://evil.example", "origin check"), (b"http://127.0.0.1:8000", "consumer")])
def test_a_websocket_from_another_origin_is_refused_before_the_feed(db: None, origin: bytes, stopped_by: str) -> None:
    from pam.asgi import application

    async def go() -> tuple[bool, int | None]:
        communicator = WebsocketCommunicator(application, "/ws/requests/", headers=[(b"origin", origin), (b"host", b"127.0.0.1:8000")])
        return await communicator.handshake()

    connected, code = async_to_sync(go)()

    # Same origin reaches the consumer, which closes a visitor without a session (4401); another
    # origin is denied by the validator before any consumer runs (a close without a code).
    assert not connected
    assert code == (NOT_SIGNED_IN if stopped_by == "consumer" else None)
