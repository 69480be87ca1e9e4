"""python manage.py create_plan NAME --weekly N --monthly N --hourly N [--disabled] (SPEC §3.2).

-1 means unlimited; exits 1 when the plan exists.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from developer_api.plans import plan_create
from pam.errors import PamError


class Command(BaseCommand):
    help = "Create a plan with weekly, monthly and hourly retrieve_memory limits (-1 = unlimited)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--weekly", type=int, required=True)
        parser.add_argument("--monthly", type=int, required=True)
        parser.add_argument("--hourly", type=int, required=True)
        parser.add_argument("--disabled", action="store_true", help="create it without entitlement")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            plan = plan_create(
                name=options["name"],
                weekly=options["weekly"],
                monthly=options["monthly"],
                hourly=options["hourly"],
                enabled=not options["disabled"],
            )
        except PamError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(
            f"Created plan {plan.name}: weekly {plan.weekly_limit}, monthly {plan.monthly_limit}, "
            f"hourly {plan.hourly_limit}."
        )
