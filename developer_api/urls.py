from django.urls import path

from developer_api import apis, apis_mcp, apis_memory, apis_oauth, openapi

auth_urlpatterns = [
    path("token", apis.AuthTokenApi.as_view(), name="auth-token"),
    path("refresh", apis.AuthRefreshApi.as_view(), name="auth-refresh"),
]

dev_urlpatterns = [
    path("readiness", apis.ReadinessApi.as_view(), name="dev-readiness"),
    path("mcp-config", apis_mcp.McpConfigApi.as_view(), name="dev-mcp-config"),
    path("mcp-usage-stats", apis_mcp.UsageStatsApi.as_view(), name="dev-mcp-usage-stats"),
    path("mcp-requests", apis_mcp.McpRequestListApi.as_view(), name="dev-mcp-requests"),
    path("mcp-requests/<str:request_id>", apis_mcp.McpRequestDetailApi.as_view(), name="dev-mcp-request"),
    path("rotate-key", apis.KeyRotateApi.as_view(), name="dev-rotate-key"),
    path("revoke-key", apis.KeyRevokeApi.as_view(), name="dev-revoke-key"),
    path("sources", apis.SourceListApi.as_view(), name="dev-sources"),
    path("sources/<int:source_id>", apis.SourceDetailApi.as_view(), name="dev-source"),
    path("sources/<int:source_id>/sync", apis.SourceSyncApi.as_view(), name="dev-source-sync"),
    path("sources/<int:source_id>/items", apis.SourceItemsApi.as_view(), name="dev-source-items"),
    path("pipeline-runs", apis.PipelineRunListApi.as_view(), name="dev-pipeline-runs"),
    path("oauth-connections", apis_oauth.OAuthConnectionListApi.as_view(), name="dev-oauth-connections"),
    path(
        "oauth-connections/<int:connection_id>/revoke",
        apis_oauth.OAuthConnectionRevokeApi.as_view(),
        name="dev-oauth-connection-revoke",
    ),
    path("openapi.json", openapi.OpenApiDocumentView.as_view(), name="dev-openapi"),
    path("docs", openapi.OpenApiDocsView.as_view(url_name="dev-openapi"), name="dev-docs"),
]

# The REST memory API (SPEC §2.4, docs/api/memory.md), JWT-authenticated like /v1/dev; full
# paths, so that the list is /v1/memory itself.
memory_urlpatterns = [
    path("v1/memory", apis_memory.MemoryListApi.as_view(), name="memory-list"),
    path("v1/memory/export", apis_memory.MemoryExportApi.as_view(), name="memory-export"),
    path("v1/memory/import", apis_memory.MemoryImportApi.as_view(), name="memory-import"),
    path("v1/memory/<str:reference>", apis_memory.MemoryDetailApi.as_view(), name="memory-detail"),
    path("v1/memory/<str:reference>/forget", apis_memory.MemoryForgetApi.as_view(), name="memory-forget"),
    path("v1/memory/<str:reference>/restore", apis_memory.MemoryRestoreApi.as_view(), name="memory-restore"),
]
