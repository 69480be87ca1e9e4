"""python manage.py export_context --workspace SLUG OUT_DIR: the context tree as a folder of
Markdown files, `company_context/<area>/<topic>.md` (and an `index.md` per area)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.models import Section, Workspace


class Command(BaseCommand):
    help = "Write a workspace's context markdown documents into a folder."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out_dir")
        parser.add_argument("--workspace", required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"Unknown workspace {options['workspace']!r}.")
        out = Path(options["out_dir"]).resolve()
        count = 0
        for section in Section.objects.filter(workspace=workspace).exclude(markdown=""):
            target = (out / section.file_path).resolve()
            if out not in target.parents:
                continue  # file paths are slugs; never write outside the folder
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(section.markdown)
            count += 1
        self.stdout.write(f"Wrote {count} context documents under {out / 'company_context'}.")
