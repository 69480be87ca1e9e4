"""A folder (or single file) of documents: each file goes to the kind that reads its type
(`base.walk`); files of other types are listed as skipped, never a failed import. The kinds by
name are `registry`.

`auto` (and `folder`, and `git`, which walks a working tree: `.git/` is a dot folder, and dot
files and folders are never read) picks by file type and by layout:

- a folder holding `users.json` and `channels.json` is a Slack export (at the top or below);
- a `.zip` is a Slack export when it holds those two files, else a Notion/Confluence-style
  export of documents;
- an `.mbox` file is a mailbox; `.eml` files are single messages;
- other files go to the kind of their extension (Markdown, text, HTML, PDF, DOCX, CSV, JSON).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from memory.sources import export, slack
from memory.sources.base import FileKind, Item, Skipped, walk
from memory.sources.mail import MboxKind


def file_kinds() -> list[Any]:
    """Every kind that reads files by extension, in the order `auto` tries them."""
    return [*export.member_kinds(), MboxKind(), ZipKind()]


class ZipKind(FileKind):
    """A .zip met in a folder (or given as the source): Slack export or document export."""

    name = "zip"
    extensions = (".zip",)

    def iter_file(self, path: Path, relpath: str, *, max_bytes: int) -> Iterator[Item]:
        prefix = f"{relpath}/" if relpath else ""
        label = relpath or path.name
        if slack.is_slack_zip(path, max_bytes=max_bytes):
            yield from slack.iter_zip(path, max_bytes=max_bytes, prefix=prefix, label=label)
        else:
            yield from export.iter_zip(path, max_bytes=max_bytes, prefix=prefix, label=label)

    def parse(self, relpath: str, data: bytes) -> Item:
        return Skipped(relpath, "a zip archive is read from disk, not from bytes", error=True)


class FolderKind:
    """`auto`, `folder` and `git`: every kind, by file type and folder layout."""

    def __init__(self, name: str = "folder") -> None:
        self.name = name

    def handles(self, path: Path) -> bool:
        return path.is_dir()

    def iter_documents(self, root: Path, *, max_bytes: int) -> Iterator[Item]:
        if root.is_file() and root.suffix.lower() == ".zip":
            # The archive is the source: its members' paths are the documents' paths.
            yield from ZipKind().iter_file(root, "", max_bytes=max_bytes)
            return
        yield from walk(root, max_bytes=max_bytes, kinds=file_kinds(), layout=slack.ExportFolder())
