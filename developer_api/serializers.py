"""Output serializers of the Developer API (SPEC §3): every answer's shape, in one place.

The views pass service results through these, so the OpenAPI document (drf-spectacular reads
them) and the wire agree field for field. Times are ISO 8601 UTC with the offset ("+00:00").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


@extend_schema_field({"type": "string", "format": "date-time"})
class IsoDateTimeField(serializers.Field):  # type: ignore[type-arg]
    """ISO 8601 with its UTC offset ("+00:00", SPEC §3), where DRF would write "Z"."""

    def to_representation(self, value: datetime) -> str:
        return value.isoformat()


@extend_schema_field(OpenApiTypes.OBJECT)
class ObjectField(serializers.JSONField):
    """A stored JSON object passed through as is (a tool result, a client config)."""


class ErrorSerializer(serializers.Serializer[Any]):
    error_code = serializers.CharField()
    error_message = serializers.CharField()


# --- auth and keys ------------------------------------------------------------------------


class TokenPairSerializer(serializers.Serializer[Any]):
    access = serializers.CharField()
    refresh = serializers.CharField()
    expires_in = serializers.IntegerField()


class RotatedKeySerializer(serializers.Serializer[Any]):
    api_key = serializers.CharField()
    key_prefix = serializers.CharField()
    rotated_at = serializers.CharField()


class RevokedSerializer(serializers.Serializer[Any]):
    revoked = serializers.BooleanField()


class RevokedConnectionSerializer(RevokedSerializer):
    id = serializers.IntegerField()


# --- readiness, quota, mcp-config -----------------------------------------------------------


class ReadinessSerializer(serializers.Serializer[Any]):
    ready = serializers.BooleanField()
    state = serializers.ChoiceField(
        ["not_provisioned", "waiting_for_sources", "processing", "syncing_to_vm", "ready_minimal", "ready_rich", "error"]
    )
    connected_sources_count = serializers.IntegerField()
    completed_sources_count = serializers.IntegerField()
    latest_pipeline_status = serializers.ChoiceField(["queued", "running", "completed", "failed"], allow_null=True)
    estimated_wait_message = serializers.CharField(allow_null=True)
    has_facts = serializers.BooleanField()
    has_context_markdown = serializers.BooleanField()
    has_tree_index = serializers.BooleanField()


class QuotaSerializer(serializers.Serializer[Any]):
    """SPEC §3.2: the seed's shape, the product API's (monthly) and the hourly meter; -1 =
    unlimited."""

    plan = serializers.CharField()
    status = serializers.ChoiceField(["ok", "near_limit", "limited", "entitlement_required", "unlimited"])
    requests_this_week = serializers.IntegerField()
    weekly_limit = serializers.IntegerField()
    remaining_this_week = serializers.IntegerField()
    requests_this_month = serializers.IntegerField()
    monthly_limit = serializers.IntegerField()
    remaining_this_month = serializers.IntegerField()
    usage_percent = serializers.IntegerField(min_value=0, max_value=100)
    week_reset_at = serializers.CharField()
    month_reset_at = serializers.CharField()
    retrieve_requests_used = serializers.IntegerField()
    max_retrieve_requests = serializers.IntegerField()
    retrieve_requests_left = serializers.IntegerField()
    reset_at = serializers.CharField()
    requests_this_hour = serializers.IntegerField()
    hourly_limit = serializers.IntegerField()
    remaining_this_hour = serializers.IntegerField()
    hour_reset_at = serializers.CharField()


class McpConfigSerializer(serializers.Serializer[Any]):
    mcp_url = serializers.CharField()
    mcp_server_name = serializers.CharField()
    api_key = serializers.CharField(allow_null=True)
    key_prefix = serializers.CharField(allow_null=True)
    mcp_verified = serializers.BooleanField()
    system_prompt_snippet = serializers.CharField()
    hello_world_prompt = serializers.CharField()
    claude_code_config_example = ObjectField()
    oauth_client_id = serializers.CharField(allow_null=True)
    oauth_registration_url = serializers.CharField()
    oauth_authorization_url = serializers.CharField()
    oauth_token_url = serializers.CharField()
    oauth_revocation_url = serializers.CharField()
    oauth_protected_resource_metadata_url = serializers.CharField()
    oauth_authorization_server_metadata_url = serializers.CharField()
    browser_mcp_setup_instructions = serializers.CharField()
    readiness = ReadinessSerializer()
    quota = QuotaSerializer()
    developer_api_notice = serializers.CharField()


# --- usage stats ----------------------------------------------------------------------------


class UsageRangeSerializer(serializers.Serializer[Any]):
    days = serializers.IntegerField()
    start_date = serializers.DateField()
    end_date = serializers.DateField()


class UsageSummarySerializer(serializers.Serializer[Any]):
    total_calls = serializers.IntegerField()
    successful_calls = serializers.IntegerField()
    error_calls = serializers.IntegerField()
    success_rate = serializers.IntegerField()
    average_duration_ms = serializers.IntegerField()
    estimated_tokens = serializers.IntegerField()
    gemini_calls_estimate = serializers.IntegerField()
    retrieved_items_count = serializers.IntegerField()
    triage_only_calls = serializers.IntegerField()
    full_retrieval_calls = serializers.IntegerField()
    last_called_at = serializers.CharField(allow_null=True)


class UsageDaySerializer(serializers.Serializer[Any]):
    date = serializers.DateField()
    total_calls = serializers.IntegerField()
    successful_calls = serializers.IntegerField()
    tool_error_calls = serializers.IntegerField()
    quota_exceeded_calls = serializers.IntegerField()
    entitlement_blocked_calls = serializers.IntegerField()
    triage_only_calls = serializers.IntegerField()
    full_retrieval_calls = serializers.IntegerField()
    estimated_tokens = serializers.IntegerField()
    average_duration_ms = serializers.IntegerField()


class HeatmapCellSerializer(serializers.Serializer[Any]):
    weekday = serializers.IntegerField(min_value=0, max_value=6, help_text="0 = Sunday (UTC)")
    hour = serializers.IntegerField(min_value=0, max_value=23)
    total_calls = serializers.IntegerField()


class StatusCountSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(["success", "tool_error", "quota_exceeded", "entitlement_blocked"])
    count = serializers.IntegerField()


class UsageStatsSerializer(serializers.Serializer[Any]):
    range = UsageRangeSerializer()
    summary = UsageSummarySerializer()
    daily = UsageDaySerializer(many=True)
    hourly_heatmap = HeatmapCellSerializer(many=True)
    status_breakdown = StatusCountSerializer(many=True)


# --- request log ----------------------------------------------------------------------------


class McpRequestSerializer(serializers.Serializer[Any]):
    """One request-log row (a `RequestLog`), as the list and the detail show it."""

    request_id = serializers.CharField()
    tool_name = serializers.CharField()
    prompt = serializers.CharField()
    response_content_text = serializers.CharField(source="response_text")
    response_json = ObjectField(source="result")
    duration_ms = serializers.IntegerField()
    created_at = IsoDateTimeField()


class McpRequestPageSerializer(serializers.Serializer[Any]):
    """A `developer_api.selectors.Page` of request-log rows."""

    items = McpRequestSerializer(many=True)
    next_cursor = serializers.CharField(allow_null=True)
    page_size = serializers.IntegerField()
    total_count = serializers.IntegerField()
    current_page = serializers.IntegerField()
    total_pages = serializers.IntegerField()


# --- sources and pipeline runs --------------------------------------------------------------


class SourceSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField()
    created_at = serializers.CharField(allow_null=True)
    last_synced_at = serializers.CharField(allow_null=True)
    document_count = serializers.IntegerField()
    fact_count = serializers.IntegerField()


class SourceListSerializer(serializers.Serializer[Any]):
    items = SourceSerializer(many=True)


class ProgressSerializer(serializers.Serializer[Any]):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class PipelineRunSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    source_id = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    stage = serializers.CharField(allow_blank=True)
    progress = ProgressSerializer()
    errors = serializers.ListField(child=serializers.JSONField())  # type: ignore[assignment]  # a field, not .errors
    started_at = serializers.CharField(allow_null=True)
    finished_at = serializers.CharField(allow_null=True)


class PipelineRunListSerializer(serializers.Serializer[Any]):
    items = PipelineRunSerializer(many=True)


class RunIdSerializer(serializers.Serializer[Any]):
    run_id = serializers.IntegerField()


# --- OAuth connections ------------------------------------------------------------------------


class OAuthConnectionSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    client_id = serializers.CharField()
    client_name = serializers.CharField()
    scope = serializers.CharField()
    created_at = IsoDateTimeField()
    expires_at = IsoDateTimeField()
    last_used_at = IsoDateTimeField(allow_null=True)
    revoked_at = IsoDateTimeField(allow_null=True)
    status = serializers.ChoiceField(["active", "expired", "revoked"])


class OAuthConnectionListSerializer(serializers.Serializer[Any]):
    items = OAuthConnectionSerializer(many=True)
