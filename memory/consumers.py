"""Websocket feeds of the dashboard (SPEC §6, §7): one Channels group per workspace.

A workspace admin is joined to their own workspace's group; an operator (superuser) names the
workspace with `?workspace=<id>`. Anyone else is closed with 4401 (not signed in) or 4403 (a
workspace that is not theirs), and the browser stops reconnecting.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from memory.models import Workspace
from memory.pipelines.progress import pipeline_group

NOT_SIGNED_IN = 4401
NOT_ALLOWED = 4403


def _asked_workspace(scope: dict[str, Any]) -> int | None:
    raw = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("workspace", [""])[0]
    return int(raw) if raw.isdigit() else None


@database_sync_to_async
def _workspace_exists(workspace_id: int) -> bool:
    return Workspace.objects.filter(pk=workspace_id).exists()


class WorkspaceGroupConsumer(AsyncJsonWebsocketConsumer):
    """Joins the group `group_of(workspace id)` and forwards its events as JSON."""

    @staticmethod
    def group_of(workspace_id: int) -> str:
        raise NotImplementedError

    async def connect(self) -> None:
        user = self.scope.get("user")
        if not user or not user.is_authenticated or not user.is_active or not user.is_staff:
            await self.close(code=NOT_SIGNED_IN)
            return
        asked = _asked_workspace(self.scope)
        own = getattr(user, "workspace_id", None)
        if user.is_superuser and asked is not None:
            workspace_id = asked if await _workspace_exists(asked) else None
        else:
            workspace_id = own if asked in (None, own) else None
        if workspace_id is None:
            await self.close(code=NOT_ALLOWED)
            return
        self.group = self.group_of(workspace_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)


class PipelineProgressConsumer(WorkspaceGroupConsumer):
    """`pipeline.progress` events of the workspace's sync runs (SPEC §7)."""

    group_of = staticmethod(pipeline_group)

    async def pipeline_progress(self, event: dict[str, Any]) -> None:
        await self.send_json(event)
