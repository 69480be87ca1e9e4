"""Websocket feed of new request-log rows for the dashboard's Request Log and Setup pages
(SPEC §6: `request.logged` events of the group `workspace_<id>_requests`)."""

from __future__ import annotations

from typing import Any

from developer_api.services import requests_group
from memory.consumers import WorkspaceGroupConsumer


class RequestLogConsumer(WorkspaceGroupConsumer):
    group_of = staticmethod(requests_group)

    async def request_logged(self, event: dict[str, Any]) -> None:
        await self.send_json(event)
