"""Best-effort pushes to Channels groups (the dashboard's live events, SPEC §6 and §7).

A dead channel layer (Redis down) must never fail the request or the sync that emits an event:
events are advisory, so a failed send is logged and dropped.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def group_push(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception as exc:  # best effort: events are advisory
        logger.warning("could not push %s to %s: %s", event.get("type"), group, type(exc).__name__)
