"""Documents → facts: self-contained statements with their heading path and position.

Markdown is read line by line: headings set the heading path, each bullet and each sentence
of a paragraph becomes a statement, table rows become "Column: value" statements, code blocks
are skipped. A statement that does not name its subject ("Status: at risk" under "## Project
Atlas") is prefixed with its heading, so every fact reads on its own. A list item nested under
another keeps that item as its `parent` (an org chart's "Omar Haddad — Billing Analyst" under
"Lauren Fiske — Billing Manager" reports to her: `entities.extract` reads it).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Iterator

from memory.engine.text import term_set
from memory.sources.base import Message

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
TAB_COLUMNS = 4  # a tab indents a list item as far as four spaces (CommonMark's tab stop)
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# Emphasis and code spans as CommonMark reads them: `*` and backticks work inside words, `_`
# only at word boundaries (`mrr_usd`, `renewal_date` and snake_case names keep their `_`).
_EMPH = re.compile(r"(\*\*|\*|`)(?=\S)(.+?)(?<=\S)\1")
_EMPH_UNDERSCORE = re.compile(r"(?<![^\W_])(__|_)(?=\S)(.+?)(?<=\S)\1(?![^\W_])")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9$€£])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "Mr.", "Mrs.", "Ms.", "Dr.", "Inc.", "Ltd.", "Co.", "St.", "approx.", "No.")
# A list's number where a message's lines were joined ("… the UK/EEA. 2. We notify …") opens
# the next sentence, alone or after a greeting's comma or a colon ("Dear Ana, 1.").
_LIST_NUMBER = re.compile(r"(?:^|[,:;]\s+)\d{1,2}[.)]$")
_LABEL = re.compile(r"^([A-Z][\w &/'()-]{0,40}):\s+\S")
MIN_CHARS = 12
MAX_CHARS = 600


@dataclass
class Statement:
    text: str
    heading_path: str  # "Title > Section > Subsection"
    position: int
    effective_date: dt.date | None = None  # overrides the document's date (message time)
    author: str = ""  # who said it (chat and mail)
    locator: str = ""  # the message it came from (Message.ref), kept as the fact's provenance
    parent: str = ""  # the list item this one is nested under, as written (markdown lists)


def message_statements(title: str, messages: list[Message]) -> list[Statement]:
    """One statement per message, naming its author and keeping its time: "Ana Ruiz: ship it
    Friday" (a long message is split into sentences, each keeping the author)."""
    out: list[Statement] = []
    for message in messages:
        text = clean_inline(message.text)
        if len(text) < MIN_CHARS or not re.search(r"[A-Za-z]", text):
            continue
        path = f"{title} > {message.thread}" if message.thread else title
        when = message.sent_at.date() if message.sent_at else None
        for sentence in split_sentences(text) if len(text) > 300 else [text]:
            if len(sentence) > MAX_CHARS:
                sentence = sentence[: MAX_CHARS - 1].rsplit(" ", 1)[0] + "…"
            statement = f"{message.author}: {sentence}" if message.author else sentence
            out.append(Statement(statement, path, len(out), when, message.author, message.ref[:200]))
    return out


def clean_inline(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    for _ in range(2):
        text = _EMPH_UNDERSCORE.sub(r"\2", _EMPH.sub(r"\2", text))
    return re.sub(r"\s+", " ", text).strip()


def split_sentences(text: str) -> list[str]:
    parts: list[str] = []
    buffer = ""
    for piece in _SENTENCE_END.split(text):
        buffer = f"{buffer} {piece}".strip() if buffer else piece
        if buffer.endswith(_ABBREVIATIONS):
            continue
        if _LIST_NUMBER.search(buffer):
            continue
        parts.append(buffer)
        buffer = ""
    if buffer:
        parts.append(buffer)
    return [p.strip() for p in parts if p.strip()]


def _self_contained(statement: str, heading: str) -> str:
    """Prefix the heading when the statement does not name its subject."""
    if not heading:
        return statement
    heading_terms = term_set(heading)
    if not heading_terms or heading_terms & term_set(statement):
        return statement
    words = statement.split()
    if _LABEL.match(statement) or statement[:1].islower() or len(words) < 7:
        return f"{heading}: {statement}"
    return statement


def _block_lines(text: str) -> Iterator[tuple[str, str, int]]:
    """(kind, text, indent) for heading/bullet/paragraph/table lines, code fences removed; the
    indent is a list item's marker column (0 for the rest). A list item's continuation lines
    (a hard-wrapped item, indented or not) belong to the item, as CommonMark reads them:
    "4. For stock at Daventry,\n   the QA pharmacist is informed" is one statement, not two
    halves."""
    in_code = False
    paragraph: list[str] = []
    item: list[str] = []  # the open list item's lines
    indent = 0  # and its marker's column

    def flush() -> Iterator[tuple[str, str, int]]:
        if item:
            yield "bullet", " ".join(item), indent
            item.clear()
        if paragraph:
            yield "para", " ".join(paragraph), 0
            paragraph.clear()

    for raw in text.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            yield from flush()
            continue
        if in_code:
            continue
        heading = _HEADING.match(line)
        bullet = _BULLET.match(line)
        if not line.strip() or heading or bullet or line.lstrip().startswith("|"):
            yield from flush()
        if heading:
            yield f"h{len(heading.group(1))}", heading.group(2), 0
        elif bullet:
            item.append(bullet.group(2))
            indent = len(bullet.group(1).expandtabs(TAB_COLUMNS))
        elif line.lstrip().startswith("|"):
            yield "table", line, 0
        elif line.strip():
            (item or paragraph).append(line.strip().lstrip(">").strip())
    yield from flush()


def statements(title: str, text: str, fmt: str = "markdown") -> list[Statement]:
    """The statements of one document, in order."""
    out: list[Statement] = []
    headings: list[tuple[int, str]] = []
    table_header: list[str] | None = None

    def current_heading() -> str:
        return headings[-1][1] if headings else title

    def path() -> str:
        names = [title] + [h for _, h in headings if h != title]
        return " > ".join(names)

    def add(candidate: str, parent: str = "") -> None:
        candidate = clean_inline(candidate)
        if len(candidate) < MIN_CHARS or not re.search(r"[A-Za-z]", candidate):
            return
        for sentence in split_sentences(candidate) if len(candidate) > 200 else [candidate]:
            if len(sentence) < MIN_CHARS:
                continue
            if len(sentence) > MAX_CHARS:
                sentence = sentence[: MAX_CHARS - 1].rsplit(" ", 1)[0] + "…"
            out.append(Statement(_self_contained(sentence, current_heading()), path(), len(out), parent=parent))

    if fmt != "markdown":
        for block in re.split(r"\n\s*\n", text):
            block = re.sub(r"\s+", " ", block).strip()
            if block == title.strip():
                continue  # the title line is the document's name, not a statement
            for sentence in split_sentences(block):
                add(sentence)
        return out

    items: list[tuple[int, str]] = []  # the open list items a nested one sits under: (indent, text)
    for kind, value, indent in _block_lines(text):
        if kind != "bullet":
            items.clear()
        if kind.startswith("h"):
            level = int(kind[1:])
            name = clean_inline(value)
            if level == 1 and not headings:
                continue  # the document's own title heading
            headings = [h for h in headings if h[0] < level] + [(level, name)]
            table_header = None
        elif kind == "bullet":
            while items and items[-1][0] >= indent:
                items.pop()
            add(value, items[-1][1] if items else "")
            items.append((indent, clean_inline(value)))
        elif kind == "table":
            cells = [clean_inline(c) for c in value.strip().strip("|").split("|")]
            if _TABLE_SEP.match(value):
                continue
            if table_header is None:
                table_header = cells
                continue
            pairs = [f"{h}: {c}" for h, c in zip(table_header, cells) if c and h]
            if pairs:
                add("; ".join(pairs))
        else:
            table_header = None
            for sentence in split_sentences(clean_inline(value)):
                add(sentence)
    return out
