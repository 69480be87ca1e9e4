"""Reading zip archives (uploads, Slack and Notion/Confluence exports) under limits.

An archive is untrusted input. `SafeZip` refuses, member by member, what could escape or
exhaust the server, and turns each refusal into a `Skipped` error so the rest still comes in:

- members whose names are absolute ("/etc/x", "C:\\x") or climb out ("../evil.md"): refused;
- symbolic links and encrypted members: refused; nested archives: listed, never expanded;
- a member whose size is over the per-file limit: refused before it is decompressed;
- the total expanded size of the members read is capped by the same limit
  (`PAM_MAX_UPLOAD_BYTES`): once spent, `ArchiveError` stops the archive (zip bombs);
- more than `MAX_MEMBERS` entries, or a file that is not a zip: `ArchiveError` up front.

Sizes are taken from the central directory; Python's `zipfile` never returns more bytes than
a member declares (a lying header ends in a CRC error), and reads are bounded besides.
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
import zlib
from pathlib import Path
from typing import IO, Iterator

from memory.sources.base import MAX_FILE_BYTES_DEFAULT, Skipped

MAX_MEMBERS = 20_000
NESTED_ARCHIVES = (".zip", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".7z", ".rar", ".jar")
_DRIVE = re.compile(r"^[A-Za-z]:")
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, OSError, EOFError, ValueError, NotImplementedError, RuntimeError)


class ArchiveError(Exception):
    """The archive as a whole cannot be read (any further)."""


class MemberError(Exception):
    """One member cannot be read; the others can."""


def expansion_limit() -> int:
    """PAM_MAX_UPLOAD_BYTES, for parsers of zip-based formats (DOCX) that get bytes only."""
    try:
        from django.conf import settings

        return int(settings.PAM_MAX_UPLOAD_BYTES)
    except Exception:  # noqa: BLE001 - settings not configured (a script): the documented default
        return MAX_FILE_BYTES_DEFAULT


def safe_name(name: str) -> str | None:
    """The member's path with POSIX separators, or None when it is absolute or climbs out."""
    name = name.replace("\\", "/")
    if "\x00" in name or name.startswith("/") or _DRIVE.match(name):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        return None
    return "/".join(parts)


def is_hidden(name: str) -> bool:
    """Dot files and macOS resource forks: ignored silently, as `walk` ignores dot files."""
    return name.startswith("__MACOSX/") or any(p.startswith(".") for p in name.split("/"))


def check_expansion(data: bytes, *, max_bytes: int) -> str | None:
    """Why a zip-based file (a DOCX) must not be opened, or None: too many members, or more
    expanded bytes declared than the limit. Libraries that open these files read every part."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except _ZIP_ERRORS as exc:
        return f"corrupt file (not a readable zip container: {exc})"
    if len(infos) > MAX_MEMBERS:
        return f"too many parts ({len(infos)}; the limit is {MAX_MEMBERS})"
    if sum(i.file_size for i in infos) > max_bytes:
        return f"expands beyond the {max_bytes}-byte limit"
    return None


class SafeZip:
    """A zip opened for bounded reading; use as a context manager."""

    def __init__(self, source: Path | IO[bytes], *, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.used = 0
        try:
            self._zip = zipfile.ZipFile(source)
            self._infos = self._zip.infolist()
        except _ZIP_ERRORS as exc:
            raise ArchiveError(f"corrupt archive (not a readable zip file: {exc})") from exc
        if len(self._infos) > MAX_MEMBERS:
            self._zip.close()
            raise ArchiveError(f"archive has {len(self._infos)} entries; the limit is {MAX_MEMBERS}")

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self._zip.close()

    def names(self) -> list[str]:
        """Safe, visible file names (no reading)."""
        out = []
        for info in self._infos:
            name = safe_name(info.filename)
            if name and not info.is_dir() and not is_hidden(name):
                out.append(name)
        return out

    def members(self, prefix: str = "") -> Iterator[tuple[str, zipfile.ZipInfo] | Skipped]:
        """(name, info) for each file member that may be read, in archive order; a `Skipped`
        (path = prefix + name) for each refused one."""
        for info in self._infos:
            if info.is_dir():
                continue
            name = safe_name(info.filename)
            if name is None:
                yield Skipped(prefix + info.filename, "unsafe path inside the archive (absolute or '..'): refused", error=True)
                continue
            if not name or is_hidden(name):
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                yield Skipped(prefix + name, "symbolic link inside the archive: refused", error=True)
                continue
            if info.flag_bits & 0x1:
                yield Skipped(prefix + name, "encrypted archive member: not readable", error=True)
                continue
            if name.lower().endswith(NESTED_ARCHIVES):
                yield Skipped(prefix + name, "nested archives are not expanded")
                continue
            yield name, info

    def read(self, info: zipfile.ZipInfo) -> bytes:
        """The member's bytes. MemberError: this member only; ArchiveError: the expansion
        budget is spent, stop reading the archive."""
        if info.file_size > self.max_bytes:
            raise MemberError(f"file is larger than the {self.max_bytes}-byte limit")
        if self.used + info.file_size > self.max_bytes:
            raise ArchiveError(
                f"archive expands beyond the {self.max_bytes}-byte limit; the remaining members were not read"
            )
        try:
            with self._zip.open(info) as handle:
                data = handle.read(info.file_size + 1)
        except _ZIP_ERRORS as exc:
            raise MemberError(f"corrupt archive member ({exc})") from exc
        if len(data) > info.file_size:
            raise MemberError("archive member is larger than it declares")
        self.used += len(data)
        return data

    def read_member(self, name: str, info: zipfile.ZipInfo, prefix: str = "") -> bytes | Skipped:
        """`read`, with a bad member turned into its `Skipped` error (ArchiveError propagates)."""
        try:
            data = self.read(info)
        except MemberError as exc:
            return Skipped(prefix + name, str(exc), error=True)
        if not data:
            return Skipped(prefix + name, "empty file", error=True)
        return data


def open_zip(path: Path, *, max_bytes: int, label: str) -> SafeZip | Skipped:
    """A zip given as a source's root: the on-disk file must be within the limit too."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return Skipped(label, f"could not be read: {exc.strerror or exc}", error=True)
    if size > max_bytes:
        return Skipped(label, f"file is larger than the {max_bytes}-byte limit", error=True)
    try:
        return SafeZip(path, max_bytes=max_bytes)
    except ArchiveError as exc:
        return Skipped(label, str(exc), error=True)
