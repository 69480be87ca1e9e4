"""Who is calling the MCP endpoint: an agent key or (SPEC §4) an OAuth access token.

Both kinds resolve to one `Credential`; the PAM access JWT of the Developer API is neither and
is refused here (SPEC §2.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from developer_api.keys import KEY_PREFIX, api_key_authenticate
from developer_api.models import SCOPE_READ, AgentKey
from memory.models import Workspace
from oauth.connections import access_token_authenticate


@dataclass
class Credential:
    workspace: Workspace
    kind: str  # "agent_key" | "oauth"
    label: str  # key prefix, or "oauth:<connection id>" (never the secret)
    scopes: frozenset[str]
    agent_key: AgentKey | None = None
    # SPEC §2.4: the agent-memory buckets and teams it sees (an OAuth connection: its user's);
    # empty = all.
    buckets: frozenset[str] = frozenset()
    teams: frozenset[str] = frozenset()
    # SPEC §3.2 counts agents' retrieve_memory calls; the dashboard's "try a prompt" does not.
    counts_quota: bool = True


DASHBOARD_LABEL = "dashboard:{id}"


def dashboard_credential(*, workspace: Workspace, user_id: int, buckets: frozenset[str], teams: frozenset[str]) -> Credential:
    """The signed-in admin trying a prompt from the dashboard (issue 15): logged with the
    credential `dashboard:<user id>` like any call, never counted against the quota and never
    verifying an agent key (it has none). It sees what that user sees."""
    return Credential(
        workspace=workspace,
        kind="dashboard",
        label=DASHBOARD_LABEL.format(id=user_id),
        scopes=frozenset({SCOPE_READ}),
        buckets=buckets,
        teams=teams,
        counts_quota=False,
    )


def credential_from_header(header: str) -> Credential | None:
    value = header.strip()
    if value[:7].lower() == "bearer ":
        value = value[7:].strip()
    if not value:
        return None
    if value.startswith(KEY_PREFIX):
        key = api_key_authenticate(value)
        if key is None:
            return None
        return Credential(
            workspace=key.workspace,
            kind="agent_key",
            label=key.key_prefix,
            scopes=frozenset(key.scopes),
            agent_key=key,
            buckets=frozenset(key.buckets or []),
            teams=frozenset(key.teams or []),
        )
    grant = access_token_authenticate(value)
    if grant is None:
        return None
    return Credential(
        workspace=grant.workspace,
        kind="oauth",
        label=grant.connection_label,
        scopes=grant.scopes,
        buckets=grant.buckets,
        teams=grant.teams,
    )
