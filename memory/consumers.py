"""Websocket feed of pipeline progress for the dashboard (group `workspace_<id>_pipeline`)."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from memory.pipelines.progress import pipeline_group


class PipelineProgressConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        workspace_id = getattr(user, "workspace_id", None)
        if not user or not user.is_authenticated or workspace_id is None:
            await self.close(code=4401)
            return
        self.group = pipeline_group(workspace_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def pipeline_progress(self, event: dict[str, Any]) -> None:
        await self.send_json(event)
