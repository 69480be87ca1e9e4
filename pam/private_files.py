"""The data directory is the installation's alone (SPEC §7 PAM_DATA_DIR): created 0700, and
every file in it created 0600 from the first byte, never chmod-ed after writing.

`PRIVATE_UMASK` is applied process-wide by pam/settings.py, so the SQLite file and its WAL,
uploads, indexes and everything libraries create are private too; the helpers below also
pass the mode explicitly, so they hold whatever the umask.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Callable

PRIVATE_UMASK = 0o077
DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) 0700; an existing one loses group/other access."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o077:
        path.chmod(DIR_MODE)  # a data directory left by an older install
    return path


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path`, created 0600 when new (opened with the mode, not chmod-ed)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(descriptor, "w") as out:
        out.write(text)


def read_or_create_private(path: Path, make: Callable[[], str]) -> str:
    """The stripped text of `path`; when missing, `make()` written to a 0600 file first.

    Safe when several processes start at once: the value goes to a private temporary file
    that is hard-linked into place (which never replaces an existing file), so every process
    reads the same complete value."""
    if not path.exists():
        temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        try:
            with os.fdopen(descriptor, "w") as out:
                out.write(make() + "\n")
            try:
                os.link(temporary, path)
            except FileExistsError:
                pass  # another process won the race: use its value
        finally:
            temporary.unlink()
    return path.read_text().strip()

