"""python manage.py create_workspace SLUG --admin-email EMAIL --admin-password PASSWORD
[--plan NAME] [--exists-ok] (SPEC §7)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_email, validate_slug
from django.core.exceptions import ValidationError

from memory.models import Workspace
from memory.services import workspace_create
from pam.errors import PamError


class Command(BaseCommand):
    help = "Create a workspace and its first admin user."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--admin-email", required=True)
        parser.add_argument("--admin-password", required=True)
        parser.add_argument("--plan", default="paid")
        parser.add_argument("--name", default="")
        parser.add_argument("--exists-ok", action="store_true", help="exit 0 and change nothing if it exists")

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["slug"]
        try:
            validate_slug(slug)
            validate_email(options["admin_email"])
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        if options["exists_ok"] and Workspace.objects.filter(slug=slug).exists():
            self.stdout.write(f"Workspace {slug!r} already exists; nothing changed.")
            return
        try:
            workspace = workspace_create(
                slug=slug,
                admin_email=options["admin_email"],
                admin_password=options["admin_password"],
                plan_name=options["plan"],
                name=options["name"],
            )
        except PamError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"Created workspace {workspace.slug!r} (plan {workspace.plan.name}).")
