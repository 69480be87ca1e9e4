"""python manage.py rotate_key --workspace SLUG [--scope S]... [--bucket B]... [--team T]...:
prints the new key alone on one stdout line. Without --scope the key has both scopes; without
--bucket/--team it sees every bucket and team (SPEC §2.4)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from developer_api.keys import api_key_rotate
from developer_api.models import SCOPE_READ, SCOPE_WRITE
from memory.models import BUCKET_PATTERN, Workspace

MAX_TEAM_CHARS = 100


class Command(BaseCommand):
    help = "Issue a new agent key for a workspace (revoking the old one) and print it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True)
        parser.add_argument(
            "--scope", action="append", choices=[SCOPE_READ, SCOPE_WRITE], help="repeat for several (default: both)"
        )
        parser.add_argument("--bucket", action="append", help="an agent-memory bucket the key sees (default: all)")
        parser.add_argument("--team", action="append", help="a team the key sees (default: all)")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"Unknown workspace {options['workspace']!r}.")
        for bucket in options["bucket"] or []:
            if not BUCKET_PATTERN.match(bucket):
                raise CommandError(f"Invalid bucket {bucket!r}: lower-case letters, digits, '_' or '-'.")
        for team in options["team"] or []:
            if not team.strip() or len(team) > MAX_TEAM_CHARS:
                raise CommandError(f"Invalid team {team!r}: 1 to {MAX_TEAM_CHARS} characters.")
        issued = api_key_rotate(
            workspace=workspace, scopes=options["scope"], buckets=options["bucket"], teams=options["team"]
        )
        self.stdout.write(issued.api_key)
