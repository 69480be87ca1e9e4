"""MCP handshake sessions and the database-backed prompt history (embedded default)."""

from __future__ import annotations

from django.db import models

from .workspace import Workspace


class McpSession(models.Model):
    """The handshake session of a workspace: one current per workspace, 30 days from creation."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="mcp_sessions")
    session_id = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["workspace", "-expires_at"])]


class SessionPrompt(models.Model):
    """One prompt of a session's history, used when REDIS_URL is unset (never a local cache)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    session_key = models.CharField(max_length=200)
    prompt = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["workspace", "session_key", "-id"])]
