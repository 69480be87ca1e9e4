"""Days (SPEC §2.3): a date asked to the day ("what did Tim say on 16 November, 2023?") finds
what was said or dated that day, and what a message says of a day relative to its own
("yesterday", "last night", "last Friday").

A day is one index term, `day20231116`, never produced by the analyzer from ordinary words: the
index adds the days of a fact to its context words (`said_days`), the query adds the days its
prompt names (`asked_days`). Ranges, weeks and dates without a year are not days.
"""

from __future__ import annotations

import datetime as dt
import re

DAY_PREFIX = "day"
# Every name and abbreviation of a month, lower case, to its number ("sept" → 9).
MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
MONTH_NAME = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"  # "March", "Mar.", "mar"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_ASKED = (
    # 16 November, 2023 · 16th of November 2023
    (re.compile(rf"\b{_ORDINAL}\s+(?:of\s+)?{MONTH_NAME},?\s+(\d{{4}})\b", re.IGNORECASE), (3, 2, 1)),
    # November 16, 2023 · Nov 16th 2023
    (re.compile(rf"\b{MONTH_NAME}\s+{_ORDINAL},?\s+(\d{{4}})\b", re.IGNORECASE), (3, 1, 2)),
    # 2023-11-16
    (re.compile(r"\b(\d{4})-(\d\d)-(\d\d)\b"), (1, 2, 3)),
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Said in a message of a given day: how many days before (negative) or after it.
_RELATIVE = (
    (re.compile(r"\b(?:yesterday|last night)\b", re.IGNORECASE), -1),
    (re.compile(r"\b(?:today|tonight|this morning|this afternoon|this evening)\b", re.IGNORECASE), 0),
    (re.compile(r"\btomorrow\b", re.IGNORECASE), 1),
    (re.compile(r"\b(?:the day before yesterday|two days ago)\b", re.IGNORECASE), -2),
)
_LAST_WEEKDAY = re.compile(rf"\blast\s+({'|'.join(_WEEKDAYS)})\b", re.IGNORECASE)


def day_term(day: dt.date) -> str:
    return f"{DAY_PREFIX}{day:%Y%m%d}"


def month_number(name: str) -> int:
    """1 for "January", "Jan" or "jan."; KeyError for a word that names no month."""
    return MONTHS[name.lower().rstrip(".")]


def asked_days(prompt: str) -> list[str]:
    """The days a prompt names with their year, as index terms, in order."""
    found: list[str] = []
    for pattern, (year, month, day) in _ASKED:
        for match in pattern.finditer(prompt):
            parts = match.groups()
            raw_month = parts[month - 1]
            try:
                number = int(raw_month) if raw_month.isdigit() else month_number(raw_month)
                found.append(day_term(dt.date(int(parts[year - 1]), number, int(parts[day - 1]))))
            except (KeyError, ValueError):
                continue  # "31 February": not a day
    return list(dict.fromkeys(found))


_ISO_MONTH = re.compile(r"\b((?:19|20)\d\d)-(\d\d)\b")
_SLASHED = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4}|\d\d)\b")


def dates_in_figures(text: str) -> list[tuple[int, list[int]]]:
    """The dates a text writes in figures, each as its year and the months it can be read
    as: one for an ISO date ("2026-03", "2026-03-14") or a slashed date whose day is past 12
    ("17/01/2022", "06/30/2027"), two for "10/03/2026" (October or March)."""
    found = [(int(m.group(1)), [int(m.group(2))]) for m in _ISO_MONTH.finditer(text) if 1 <= int(m.group(2)) <= 12]
    for m in _SLASHED.finditer(text):
        year = int(m.group(3)) + (2000 if len(m.group(3)) == 2 else 0)
        months = [int(part) for part in (m.group(1), m.group(2)) if 1 <= int(part) <= 12]
        if months:
            found.append((year, list(dict.fromkeys(months))))
    return found


def written_months(text: str) -> list[int]:
    """The months a text writes in figures that can be read one way only (`dates_in_figures`):
    "2026-03" and "06/30/2027", not "10/03/2026"."""
    return list(dict.fromkeys(months[0] for _, months in dates_in_figures(text) if len(months) == 1))


def said_days(day: dt.date, statement: str) -> list[str]:
    """The days a fact of `day` is about: its own, and those it names relative to it
    ("yesterday", "last Friday": the Friday before its day)."""
    days = {day}
    for pattern, offset in _RELATIVE:
        if pattern.search(statement):
            days.add(day + dt.timedelta(days=offset))
    for match in _LAST_WEEKDAY.finditer(statement):
        back = (day.weekday() - _WEEKDAYS.index(match.group(1).lower())) % 7 or 7
        days.add(day - dt.timedelta(days=back))
    return sorted(day_term(d) for d in days)
