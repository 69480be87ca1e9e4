"""manage.py create_plan and set_plan (SPEC §3.2): operators manage plans from the shell."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from developer_api.models import Plan
from memory.models import Workspace


def test_create_plan_stores_the_limits(db: None) -> None:
    out = StringIO()
    call_command("create_plan", "team", "--weekly", "50", "--monthly", "-1", "--hourly", "10", stdout=out)
    plan = Plan.objects.get(name="team")
    assert (plan.weekly_limit, plan.monthly_limit, plan.hourly_limit, plan.enabled) == (50, -1, 10, True)
    assert "Created plan team" in out.getvalue()


def test_create_plan_fails_when_the_plan_exists(db: None) -> None:
    call_command("create_plan", "team", "--weekly", "1", "--monthly", "1", "--hourly", "1")
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_plan", "team", "--weekly", "2", "--monthly", "2", "--hourly", "2")
    assert Plan.objects.get(name="team").weekly_limit == 1


def test_create_plan_refuses_limits_below_minus_one(db: None) -> None:
    with pytest.raises(CommandError, match="--hourly"):
        call_command("create_plan", "team", "--weekly", "1", "--monthly", "1", "--hourly", "-5")
    assert not Plan.objects.filter(name="team").exists()


def test_create_plan_exits_1_from_the_shell(db: None) -> None:
    call_command("create_plan", "team", "--weekly", "1", "--monthly", "1", "--hourly", "1")
    with pytest.raises(SystemExit) as exit_info:
        from django.core.management import ManagementUtility

        ManagementUtility(["manage.py", "create_plan", "team", "--weekly", "1", "--monthly", "1", "--hourly", "1"]).execute()
    assert exit_info.value.code == 1


def test_set_plan_moves_a_workspace(workspace: Workspace) -> None:
    call_command("set_plan", "--workspace", "acme", "paid", stdout=StringIO())
    workspace.refresh_from_db()
    assert workspace.plan.name == "paid"


@pytest.mark.parametrize("slug, plan, message", [("nope", "paid", "Unknown workspace"), ("acme", "gold", "Unknown plan")])
def test_set_plan_names_what_is_unknown(workspace: Workspace, slug: str, plan: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("set_plan", "--workspace", slug, plan)


def test_the_migrations_create_paid_and_unlimited(db: None) -> None:
    paid = Plan.objects.get(name="paid")
    assert (paid.weekly_limit, paid.monthly_limit, paid.hourly_limit) == (300, 1000, 100)
    assert Plan.objects.get(name="unlimited").monthly_limit == -1
