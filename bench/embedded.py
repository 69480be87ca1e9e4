"""Shared by the agent-memory benches: a throwaway embedded PAM (its own data directory and
SQLite database, migrated) and a `tools/call` through the real MCP endpoint."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


@contextmanager
def embedded_pam(prefix: str) -> Iterator[Path]:
    """Set up Django on a fresh data directory (removed afterwards) and migrate it."""
    data = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ["PAM_DATA_DIR"] = str(data)
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pam.settings")
    try:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        yield data
    finally:
        shutil.rmtree(data, ignore_errors=True)


def tool_call(client: Any, key: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The `result` of one `tools/call` through Django's test client `client`."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    response = client.post("/v1/mcp/memory", data=json.dumps(body), content_type="application/json",
                           headers={"Authorization": key})
    return dict(response.json()["result"])
