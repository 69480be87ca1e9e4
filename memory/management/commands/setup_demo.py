"""`make run`'s set-up step: the demo workspace, its agent key and the demo company's memory.

Idempotent: the workspace is created once (plan `unlimited`), the demo corpus imported once
(its facts encoded again if `PAM_DENSE_MODEL` changed since), and the agent key is created
once and kept in PAM_DATA_DIR/demo_agent_key (mode 0600) so a configured MCP client keeps
working across runs. If that key was rotated or revoked since, a new one is issued and stored.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from developer_api.keys import api_key_authenticate, api_key_rotate
from memory.engine import dense
from memory.engine.index import encoded_by_another_model, index_publish
from memory.models import Source, User, Workspace
from memory.services import source_import, workspace_create
from pam.private_files import read_or_create_private, write_private

DEMO_SLUG = "demo"
DEMO_EMAIL = "admin@demo.pam.local"
CORPUS = Path(settings.BASE_DIR) / "demo" / "corpus"


def _secret_file(name: str) -> Path:
    return Path(settings.PAM_DATA_DIR) / name


def _read_or_create(name: str, make: Any) -> str:
    return read_or_create_private(_secret_file(name), make)


class Command(BaseCommand):
    help = "Create the demo workspace, key and memory if missing, then print how to connect."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-import", action="store_true", help="skip importing demo/corpus")

    def handle(self, *args: Any, **options: Any) -> None:
        password = _read_or_create("demo_admin_password", lambda: secrets.token_urlsafe(12))
        workspace = Workspace.objects.filter(slug=DEMO_SLUG).first()
        if workspace is None:
            workspace = workspace_create(
                slug=DEMO_SLUG,
                name="Kestrelmark Software (demo)",
                admin_email=DEMO_EMAIL,
                admin_password=password,
                plan_name="unlimited",
            )
            user = User.objects.get(email=DEMO_EMAIL)
            user.is_superuser = True
            user.save(update_fields=["is_superuser"])

        key_path = _secret_file("demo_agent_key")
        key = key_path.read_text().strip() if key_path.exists() else ""
        stored = api_key_authenticate(key) if key else None
        if stored is None or stored.workspace_id != workspace.pk:
            key = api_key_rotate(workspace=workspace).api_key
            write_private(key_path, key + "\n")

        if not options["no_import"] and not Source.objects.filter(workspace=workspace).exists():
            imported = source_import(workspace=workspace, path=CORPUS, name="Demo company documents")
            source, run = imported.source, imported.run
            self.stdout.write(
                f"Imported the demo company: {source.documents.count()} documents, "
                f"{source.facts.count()} facts ({run.status if run else 'not run'})."
            )

        if encoded_by_another_model(workspace):
            # PAM_DENSE_MODEL changed since the demo was imported (the default became the pair):
            # its vectors are re-encoded now rather than the demo answering lexically.
            index_publish(workspace=workspace)
            self.stdout.write(f"Encoded the demo's memory again with PAM_DENSE_MODEL={dense.model_name()}.")

        url = f"{settings.PAM_PUBLIC_BASE_URL}/v1/mcp/memory"
        config = {"mcpServers": {"pam_memory": {"type": "http", "url": url, "headers": {"Authorization": key}}}}
        self.stdout.write(
            "\n".join(
                [
                    "",
                    "PAM is ready.",
                    f"  MCP URL:     {url}",
                    f"  Agent key:   {key}",
                    f"  Admin login: {settings.PAM_PUBLIC_BASE_URL}/admin/  {DEMO_EMAIL} / {password}",
                    "",
                    "Claude Code config (.mcp.json):",
                    json.dumps(config, indent=2),
                    "",
                    f"Or: claude mcp add --transport http pam_memory {url} --header \"Authorization: {key}\"",
                    "",
                ]
            )
        )
