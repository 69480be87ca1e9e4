"""python manage.py import_source --workspace SLUG PATH [--kind KIND] [--name NAME] (SPEC §7).

Runs the sync in-process (the same pipeline code as the Celery task) with a progress bar on
stderr. Importing the same PATH again re-syncs that source. Exit 0 when the run completed
(per-document problems are listed), 1 when it failed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from memory.models import PipelineRun, Workspace
from memory.services import source_import
from memory.sources.registry import kind_names
from pam.errors import PamError


class Command(BaseCommand):
    help = "Import (or re-sync) a folder or file of documents into a workspace's memory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path")
        parser.add_argument("--workspace", required=True)
        parser.add_argument("--kind", default="auto", choices=kind_names())
        parser.add_argument("--name", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"Unknown workspace {options['workspace']!r}.")
        path = Path(options["path"]).expanduser().resolve()
        if not path.exists():
            raise CommandError(f"{path} does not exist.")
        bar = tqdm(total=0, unit="doc", file=sys.stderr, desc="import", disable=None)

        def progress(current: PipelineRun) -> None:
            bar.total = current.progress_total
            bar.n = current.progress_done
            bar.set_description(current.stage)
            bar.refresh()

        try:
            imported = source_import(
                workspace=workspace, path=path, kind=options["kind"], name=options["name"], progress=progress
            )
        except PamError as exc:
            raise CommandError(exc.message) from exc
        finally:
            bar.close()
        source, created, finished = imported.source, imported.created, imported.run
        if finished is None:
            raise CommandError("The run disappeared (its source was deleted meanwhile).")
        if finished.status == PipelineRun.Status.QUEUED:
            raise CommandError(
                f"Another sync of this source is running; run {finished.pk} is queued and starts when it ends."
            )
        run = finished
        verb = "Imported" if created else "Re-synced"
        for skipped in run.skipped:
            self.stdout.write(f"skipped {skipped['document']}: {skipped['reason']}")
        for error in run.errors:
            self.stdout.write(f"error {error['document'] or '(run)'}: {error['message']}")
        source.refresh_from_db()
        docs = source.documents.count()
        facts = source.facts.count()
        if run.status != PipelineRun.Status.COMPLETED:
            self.stderr.write(f"Import of {path} failed (run {run.pk}).")
            sys.exit(1)
        self.stdout.write(
            f"{verb} {path} into {workspace.slug!r}: {docs} documents, {facts} facts "
            f"(run {run.pk}, {len(run.skipped)} skipped, {len(run.errors)} errors)."
        )
