"""Plans as data operators edit (SPEC §3.2): create one, move a workspace onto one.

Used by `manage.py create_plan` / `set_plan`; the admin edits the same rows.
"""

from __future__ import annotations

from developer_api.models import UNLIMITED, Plan
from memory.models import Workspace
from pam.errors import PamError


def _limit(name: str, value: int) -> int:
    if value < UNLIMITED:
        raise PamError("invalid_request", f"{name}: must be -1 (unlimited) or a count of 0 or more.")
    return value


def plan_create(*, name: str, weekly: int, monthly: int, hourly: int, enabled: bool = True) -> Plan:
    name = name.strip()
    if not name or len(name) > Plan._meta.get_field("name").max_length:  # type: ignore[operator]
        raise PamError("invalid_request", "name: 1 to 64 characters.")
    if Plan.objects.filter(name=name).exists():
        raise PamError("plan_exists", f"Plan {name!r} already exists.")
    return Plan.objects.create(
        name=name,
        weekly_limit=_limit("--weekly", weekly),
        monthly_limit=_limit("--monthly", monthly),
        hourly_limit=_limit("--hourly", hourly),
        enabled=enabled,
    )


def plan_set(*, workspace_slug: str, plan_name: str) -> Workspace:
    workspace = Workspace.objects.filter(slug=workspace_slug).first()
    if workspace is None:
        raise PamError("not_found", f"Unknown workspace {workspace_slug!r}.")
    plan = Plan.objects.filter(name=plan_name).first()
    if plan is None:
        known = ", ".join(Plan.objects.order_by("name").values_list("name", flat=True))
        raise PamError("not_found", f"Unknown plan {plan_name!r} (known plans: {known}).")
    workspace.plan = plan
    workspace.save(update_fields=["plan"])
    return workspace
