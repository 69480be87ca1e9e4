"""Developer API: browser OAuth connections (SPEC §3 `oauth-connections`, §4).

One connection per refresh-token family, listed newest first; revoking one revokes the
family at once, so the MCP endpoint refuses its next call.
"""

from __future__ import annotations

from datetime import datetime

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from developer_api.apis import WorkspaceApi
from oauth.connections import connection_get, connection_list, connection_revoke
from oauth.models import OAuthConnection


class IsoDateTimeField(serializers.Field):  # type: ignore[type-arg]
    """ISO 8601 with its UTC offset ("+00:00", SPEC §3), where DRF would write "Z"."""

    def to_representation(self, value: datetime) -> str:
        return value.isoformat()


class OAuthConnectionOutputSerializer(serializers.Serializer[OAuthConnection]):
    id = serializers.IntegerField()
    client_id = serializers.CharField()
    client_name = serializers.CharField()
    scope = serializers.CharField()
    created_at = IsoDateTimeField()
    expires_at = IsoDateTimeField()
    last_used_at = IsoDateTimeField(allow_null=True)
    revoked_at = IsoDateTimeField(allow_null=True)
    status = serializers.CharField()


class OAuthConnectionListApi(WorkspaceApi):
    """GET /v1/dev/oauth-connections → {"items": [connection, ...]}."""

    def get(self, request: Request) -> Response:
        connections = connection_list(workspace=self.workspace(request))
        return Response({"items": [OAuthConnectionOutputSerializer(c).data for c in connections]})


class OAuthConnectionRevokeApi(WorkspaceApi):
    """POST /v1/dev/oauth-connections/{id}/revoke → {"revoked": true, "id": 42}."""

    def post(self, request: Request, connection_id: int) -> Response:
        connection = connection_get(workspace=self.workspace(request), connection_id=connection_id)
        connection_revoke(connection=connection)
        return Response({"revoked": True, "id": connection.pk})
