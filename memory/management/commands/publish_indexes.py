"""`manage.py publish_indexes [SLUG ...]`: publish a new index version of each workspace named
(of every workspace that has one, without a name), from its rows. After `PAM_DENSE_MODEL`
changes, a version the former model wrote is served by lexical retrieval alone
(memory/engine/index.py, `index_for`) until it is published again, which encodes every fact
with the new model; this command does that once for all, instead of waiting for each
workspace's next sync (docs/configuration.md)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.engine.index import index_publish
from memory.models import IndexVersion, Workspace


class Command(BaseCommand):
    help = "Publish a new index version (and vectors) of the workspaces named, or of every indexed one."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slugs", nargs="*", metavar="SLUG")

    def handle(self, *args: Any, **options: Any) -> None:
        slugs: list[str] = options["slugs"]
        if slugs:
            workspaces = list(Workspace.objects.filter(slug__in=slugs).order_by("slug"))
            unknown = sorted(set(slugs) - {w.slug for w in workspaces})
            if unknown:
                raise CommandError(f"no workspace {', '.join(unknown)}")
        else:
            indexed = IndexVersion.objects.filter(status=IndexVersion.Status.PUBLISHED).values("workspace")
            workspaces = list(Workspace.objects.filter(pk__in=indexed).order_by("slug"))
        for workspace in workspaces:
            start = time.perf_counter()
            version = index_publish(workspace=workspace)
            self.stdout.write(
                f"{workspace.slug}: version {version.version} published in {time.perf_counter() - start:.1f} s"
            )
        if not workspaces:
            self.stdout.write("no workspace has an index to publish")
