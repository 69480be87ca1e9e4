"""python manage.py export_memory --workspace SLUG [--output FILE] [--include-forgotten]
[--include-expired]: every agent memory of the workspace as JSON Lines (issue 14), the
operator's view (every bucket, `private` ones included), through the same functions as
`GET /v1/memory/export`. Without --output the lines go to stdout; the count to stderr."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.agent_memory.browse import MemoryFilters, memory_rows
from memory.agent_memory.jsonl import memory_export_lines
from memory.models import Workspace


class Command(BaseCommand):
    help = "Export a workspace's agent memories as JSON Lines."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True)
        parser.add_argument("--output", help="file to write (default: stdout)")
        parser.add_argument("--include-forgotten", action="store_true")
        parser.add_argument("--include-expired", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"Unknown workspace {options['workspace']!r}.")
        filters = MemoryFilters(include_forgotten=options["include_forgotten"], include_expired=options["include_expired"])
        rows = memory_rows(workspace=workspace, viewer=None, filters=filters)
        count = 0
        out = Path(options["output"]).open("w", encoding="utf-8") if options["output"] else None
        try:
            for line in memory_export_lines(rows):
                if out is not None:
                    out.write(line)
                else:
                    self.stdout.write(line, ending="")
                count += 1
        finally:
            if out is not None:
                out.close()
        where = options["output"] or "stdout"
        sys.stderr.write(f"Exported {count} memories of {workspace.slug} to {where}.\n")
