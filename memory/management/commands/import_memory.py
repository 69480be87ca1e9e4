"""python manage.py import_memory --workspace SLUG FILE: import JSON Lines of agent memories
(an export of `export_memory` or of `GET /v1/memory/export`) through the same function as
`POST /v1/memory/import` (upsert by reference or semantic_key, the capture policy on every
line), as the operator: every bucket, and each line keeps the credential that wrote it. Prints
the report; exit 1 when a line failed or was refused. FILE "-" reads stdin."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.agent_memory.jsonl import memory_import
from memory.agent_memory.services import Writer
from memory.models import Workspace

SHELL_WRITER = Writer(label="shell", kind="shell", request_id="")


class Command(BaseCommand):
    help = "Import JSON Lines of agent memories into a workspace."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--workspace", required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"Unknown workspace {options['workspace']!r}.")
        try:
            stream = sys.stdin.buffer if options["file"] == "-" else open(options["file"], "rb")
        except OSError as exc:
            raise CommandError(f"Cannot read {options['file']!r}: {exc.strerror}.") from exc
        with stream:
            report = memory_import(workspace=workspace, viewer=None, writer=SHELL_WRITER, lines=stream)
        self.stdout.write(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
        if report.failed or report.refused:
            raise CommandError(f"{report.failed} line(s) failed and {report.refused} were refused (see the report).")
