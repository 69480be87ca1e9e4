from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html

from memory.agent_memory.jsonl import memory_status
from memory.models import (
    AgentMemory,
    AgentMemoryAudit,
    AgentMemoryVersion,
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


# --- Agent memory (SPEC §2.4, §6): what agents wrote, read-only ------------------------------


class WorkspaceScoped:
    """SPEC §6: an operator (superuser) sees every workspace; a workspace admin (a staff user
    who is a member of a workspace) sees only their workspace's rows, without any model
    permission to grant. Read-only: agent memory changes through `remember`, `forget` and
    /v1/memory, which keep history and audit rows."""

    workspace_scoped = True  # pam.admin: not made operator-only

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        rows = super().get_queryset(request)  # type: ignore[misc]
        user: Any = request.user
        return rows if user.is_superuser else rows.filter(workspace_id=user.workspace_id)

    def _member(self, request: HttpRequest) -> bool:
        user: Any = request.user
        return bool(user.is_active and user.is_staff and (user.is_superuser or user.workspace_id))

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._member(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        user: Any = request.user
        if not self._member(request):
            return False
        return obj is None or user.is_superuser or obj.workspace_id == user.workspace_id

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MemoryStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("live", "live"), ("forgotten", "forgotten"), ("expired", "expired")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        now = timezone.now()
        if self.value() == "live":
            return queryset.filter(deleted_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        if self.value() == "forgotten":
            return queryset.filter(deleted_at__isnull=False)
        if self.value() == "expired":
            return queryset.filter(deleted_at__isnull=True, expires_at__lte=now)
        return queryset


class ReadOnlyInline(WorkspaceScoped, admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).order_by("id")


class AgentMemoryVersionInline(ReadOnlyInline):
    model = AgentMemoryVersion
    verbose_name_plural = "history (the values each change replaced)"
    fields = readonly_fields = (
        "version", "action", "replaced_at", "replaced_by", "valid_from", "path", "content", "memory_type",
        "importance", "confidence", "expires_at", "metadata",
    )  # fmt: skip


class AgentMemoryAuditInline(ReadOnlyInline):
    model = AgentMemoryAudit
    verbose_name_plural = "audit"
    fields = readonly_fields = ("created_at", "action", "credential", "reason", "request_id")


@admin.register(AgentMemory)
class AgentMemoryAdmin(WorkspaceScoped, admin.ModelAdmin):  # type: ignore[type-arg]
    """SPEC §2.4: agent memories with the filters of GET /v1/memory; the detail shows the
    history and audit rows."""

    list_display = [
        "reference", "workspace", "bucket", "team", "project", "path", "memory_type", "credential", "state",
        "created_at", "updated_at", "expires_at",
    ]  # fmt: skip
    list_filter = [
        MemoryStateFilter, "bucket", "team", "project", "memory_type", "credential",
        ("created_at", admin.DateFieldListFilter), ("expires_at", admin.DateFieldListFilter),
    ]  # fmt: skip
    search_fields = ["reference", "path", "content", "semantic_key", "credential"]
    list_select_related = ["workspace"]
    readonly_fields = [f.name for f in AgentMemory._meta.fields if f.name not in ("content_terms", "context_terms")]
    exclude = ["content_terms", "context_terms"]
    inlines = [AgentMemoryVersionInline, AgentMemoryAuditInline]

    def get_list_filter(self, request: HttpRequest) -> Any:
        user: Any = request.user
        return ["workspace", *self.list_filter] if user.is_superuser else self.list_filter

    @admin.display(description="state")
    def state(self, obj: AgentMemory) -> str:
        return memory_status(obj)


@admin.register(AgentMemoryAudit)
class AgentMemoryAuditAdmin(WorkspaceScoped, admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["memory", "workspace", "action", "credential", "reason", "created_at"]
    list_filter = ["action"]
    search_fields = ["memory__reference", "credential", "reason"]
    list_select_related = ["memory", "workspace"]
    readonly_fields = ["workspace", "memory", "action", "credential", "reason", "request_id", "created_at"]
