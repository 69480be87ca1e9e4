from django.contrib import admin

from developer_api.models import AgentKey, Plan, RequestLog


@admin.register(Plan)
class PlanAdmin(admin.ModelAdmin):
    list_display = ["name", "weekly_limit", "monthly_limit", "hourly_limit", "enabled"]


@admin.register(AgentKey)
class AgentKeyAdmin(admin.ModelAdmin):
    list_display = ["key_prefix", "workspace", "created_at", "last_used_at", "revoked_at", "mcp_verified"]
    readonly_fields = ["key_prefix", "key_hash"]
    list_select_related = ["workspace"]


@admin.register(RequestLog)
class RequestLogAdmin(admin.ModelAdmin):
    list_display = ["request_id", "workspace", "tool_name", "outcome", "duration_ms", "created_at"]
    list_filter = ["outcome", "tool_name"]
    list_select_related = ["workspace"]
    show_full_result_count = False  # no COUNT(*) over a big table
    readonly_fields = [f.name for f in RequestLog._meta.fields]
