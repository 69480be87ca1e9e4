"""python manage.py set_plan --workspace SLUG NAME: move a workspace onto a plan (SPEC §3.2)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from developer_api.plans import plan_set
from pam.errors import PamError


class Command(BaseCommand):
    help = "Put a workspace on a plan."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True)
        parser.add_argument("name")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            workspace = plan_set(workspace_slug=options["workspace"], plan_name=options["name"])
        except PamError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"Workspace {workspace.slug} is on plan {workspace.plan.name}.")
