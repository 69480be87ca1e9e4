"""Encodings and bad input for the plain-text and Markdown kinds (read by every text kind)."""

from __future__ import annotations

from pathlib import Path

from tests.memory.sources.conftest import documents, errors, read


def test_latin_1_and_utf_16_text_is_read(tmp_path: Path) -> None:
    (tmp_path / "latin.txt").write_bytes("Café opening hours\n\nThe café opens at 8 à.m.\n".encode("latin-1"))
    (tmp_path / "wide.txt").write_bytes("Zoë's notes\n\nThe façade is repainted in May.\n".encode("utf-16"))
    (tmp_path / "wide.md").write_bytes("# Über uns\n\nWir sind ein Team.\n".encode("utf-16"))

    docs = documents(read("auto", tmp_path))

    assert docs["latin.txt"].title == "Café opening hours"
    assert "à.m." in docs["latin.txt"].text
    assert docs["wide.txt"].title == "Zoë's notes"
    assert docs["wide.md"].title == "Über uns"


def test_binary_junk_with_a_text_extension_and_empty_files_are_errors(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("Weekly notes\n\nThe coffee machine was repaired.\n")
    for name in ("junk.txt", "junk.md", "junk.html", "junk.eml"):
        (tmp_path / name).write_bytes(bytes(range(256)) * 8)
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "big.txt").write_text("x" * 2000)

    items = read("auto", tmp_path, max_bytes=1000)

    assert set(documents(items)) == {"notes.txt"}
    found = errors(items)
    assert set(found) == {"junk.txt", "junk.md", "junk.html", "junk.eml", "empty.txt", "big.txt"}
    assert found["empty.txt"] == "empty file"
    assert "1000-byte limit" in found["big.txt"]
