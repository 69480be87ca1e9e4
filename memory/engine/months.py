"""Months asked (SPEC §2.3, `coverage_assessment`): a prompt about a month of a year ("What was
Teesport's OTIF in April 2026?") is not answered by facts about other months of that year, however
well they match its other words ("month: 2026-03; site: Teesport …").

When documents' facts among the MONTH_FACTS most relevant state other months of the year asked,
and none of the MONTH_FACTS states the month asked, is headed with it or is dated in it, the answer
is "minimal" (`rank.assess`) and its summary names the month no fact is about (`search.summary`).
Facts that state no month at all say nothing either way: the answer is judged as before.

Only a document's text is about the months it states. A chat or mail message (`FactHit.message`)
or an agent memory that says "in June" talks about June from its own day: it lifts the answer when
it states the month asked or is dated in it, but never makes the month asked unstated (on LoCoMo's
conversations 6–10, counting messages lost two answered hits: bench/README.md).

A fact states a month by name ("April 2026", "14 April 2026", "April" alone), as an ISO date
("2026-04", "2026-04-14"), as a numeric date read both ways ("04/11/2026" is April or November),
as "04/2026", or within a quarter or half ("Q2 2026", "H1 2026").
"""

from __future__ import annotations

import re

from memory.engine.days import MONTH_NAME, MONTHS, dates_in_figures, month_number
from memory.engine.types import FactHit

MONTH_FACTS = 3  # the most relevant facts read for the months they are about

Month = tuple[int | None, int]  # (year, month); no year when a month is named alone

_ASKED = re.compile(rf"\b{MONTH_NAME}\s+(?:of\s+)?((?:19|20)\d\d)\b", re.IGNORECASE)
_NAMED = (
    re.compile(rf"\b{MONTH_NAME}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?,?\s+(?:of\s+)?((?:19|20)\d\d)\b", re.IGNORECASE),
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_NAME},?\s+((?:19|20)\d\d)\b", re.IGNORECASE),
)
# A month's name alone, written as one ("March", "Mar"): "may" and "march" in lower case are verbs.
_ALONE = re.compile(r"\b(" + "|".join(sorted((name.capitalize() for name in MONTHS), key=len, reverse=True)) + r")\b\.?")
_MONTH_YEAR = re.compile(r"\b(\d{1,2})/((?:19|20)\d\d)\b")
_PERIOD = re.compile(r"\b([qh])([1-4])[\s-]*(?:fy)?((?:19|20)\d\d)\b|\b((?:19|20)\d\d)[\s-]*([qh])([1-4])\b", re.IGNORECASE)
_PERIOD_MONTHS = {"q": 3, "h": 6}


def asked_months(prompt: str) -> list[str]:
    """The months the prompt names with their year, as "YYYY-MM", in order."""
    found = [f"{m.group(2)}-{month_number(m.group(1)):02d}" for m in _ASKED.finditer(prompt)]
    return list(dict.fromkeys(found))


def stated_months(text: str) -> set[Month]:
    """The months a text states (module docstring)."""
    out: set[Month] = set()
    for pattern in _NAMED:
        out |= {(int(m.group(2)), month_number(m.group(1))) for m in pattern.finditer(text)}
    out |= {(None, month_number(m.group(1))) for m in _ALONE.finditer(text)}
    out |= {(year, month) for year, months in dates_in_figures(text) for month in months}
    out |= {(int(m.group(2)), int(m.group(1))) for m in _MONTH_YEAR.finditer(text) if 1 <= int(m.group(1)) <= 12}
    for m in _PERIOD.finditer(text):
        kind, number, written = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(5), m.group(6), m.group(4))
        span = _PERIOD_MONTHS[kind.lower()]
        if int(number) * span <= 12:
            out |= {(int(written), month) for month in range(span * (int(number) - 1) + 1, span * int(number) + 1)}
    return out


def months_unstated(asked: list[str], facts: list[FactHit]) -> list[str]:
    """The months asked ("YYYY-MM") when documents' facts among the most relevant are about
    other months of their years and none of the most relevant is about them (module
    docstring); else none."""
    if not asked:
        return []
    stated: set[Month] = set()
    dated: set[Month] = set()  # a date held says which month a fact is about, not that another is
    others: set[Month] = set()  # the months documents' facts state: what they are about
    for fact in sorted(facts, key=lambda f: -f.relevance_score)[:MONTH_FACTS]:
        months = stated_months(f"{fact.statement}\n{fact.section}")
        stated |= months
        if not fact.message and fact.reference is None:
            others |= months
        if fact.effective_date and fact.effective_date[5:7].isdigit():
            dated.add((int(fact.effective_date[:4]), int(fact.effective_date[5:7])))
    for month in asked:
        year, number = int(month[:4]), int(month[5:7])
        if {(year, number), (None, number)} & (stated | dated):
            return []
        if not any(other != number and when in (year, None) for when, other in others):
            return []
    return asked
