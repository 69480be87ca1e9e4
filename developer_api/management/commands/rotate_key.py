"""python manage.py rotate_key --workspace SLUG: prints the new key alone on one stdout line."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from developer_api.keys import api_key_rotate
from memory.models import Workspace


class Command(BaseCommand):
    help = "Issue a new agent key for a workspace (revoking the old one) and print it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"Unknown workspace {options['workspace']!r}.")
        issued = api_key_rotate(workspace=workspace)
        self.stdout.write(issued.api_key)
