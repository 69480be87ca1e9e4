"""The one domain error: code + human message, mapped to each surface at its edge (DESIGN §3.10).

Services raise `PamError` (or one of the subclasses below when the edge must tell them apart:
the MCP request log records entitlement and quota refusals as their own outcomes, SPEC §2.2).
"""

from __future__ import annotations


class PamError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class EntitlementRequired(PamError):
    """The workspace or its plan is disabled (SPEC §2.3 `entitlement_required`)."""

    MESSAGE = (
        "This workspace has no active entitlement: its plan or the workspace is disabled. "
        "Renew the plan to use company memory."
    )

    def __init__(self, message: str = MESSAGE) -> None:
        super().__init__("entitlement_required", message)


class QuotaExceeded(PamError):
    """A limit of SPEC §3.2 is hit; the message names the window and when it resets."""

    def __init__(self, message: str) -> None:
        super().__init__("quota_exceeded", message)


class DeadlineExceeded(PamError):
    """The call ran past `PAM_RETRIEVAL_TIMEOUT_S` (SPEC §2.3 `retrieval_timeout`)."""

    MESSAGE = "Retrieval took longer than the configured limit. Narrow the prompt and retry."

    def __init__(self, message: str = MESSAGE) -> None:
        super().__init__("retrieval_timeout", message)


class FieldErrors(PamError):
    """Invalid arguments, field by field (SPEC §2.4): `errors` is `[{"field", "message"}]`;
    the message names the first. Over MCP an `isError` result, over /v1/memory HTTP 422."""

    CODE = "invalid_arguments"

    def __init__(self, errors: list[dict[str, str]]) -> None:
        first = errors[0] if errors else {"field": "", "message": "invalid"}
        where = f"'{first['field']}' " if first["field"] else ""
        super().__init__(self.CODE, f"Invalid arguments: {where}{first['message']}")
        self.errors = errors
