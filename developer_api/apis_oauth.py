"""Developer API: browser OAuth connections (SPEC §3 `oauth-connections`, §4).

One connection per refresh-token family, listed newest first; revoking one revokes the
family at once, so the MCP endpoint refuses its next call.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from developer_api.apis import WorkspaceApi
from developer_api.serializers import OAuthConnectionListSerializer, RevokedConnectionSerializer
from oauth.connections import connection_get, connection_list, connection_revoke


class OAuthConnectionListApi(WorkspaceApi):
    """GET /v1/dev/oauth-connections → {"items": [connection, ...]}."""

    @extend_schema(operation_id="oauth_connections_list", responses=OAuthConnectionListSerializer)
    def get(self, request: Request) -> Response:
        connections = connection_list(workspace=self.workspace(request))
        return Response(OAuthConnectionListSerializer({"items": connections}).data)


class OAuthConnectionRevokeApi(WorkspaceApi):
    """POST /v1/dev/oauth-connections/{id}/revoke → {"revoked": true, "id": 42}."""

    @extend_schema(operation_id="oauth_connections_revoke", request=None, responses=RevokedConnectionSerializer)
    def post(self, request: Request, connection_id: int) -> Response:
        connection = connection_get(workspace=self.workspace(request), connection_id=connection_id)
        connection_revoke(connection=connection)
        return Response(RevokedConnectionSerializer({"revoked": True, "id": connection.pk}).data)
