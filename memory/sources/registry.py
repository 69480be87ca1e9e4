"""Every source kind by name, from one table (SPEC §7 `--kind`; the REST `kind` field).

The kind modules never import this one: it sits above them, so `memory/sources/` has no
import circle. Adding a kind = its module, its test file and one row here.
"""

from __future__ import annotations

from typing import Any, Callable

from memory.sources.docx import DocxKind
from memory.sources.export import ExportKind
from memory.sources.folder import FolderKind
from memory.sources.html import HtmlKind
from memory.sources.jsondoc import JsonKind
from memory.sources.mail import EmailKind, MboxKind
from memory.sources.markdown import MarkdownKind
from memory.sources.pdf import PdfKind
from memory.sources.push import PushKind
from memory.sources.slack import SlackKind
from memory.sources.tabular import CsvKind
from memory.sources.text import TextKind

KINDS: dict[str, Callable[[], Any]] = {
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
    "items": PushKind,
}
# Fed only by POST /v1/dev/sources/{id}/items: not a kind to choose for a path or an upload.
PUSHED_ITEMS = "items"


def kind_for(name: str) -> Any:
    """A fresh instance of the kind; KeyError when there is none of that name."""
    return KINDS[name]()


def kind_names() -> list[str]:
    """The kinds a path or upload may name, in the table's order."""
    return [name for name in KINDS if name != PUSHED_ITEMS]
