"""Plans, agent keys and the request log (SPEC §2.2, §3)."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

SCOPE_READ = "memory:read"
SCOPE_WRITE = "memory:write"


UNLIMITED = -1  # a plan limit that never refuses (SPEC §3.2)


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


class QuotaCounter(models.Model):
    """One quota window's count for a workspace (SPEC §3.2) in the embedded default; with
    REDIS_URL the counters live in Redis instead (developer_api.quotas)."""

    workspace = models.ForeignKey("memory.Workspace", on_delete=models.CASCADE, related_name="+")
    period = models.CharField(max_length=32)  # "<hour|week|month>:<window start, UTC hour>"
    count = models.IntegerField(default=0)
    expires_at = models.DateTimeField()  # the window's end: purged some time after it

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "period"], name="quota_counter_one_per_window")]


class UsageHour(models.Model):
    """The request log rolled up by UTC hour and kind of call, written in the same commit as
    each log row: usage stats (SPEC §3) read at most 90 × 24 rows per kind, however big the
    log is."""

    workspace = models.ForeignKey("memory.Workspace", on_delete=models.CASCADE, related_name="+")
    hour = models.DateTimeField()
    outcome = models.CharField(max_length=24, choices=RequestLog.Outcome.choices)
    triage_only = models.BooleanField()
    retrieval_ran = models.BooleanField()
    calls = models.PositiveIntegerField(default=0)
    estimated_tokens = models.BigIntegerField(default=0)
    duration_ms = models.BigIntegerField(default=0)  # the sum: averages are computed on read
    llm_calls = models.BigIntegerField(default=0)
    item_count = models.BigIntegerField(default=0)
    last_called_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "hour", "outcome", "triage_only", "retrieval_ran"], name="usage_hour_one_per_kind"
            )
        ]
