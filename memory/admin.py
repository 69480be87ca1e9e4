from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.utils.html import format_html

from memory.models import (
    AgentMemory,
    AgentMemoryAudit,
    Document,
    Entity,
    Fact,
    IndexVersion,
    PipelineRun,
    Section,
    Source,
    User,
    Workspace,
)


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "plan", "disabled", "created_at"]
    list_filter = ["disabled", "plan"]
    search_fields = ["slug", "name"]
    list_select_related = ["plan"]


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    ordering = ["email"]
    list_display = ["email", "workspace", "is_staff", "is_active"]
    list_select_related = ["workspace"]
    search_fields = ["email"]
    fieldsets = (
        (None, {"fields": ("email", "password", "workspace")}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
        ("Agent memory (empty = every bucket or team)", {"fields": ("memory_buckets", "memory_teams")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "workspace", "password1", "password2")}),)


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "workspace", "status", "last_synced_at"]
    list_filter = ["kind", "status"]
    list_select_related = ["workspace"]


@admin.register(PipelineRun)
class PipelineRunAdmin(admin.ModelAdmin):
    list_display = ["id", "source", "status", "stage", "progress_done", "progress_total", "created_at"]
    list_filter = ["status"]
    list_select_related = ["source"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["path", "title", "source", "doc_date"]
    search_fields = ["path", "title"]
    list_select_related = ["source"]


@admin.register(Section)
class SectionAdmin(admin.ModelAdmin):
    list_display = ["tree_path", "file_path", "fact_count", "workspace"]
    search_fields = ["tree_path"]
    list_select_related = ["workspace"]
    list_filter = ["workspace"]
    readonly_fields = ["tree_path", "file_path", "fact_count", "context_markdown"]
    exclude = ["markdown"]

    class Media:
        css = {"all": ["memory/admin.css"]}

    @admin.display(description="Context markdown")
    def context_markdown(self, obj: Section) -> str:
        return format_html('<pre class="context-markdown">{}</pre>', obj.markdown)


@admin.register(Fact)
class FactAdmin(admin.ModelAdmin):
    list_display = ["statement", "section", "effective_date"]
    search_fields = ["statement"]
    list_select_related = ["section"]
    raw_id_fields = ["document", "section", "superseded_by", "source"]
    filter_horizontal = ["entities"]


@admin.register(Entity)
class EntityAdmin(admin.ModelAdmin):
    list_display = ["label", "type", "workspace"]
    list_filter = ["type"]
    search_fields = ["label"]


@admin.register(IndexVersion)
class IndexVersionAdmin(admin.ModelAdmin):
    list_display = ["workspace", "version", "status", "fact_count", "section_count", "published_at"]
    list_filter = ["status"]


@admin.register(AgentMemory)
class AgentMemoryAdmin(admin.ModelAdmin):
    """SPEC §2.4: agent memories, read-only here (agents write them; `forget` removes them)."""

    list_display = ["reference", "workspace", "bucket", "path", "memory_type", "credential", "updated_at", "deleted_at"]
    list_filter = ["bucket", "memory_type"]
    search_fields = ["reference", "path", "content"]
    readonly_fields = [f.name for f in AgentMemory._meta.fields]


@admin.register(AgentMemoryAudit)
class AgentMemoryAuditAdmin(admin.ModelAdmin):
    list_display = ["memory", "action", "credential", "reason", "created_at"]
    list_filter = ["action"]
    readonly_fields = ["workspace", "memory", "action", "credential", "reason", "request_id", "created_at"]
