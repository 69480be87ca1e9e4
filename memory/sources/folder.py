"""A folder (or single file) of documents: each file goes to the kind that reads its type;
files of other types are listed as skipped, never a failed import.

`auto` (and `folder`, and `git`, which walks a working tree: `.git/` is a dot folder, and dot
files and folders are never read) picks by file type and by layout:

- a folder holding `users.json` and `channels.json` is a Slack export (at the top or below);
- a `.zip` is a Slack export when it holds those two files, else a Notion/Confluence-style
  export of documents;
- an `.mbox` file is a mailbox; `.eml` files are single messages;
- other files go to the kind of their extension (Markdown, text, HTML, PDF, DOCX, CSV, JSON).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Sequence

from memory.sources.base import FileKind, Item, Skipped


def file_kinds() -> list[Any]:
    """Every kind that reads files by extension, in the order `auto` tries them."""
    from memory.sources.export import member_kinds
    from memory.sources.mail import MboxKind

    return [*member_kinds(), MboxKind(), ZipKind()]


def _units(root: Path, layouts: bool) -> Iterator[tuple[Path, str, bool]]:
    """(path, relpath, is a Slack export folder) in a stable order, one folder at a time: the
    tree is never listed whole (20,000 paths held at once cost 7 MB during a sync)."""
    from memory.sources import slack

    if root.is_file():
        yield root, root.name, False
        return
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        here = Path(dirpath)
        if layouts and slack.USERS in filenames and slack.CHANNELS in filenames:
            dirnames[:] = []
            yield here, "" if here == root else here.relative_to(root).as_posix(), True
            continue
        prefix = "" if here == root else here.relative_to(root).as_posix() + "/"
        for filename in sorted(f for f in filenames if not f.startswith(".")):
            yield here / filename, prefix + filename, False


def walk(
    root: Path, *, max_bytes: int, kinds: Sequence[Any] | None = None, layouts: bool = False
) -> Iterator[Item]:
    """Every file under `root` (or `root` itself) handed to the first kind that handles it.
    With `layouts`, a folder that is a Slack export is read as one (see the module's note)."""
    from memory.sources import slack

    kinds = list(kinds or file_kinds())
    root = root.resolve()
    for full, relpath, is_slack in _units(root, layouts):
        if is_slack:
            yield from slack.iter_folder(full, max_bytes=max_bytes, prefix=f"{relpath}/" if relpath else "")
            continue
        kind = next((k for k in kinds if k.handles(full)), None)
        if kind is None:
            yield Skipped(relpath, f"unsupported file type {full.suffix or '(none)'}")
            continue
        if full.is_symlink():
            yield Skipped(relpath, "symbolic links are not followed")
            continue
        try:
            size = full.stat().st_size
        except OSError as exc:
            yield Skipped(relpath, f"could not be read: {exc.strerror or exc}", error=True)
            continue
        if size > max_bytes:
            yield Skipped(relpath, f"file is larger than the {max_bytes}-byte limit", error=True)
            continue
        if size == 0:
            yield Skipped(relpath, "empty file", error=True)
            continue
        try:
            yield from kind.iter_file(full, relpath, max_bytes=max_bytes)
        except Exception as exc:  # noqa: BLE001 - one bad file never stops the walk
            yield Skipped(relpath, f"could not be parsed ({type(exc).__name__}: {exc})"[:300], error=True)


class ZipKind(FileKind):
    """A .zip met in a folder (or given as the source): Slack export or document export."""

    name = "zip"
    extensions = (".zip",)

    def iter_file(self, path: Path, relpath: str, *, max_bytes: int) -> Iterator[Item]:
        from memory.sources import export, slack

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
        yield from walk(root, max_bytes=max_bytes, layouts=True)


def kind_for(name: str) -> Any:
    from memory.sources.docx import DocxKind
    from memory.sources.export import ExportKind
    from memory.sources.html import HtmlKind
    from memory.sources.jsondoc import JsonKind
    from memory.sources.mail import EmailKind, MboxKind
    from memory.sources.markdown import MarkdownKind
    from memory.sources.pdf import PdfKind
    from memory.sources.push import PushKind
    from memory.sources.slack import SlackKind
    from memory.sources.tabular import CsvKind
    from memory.sources.text import TextKind

    table: dict[str, Any] = {
        "auto": lambda: FolderKind("auto"),
        "folder": lambda: FolderKind("folder"),
        "git": lambda: FolderKind("git"),
        "markdown": MarkdownKind,
        "text": TextKind,
        "html": HtmlKind,
        "pdf": PdfKind,
        "docx": DocxKind,
        "csv": CsvKind,
        "json": JsonKind,
        "email": EmailKind,
        "mbox": MboxKind,
        "slack": SlackKind,
        "notion": lambda: ExportKind("notion"),
        "confluence": lambda: ExportKind("confluence"),
        # Pushed over REST only (POST /v1/dev/sources/{id}/items), so not in kind_names().
        "items": PushKind,
    }
    if name not in table:
        raise KeyError(name)
    return table[name]()


def kind_names() -> list[str]:
    return [
        "auto", "folder", "git", "markdown", "text", "html", "pdf", "docx", "csv", "json",
        "email", "mbox", "slack", "notion", "confluence",
    ]  # fmt: skip
