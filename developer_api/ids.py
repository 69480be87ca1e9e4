"""Row ids read from requests and tokens (SPEC §3: bad input is a clear 4xx, never a 500)."""

from __future__ import annotations

# Row ids are 64-bit (BigAutoField); a larger number names no row and overflows SQLite.
MAX_ROW_ID = 2**63 - 1


def row_id(value: object) -> int | None:
    """`value` as a row id, or None: an int, or a string of ASCII digits (str.isdigit() alone
    also accepts "²", which int() refuses), in 1..MAX_ROW_ID. Never a bool or a float, which
    Django would coerce (1.9 → 1)."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if type(value) is not int or not 1 <= value <= MAX_ROW_ID:
        return None
    return value
