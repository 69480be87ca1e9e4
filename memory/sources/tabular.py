"""Tables (`.csv`, `.tsv`), read with the standard library's csv module (the delimiter is
sniffed): the first row names the columns, each further row becomes one bullet
"Column: value; Column: value" under the table's title, so each row is one fact.

(Named `tabular` so that `import csv` keeps meaning the standard library.)
"""

from __future__ import annotations

import csv
import io

from memory.sources.base import (
    FileKind,
    Item,
    RawDocument,
    Skipped,
    date_from_text_or_name,
    decode,
    record_line,
    title_from_name,
)

EXTENSIONS = (".csv", ".tsv")


def _dialect(relpath: str, sample: str) -> type[csv.Dialect] | csv.Dialect:
    if relpath.lower().endswith(".tsv"):
        return csv.excel_tab
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:  # one column, or too little to tell
        return csv.excel


def parse(relpath: str, data: bytes) -> Item:
    text = decode(data)
    if text is None:
        return Skipped(relpath, "not readable text (binary or unknown encoding)", error=True)
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), _dialect(relpath, text[:8192])))
    except csv.Error as exc:
        return Skipped(relpath, f"not a readable CSV table: {exc}", error=True)
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    title = title_from_name(relpath)
    if not rows:
        return RawDocument(path=relpath, title=title, text="", doc_date=date_from_text_or_name("", relpath), fmt="markdown")
    header = [" ".join(cell.split()) or f"Column {i + 1}" for i, cell in enumerate(rows[0])]
    lines = [f"# {title}", ""]
    for row in rows[1:]:
        # Cells beyond the header are kept, numbered; a short row just has fewer values.
        names = header + [f"Column {i + 1}" for i in range(len(header), len(row))]
        line = record_line(list(zip(names, row)))
        if line:
            lines.append(line)
    text_out = "\n".join(lines) + "\n"
    return RawDocument(
        path=relpath,
        title=title,
        text=text_out,
        doc_date=date_from_text_or_name("", relpath),
        fmt="markdown",
        metadata={"columns": ", ".join(header)[:1000], "rows": str(len(rows) - 1)},
    )


class CsvKind(FileKind):
    name = "csv"
    extensions = EXTENSIONS

    def parse(self, relpath: str, data: bytes) -> Item:
        return parse(relpath, data)
