"""Plans, agent keys and the request log (SPEC §2.2, §3)."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

SCOPE_READ = "memory:read"
SCOPE_WRITE = "memory:write"


def default_scopes() -> list[str]:
    return [SCOPE_READ, SCOPE_WRITE]


class Plan(models.Model):
    """Operator-edited limits; -1 means unlimited (SPEC §3.2)."""

    name = models.CharField(max_length=64, unique=True)
    weekly_limit = models.IntegerField(default=-1)
    monthly_limit = models.IntegerField(default=-1)
    hourly_limit = models.IntegerField(default=-1)
    enabled = models.BooleanField(default=True)

    def __str__(self) -> str:
        return self.name


class AgentKey(models.Model):
    """`pam_mkey_<secret>`: only a digest is stored; one active key per workspace."""

    workspace = models.ForeignKey("memory.Workspace", on_delete=models.CASCADE, related_name="agent_keys")
    key_prefix = models.CharField(max_length=32, db_index=True)  # "pam_mkey_" + 8 characters
    key_hash = models.CharField(max_length=64)  # sha256 hex of the whole key
    scopes = models.JSONField(default=default_scopes)
    # SPEC §2.4: the agent-memory buckets and teams the key sees; empty = all.
    buckets = models.JSONField(default=list, blank=True)
    teams = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    mcp_verified = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["workspace"],
                condition=models.Q(revoked_at__isnull=True),
                name="agent_key_one_active_per_workspace",
            )
        ]

    def __str__(self) -> str:
        return self.key_prefix


class RequestLog(models.Model):
    class Outcome(models.TextChoices):
        SUCCESS = "success"
        TOOL_ERROR = "tool_error"
        QUOTA_EXCEEDED = "quota_exceeded"
        ENTITLEMENT_BLOCKED = "entitlement_blocked"

    request_id = models.UUIDField(default=uuid.uuid4, unique=True)
    workspace = models.ForeignKey("memory.Workspace", on_delete=models.CASCADE, related_name="request_logs")
    credential = models.CharField(max_length=100)  # key prefix or "oauth:<connection id>"
    agent_key = models.ForeignKey(AgentKey, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    tool_name = models.CharField(max_length=100)
    arguments = models.JSONField(default=dict)
    prompt = models.TextField(blank=True, default="")
    session_id = models.CharField(max_length=200, blank=True, default="")
    result = models.JSONField(default=dict)
    response_text = models.TextField(blank=True, default="")
    is_error = models.BooleanField(default=False)
    outcome = models.CharField(max_length=24, choices=Outcome.choices)
    error_code = models.CharField(max_length=40, blank=True, default="")
    retrieval_ran = models.BooleanField(default=False)
    triage_only = models.BooleanField(default=False)
    item_count = models.PositiveIntegerField(default=0)
    estimated_tokens = models.PositiveIntegerField(default=0)
    llm_calls = models.PositiveIntegerField(default=0)
    duration_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["workspace", "-created_at", "-id"], name="requestlog_ws_time")]
