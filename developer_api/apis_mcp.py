"""Developer API: the MCP connection, its usage and its request log (SPEC §3).

    GET /v1/dev/mcp-config                  → McpConfig
    GET /v1/dev/mcp-usage-stats?days=N      → UsageStats (N in 1..90, default 30)
    GET /v1/dev/mcp-requests?limit=&page=&cursor=&q=  → McpRequestPage
    GET /v1/dev/mcp-requests/{request_id}   → McpRequest

One APIView per operation: each parses its query, calls one service or selector and shapes
the answer with an output serializer (`developer_api.serializers`).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from developer_api.apis import WorkspaceApi
from developer_api.mcp_config import mcp_config_get
from developer_api.selectors import Cursor, request_get, request_page
from developer_api.serializers import (
    McpConfigSerializer,
    McpRequestPageSerializer,
    McpRequestSerializer,
    UsageStatsSerializer,
)
from developer_api.usage import DEFAULT_DAYS, MAX_DAYS, usage_stats
from pam.errors import PamError

MAX_LIMIT = 100
DEFAULT_LIMIT = 10
MAX_Q = 200


def _query(query: type[serializers.Serializer[Any]], request: Request) -> dict[str, Any]:
    """The validated query parameters, or 400 invalid_request naming the first bad one."""
    serializer = query(data=request.query_params.dict())  # a dict: "" is invalid, not "absent"
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class McpConfigApi(WorkspaceApi):
    @extend_schema(operation_id="mcp_config", responses=McpConfigSerializer)
    def get(self, request: Request) -> Response:
        return Response(McpConfigSerializer(mcp_config_get(workspace=self.workspace(request))).data)


class UsageStatsApi(WorkspaceApi):
    class Query(serializers.Serializer[Any]):
        days = serializers.IntegerField(
            min_value=1,
            max_value=MAX_DAYS,
            default=DEFAULT_DAYS,
            error_messages={
                "invalid": f"must be an integer from 1 to {MAX_DAYS}.",
                "min_value": f"must be an integer from 1 to {MAX_DAYS}.",
                "max_value": f"must be an integer from 1 to {MAX_DAYS}.",
                "max_string_length": f"must be an integer from 1 to {MAX_DAYS}.",
            },
        )

    @extend_schema(operation_id="mcp_usage_stats", parameters=[Query], responses=UsageStatsSerializer)
    def get(self, request: Request) -> Response:
        query = _query(self.Query, request)
        stats = usage_stats(workspace=self.workspace(request), days=query["days"])
        return Response(UsageStatsSerializer(stats).data)


class McpRequestListApi(WorkspaceApi):
    class Query(serializers.Serializer[Any]):
        limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT)
        page = serializers.IntegerField(min_value=1, max_value=10**9, default=1)
        cursor = serializers.CharField(required=False, max_length=100, help_text="next_cursor of the previous page")
        q = serializers.CharField(required=False, min_length=1, max_length=MAX_Q, trim_whitespace=False)

    @extend_schema(operation_id="mcp_requests_list", parameters=[Query], responses=McpRequestPageSerializer)
    def get(self, request: Request) -> Response:
        query = _query(self.Query, request)
        cursor = Cursor.parse(query["cursor"]) if "cursor" in query else None
        if "q" in query and not query["q"].strip():
            raise PamError("invalid_request", "q: must contain a word.")
        page = request_page(
            workspace=self.workspace(request),
            limit=query["limit"],
            page=query["page"],
            cursor=cursor,
            q=query.get("q", ""),
        )
        return Response(McpRequestPageSerializer(page).data)


class McpRequestDetailApi(WorkspaceApi):
    @extend_schema(
        operation_id="mcp_requests_detail",
        parameters=[OpenApiParameter("request_id", str, OpenApiParameter.PATH)],
        responses=McpRequestSerializer,
    )
    def get(self, request: Request, request_id: str) -> Response:
        row = request_get(workspace=self.workspace(request), request_id=request_id)
        return Response(McpRequestSerializer(row).data)
