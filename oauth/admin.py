"""Connected apps in the admin (SPEC §3, §6 Access): listed per workspace, revoked by action."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from oauth.connections import connection_revoke
from oauth.models import OAuthConnection, RegisteredClient


@admin.register(OAuthConnection)
class OAuthConnectionAdmin(admin.ModelAdmin):
    list_display = ["id", "client_name", "user", "workspace", "scope", "created_at", "last_used_at", "status", "revoked_at"]
    list_filter = ["workspace"]
    list_select_related = ["workspace", "user"]
    search_fields = ["client_name", "client_id", "user__email"]
    readonly_fields = [f.name for f in OAuthConnection._meta.fields]
    actions = ["revoke"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # connections come from the OAuth flow only

    @admin.display(description="status")
    def status(self, connection: OAuthConnection) -> str:
        return connection.status

    @admin.action(description="Revoke the selected connections (cuts their tokens at once)")
    def revoke(self, request: HttpRequest, queryset: QuerySet[OAuthConnection]) -> None:
        for connection in queryset:
            connection_revoke(connection=connection)
        self.message_user(request, f"Revoked {queryset.count()} connection(s).", messages.SUCCESS)


@admin.register(RegisteredClient)
class RegisteredClientAdmin(admin.ModelAdmin):
    list_display = ["application", "application_type", "token_endpoint_auth_method", "scope"]
    list_select_related = ["application"]
    readonly_fields = ["application", "application_type", "token_endpoint_auth_method", "scope"]
