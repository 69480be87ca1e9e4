"""A folder (or single file) of documents: each file goes to the kind that reads its type;
files of other types are listed as skipped, never a failed import."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Sequence

from memory.sources.base import Item, Skipped


def _kinds() -> list[Any]:
    from memory.sources.markdown import MarkdownKind
    from memory.sources.text import TextKind

    return [MarkdownKind(), TextKind()]


def walk(root: Path, *, max_bytes: int, kinds: Sequence[Any] | None = None) -> Iterator[Item]:
    kinds = list(kinds or _kinds())
    root = root.resolve()
    if root.is_file():
        files = [(root, root.name)]
    else:
        files = []
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                if filename.startswith("."):
                    continue
                full = Path(dirpath) / filename
                files.append((full, full.relative_to(root).as_posix()))
    for full, relpath in files:
        kind = next((k for k in kinds if k.handles(full)), None)
        if kind is None:
            yield Skipped(relpath, f"unsupported file type {full.suffix or '(none)'}")
            continue
        if full.is_symlink():
            yield Skipped(relpath, "symbolic links are not followed")
            continue
        try:
            size = full.stat().st_size
            if size > max_bytes:
                yield Skipped(relpath, f"file is larger than the {max_bytes}-byte limit", error=True)
                continue
            if size == 0:
                yield Skipped(relpath, "empty file", error=True)
                continue
            data = full.read_bytes()
        except OSError as exc:
            yield Skipped(relpath, f"could not be read: {exc.strerror or exc}", error=True)
            continue
        yield kind.parse(relpath, data)


class FolderKind:
    """`auto` for a path: Markdown and plain text by file type."""

    name = "folder"

    def handles(self, path: Path) -> bool:
        return path.is_dir()

    def iter_documents(self, root: Path, *, max_bytes: int) -> Iterator[Item]:
        yield from walk(root, max_bytes=max_bytes)


def kind_for(name: str) -> Any:
    from memory.sources.markdown import MarkdownKind
    from memory.sources.text import TextKind

    table = {"auto": FolderKind, "folder": FolderKind, "markdown": MarkdownKind, "text": TextKind}
    if name not in table:
        raise KeyError(name)
    return table[name]()


def kind_names() -> list[str]:
    return ["auto", "folder", "markdown", "text"]
