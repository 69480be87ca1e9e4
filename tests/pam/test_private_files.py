"""The data directory is private (issue 17 defect 5): 0700, and every file in it 0600 from the
start, whatever the umask PAM was started with."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from memory.models import Workspace
from pam.private_files import private_dir, read_or_create_private, write_private
from tests.developer_api.conftest import access_token

REPO = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def manage(data_dir: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    env["PAM_DATA_DIR"] = str(data_dir)
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: os.umask(0o022),  # a usual login shell's umask
    )
    assert result.returncode == 0, result.stderr


def test_a_fresh_install_creates_a_private_data_directory(tmp_path: Path) -> None:
    data_dir = tmp_path / "nested" / "var"
    manage(data_dir, "migrate", "--noinput", "-v", "0")
    manage(data_dir, "setup_demo", "--no-import")

    assert mode(data_dir) == 0o700
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"pam.sqlite3", "secret_key", "demo_agent_key", "demo_admin_password"} <= names
    assert {p.name: oct(mode(p)) for p in files} == {p.name: oct(0o600) for p in files}
    assert all(mode(p) == 0o700 for p in data_dir.rglob("*") if p.is_dir())


def test_an_existing_data_directory_open_to_others_is_closed(tmp_path: Path) -> None:
    data_dir = tmp_path / "var"
    data_dir.mkdir()
    data_dir.chmod(0o755)

    private_dir(data_dir)

    assert mode(data_dir) == 0o700


def test_a_secret_file_is_created_0600_whatever_the_umask(tmp_path: Path) -> None:
    tmp_path = tmp_path / "secrets"
    tmp_path.mkdir()
    previous = os.umask(0)
    try:
        value = read_or_create_private(tmp_path / "secret", lambda: "s3cret")
        write_private(tmp_path / "other", "x")
    finally:
        os.umask(previous)

    assert value == "s3cret"
    assert mode(tmp_path / "secret") == 0o600
    assert mode(tmp_path / "other") == 0o600
    assert read_or_create_private(tmp_path / "secret", lambda: "another") == "s3cret"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other", "secret"]  # no temporary left


def test_uploads_and_indexes_are_private(
    client: Client, workspace: Workspace, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the service run starts no worker here
    auth = {"Authorization": f"Bearer {access_token(client)}"}
    upload = SimpleUploadedFile("notes.md", b"# Notes\n\nThe Atlas project is green.\n", content_type="text/markdown")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/v1/dev/sources", {"file": upload}, headers=auth)

    assert response.status_code == 201, response.content
    data_dir = Path(settings.PAM_DATA_DIR)
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert any(p.name == "notes.md" for p in files) and any("indexes" in p.parts for p in files)
    assert {str(p.relative_to(data_dir)): oct(mode(p)) for p in files} == {
        str(p.relative_to(data_dir)): oct(0o600) for p in files
    }
    assert {oct(mode(p)) for p in data_dir.rglob("*") if p.is_dir()} == {oct(0o700)}
