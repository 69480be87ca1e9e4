"""Structured records at query time (SPEC §2.3; issue 16 point 2).

A table row or a JSON object is stored as one fact, "Column: value; Column: value"
(`memory.sources.base.record_line`). Read back here as typed cells, a table answers what its
rows hold together: a superlative or an extreme ("our oldest customer", "the warehouse with the
most pallet positions", "the earliest MOT date") is the row with the smallest or largest value
of the column the prompt names, and a row's values ("Gold", "Toronto office", a manager's
name) are the bridges of a second hop (`memory.engine.search`).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Collection, Iterable

import numpy as np
import tantivy

from memory.engine import dense
from memory.engine.days import MONTHS
from memory.engine.index import LoadedIndex
from memory.engine.rank import first
from memory.engine.synonyms import synonyms
from memory.engine.text import terms

RECORD_MIN_CELLS = 3  # fewer "name: value" cells make a sentence, not a record
# The columns of a person's record that name their manager (a directory's "Manager", an org
# chart table's "Reports to"), lower-cased: read by the pipeline's entities and the engine's hops.
MANAGER_COLUMNS = frozenset({"reports to", "manager", "line manager"})
TABLE_ROWS = 5000  # rows of one table read to find an extreme (a larger table answers from these)
# A column is a date or a number column when this share of its values holding a digit are of
# that kind, and they are at least half of all its values: a value with no digit ("No fixed
# term", "n/a", "TBC") says there is none, and does not make a column of dates one of words.
TYPED_SHARE = 0.8
TYPED_MIN_SHARE = 0.5
TABLES_TRIED = 3  # the tables whose rows rank best among the candidates
NAME_MATCH = 2.0  # a column whose name the prompt uses ("pallet capacity", "MOT due")
KIND_MATCH = 1.0  # a column of the kind the superlative implies ("oldest" → a start date)
TABLE_MATCH = 1.0  # per prompt word in the table's title, headings or column names
INITIALS_WORDS = 5  # the longest run of prompt words whose initials may name a column ("otif")
_NOT_INITIALS = {"id", "no", "to", "at", "on", "in", "of", "or", "an", "is", "it", "as", "by"}
# Of two columns the prompt names, the one named beside its superlative ("which contract comes
# up for *renewal first*": `renewal_date`, not `contract_start`): within this many words, ...
BESIDE_WORDS = 2
BESIDE_MATCH = 0.5  # ... it earns this more
COLUMN_SIMILARITY_FLOOR = 0.2  # cosine of prompt and column name under which it says nothing
COLUMN_SIMILARITY_WEIGHT = 2.0  # times the cosine: a close meaning counts as a named column

_CELL = re.compile(r"^(?P<name>[^:;]{1,60}): (?P<value>.+)$")
_DATE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")
# 06/14/2026, 14/06/2026, 3/2/26: month first (as in the US) unless a value of the column
# has a first number over 12 (`day_first`).
_SLASH_DATE = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})$")
# June 30, 2029; 30 June 2029; Jun 2026 (the first of the month).
_NAMED_DATE = re.compile(
    r"^(?:(?P<day1>\d{1,2})(?:st|nd|rd|th)?\s+)?(?P<month>[a-z]{3,9})\.?\s+"
    r"(?:(?P<day2>\d{1,2})(?:st|nd|rd|th)?,?\s+)?(?P<year>\d{4})$",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"^[£$€]?\s*(-?\d[\d,]*(?:\.\d+)?)\s*(?:%|[kKmM])?$")
# A column of years ("year", "model_year", "year_built", "founded") is a column of dates.
_YEAR_COLUMN = re.compile(r"year|built|founded|established", re.IGNORECASE)
_YEAR = re.compile(r"^(?:18|19|20|21)\d\d$")
_DIGIT = re.compile(r"\d")
_CODE = re.compile(r"^[A-Za-z0-9]{1,3}$")  # a cell's letter or short code ("A", "T1")

# Superlatives, by the end of the column they pick. Words that are superlatives only with a
# column named beside them ("the first ...", "the most ...") are in WEAK: they never fall back
# to a column chosen by its kind alone.
# For a date column "longest" means the earliest start ("a customer the longest"); for a
# number column the largest value ("the longest route").
# "Next" is the earliest date of a column it names ("due for a service next"); "best" the
# largest value of a column it names ("the best on-time percentage"), "worst" the smallest.
_SMALLEST = {"smallest", "lowest", "fewest", "least", "cheapest", "shortest", "minimum", "min", "worst"}
_LARGEST = {"biggest", "largest", "highest", "greatest", "most", "top", "longest", "maximum", "max", "priciest", "best"}
_EARLIEST = {"oldest", "earliest", "longest", "first", "soonest", "next"}
_LATEST = {"newest", "latest", "youngest", "recent", "recently", "last"}
_WEAK = {"first", "most", "least", "top", "last", "recent", "latest", "next", "max", "min", "best", "worst"}
_WORD = re.compile(r"[a-z]+")  # "longest-serving" is "longest" and "serving"
# "Most of December's misses", "at least a week": a quantity, not the row at an extreme.
_QUANTIFIER = re.compile(r"\b(?:most|least)\s+of\b|\bat\s+(?:least|most)\b")
# "Customer the longest": a duration of a relationship is measured from its start date.
_SINCE_WORDS = {"longest", "oldest", "newest", "earliest", "youngest", "recently"}
_START_NAMES = (
    "sign", "start", "since", "join", "open", "found", "creat", "establish", "incorporat", "hire", "began", "year", "built"
)
_SIZE_NAMES = ("capacity", "size", "value", "revenue", "area", "headcount", "volume", "amount", "total", "seats", "arr")
_SIZE_WORDS = {"biggest", "largest", "smallest"}
# "Who ..." asks for someone named: a table with a name column is a table the prompt is about
# ("Who has been at Corvane the longest?" → the staff directory's earliest start_date). Not
# "whose", which names the table itself ("whose equipment is oldest").
_WHO_WORDS = {"who", "whom"}
# "Leaving aside the CEO, who has been here longest?": the rows it names are not candidates.
_EXCLUDING = re.compile(
    r"\b(?:leaving|setting|putting)\s+aside\s+([^,;?]+)|\b(?:aside\s+from|apart\s+from|other\s+than|except(?:\s+for)?"
    r"|excluding|not\s+counting)\s+([^,;?]+)",
    re.IGNORECASE,
)


def cells(statement: str) -> dict[str, str]:
    """The "name: value" cells of a record fact, or {} when it is not one. A title that
    `record_line`'s caller put before the first cell ("Staff directory: Name: …") is dropped.
    A value may itself hold "; " (a CSV cell listing lanes, "SAV-Atlanta; SAV-Charlotte"): a
    part with no name of its own goes on the value before it."""
    parts = statement.split("; ")
    found: dict[str, str] = {}
    name = ""
    for part in parts:
        if ": " not in part:
            if not found:
                return {}
            found[name] = f"{found[name]}; {part.strip()}"
            continue
        name, _, value = part.rpartition(": ")
        name = name.rpartition(": ")[2].strip()
        if not _CELL.match(f"{name}: {value}"):
            return {}
        found[name] = value.strip()
    return found if len(found) >= RECORD_MIN_CELLS else {}


def _ordinal(year: int, month: int, day: int) -> tuple[str, float] | None:
    try:
        return "date", float(dt.date(year, month, day).toordinal())
    except ValueError:
        return None


def typed(value: str, day_first: bool = False) -> tuple[str, float] | None:
    """("date", ordinal) for a date or a month (ISO, 06/14/2026 or 14/06/2026 by `day_first`,
    June 14, 2026), ("number", value) for an amount; else None."""
    value = value.strip()
    if match := _DATE.match(value):
        return _ordinal(int(match.group(1)), int(match.group(2)), int(match.group(3) or 1))
    if match := _SLASH_DATE.match(value):
        first_part, second, year = int(match.group(1)), int(match.group(2)), int(match.group(3))
        if first_part > 12:  # 14/06/2026 can only be day first
            day_first = True
        month, day = (second, first_part) if day_first else (first_part, second)
        return _ordinal(year + 2000 if year < 100 else year, month, day)
    if (match := _NAMED_DATE.match(value)) and (named := MONTHS.get(match.group("month").lower())):
        return _ordinal(int(match.group("year")), named, int(match.group("day1") or match.group("day2") or 1))
    match = _NUMBER.match(value)
    if match:
        return "number", float(match.group(1).replace(",", ""))
    return None


@dataclass
class Superlative:
    words: list[str]  # the prompt's superlative words, in order ("most", "recent")

    def largest(self, kind: str) -> bool | None:
        """Whether the largest value of a column of this kind answers ("the most recent" date,
        "the most" pallets); None: no word of the prompt applies to that kind."""
        for word in self.words:
            if kind == "date" and word in _LATEST | _EARLIEST:
                return word in _LATEST
            if kind == "number" and word in _LARGEST | _SMALLEST:
                return word in _LARGEST
        return None

    @property
    def weak(self) -> bool:
        return all(word in _WEAK for word in self.words)

    def applies(self, words: set[str]) -> bool:
        return any(word in words for word in self.words)


def superlative(prompt: str) -> Superlative | None:
    """The superlative the prompt asks for, if any ("Who has been a customer the longest?")."""
    words = _WORD.findall(_QUANTIFIER.sub(" ", prompt.lower()))
    found = [w for w in words if w in _SMALLEST | _LARGEST | _EARLIEST | _LATEST]
    return Superlative(found) if found else None


def _table_rows(index: LoadedIndex, document_id: int) -> list[dict[str, Any]]:
    query = tantivy.Query.term_query(index.index.schema, "document_id", document_id)
    hits = index.searcher.search(query, TABLE_ROWS).hits
    return [index.searcher.doc(address).to_dict() for _, address in hits]


def _column_score(
    name: str,
    kind: str,
    wanted: Superlative,
    prompt_terms: set[str],
    prompt_vector: np.ndarray | None,
    prompt_initials: Collection[str] = (),
) -> tuple[float, float]:
    """How well the column is the one the prompt asks about: by its name's words (or their
    initials the prompt writes out: `last_pm` for "preventive maintenance", `otif_target`
    for "on-time-in-full"), and by the meaning of its name (the dense stage: "brings in the
    most money each year" → `annual_spend_eur`) or its kind ("oldest" → a start date); (by
    name, by meaning or kind)."""
    if wanted.largest(kind) is None:
        return 0.0, 0.0
    words = set(_WORD.findall(name.lower()))
    named = (len(set(terms(name)) & prompt_terms) + len(words.intersection(prompt_initials))) * NAME_MATCH
    meant = 0.0
    if prompt_vector is not None:
        similarity = float(prompt_vector @ dense.encode_query(" ".join(name.replace("_", " ").split())))
        if similarity >= COLUMN_SIMILARITY_FLOOR:
            meant = COLUMN_SIMILARITY_WEIGHT * similarity
    if named or wanted.weak:
        return named, meant
    lowered = name.lower()
    if kind == "date" and wanted.applies(_SINCE_WORDS) and any(s in lowered for s in _START_NAMES):
        meant = max(meant, KIND_MATCH)
    if kind == "number" and wanted.applies(_SIZE_WORDS) and any(s in lowered for s in _SIZE_NAMES):
        meant = max(meant, KIND_MATCH)
    return named, meant


def extreme_row(index: LoadedIndex, prompt: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The record answering a superlative prompt: among the tables whose rows are candidates,
    the column the prompt names (or, for "oldest"/"biggest" alone, a start date or a size),
    and the row holding its smallest or largest value. With the dense stage on, a column's
    name also matches by meaning (the prompt's vector is the one the dense stage cached). A
    whole cell the prompt says ("our *Silver* customers") narrows the rows first."""
    wanted = superlative(prompt)
    if wanted is None:
        return None
    # The superlative's own words name no column ("last" is not `last_service`).
    prompt_terms = set(terms(prompt)) - set(terms(" ".join(wanted.words)))
    tables: list[int] = []
    for doc in candidates:
        did = int(first(doc, "document_id", 0))
        if did not in tables and cells(first(doc, "statement", "")):
            tables.append(did)
        if len(tables) >= TABLES_TRIED:
            break
    prompt_vector = dense.encode_query(prompt) if index.vectors is not None else None
    initials = _initials(prompt)
    asked = prompt_terms | {alias for term in prompt_terms for alias in synonyms(term)}
    asks_who = bool(_WHO_WORDS & set(_WORD.findall(prompt.lower())))
    best: tuple[float, str, str, list[tuple[dict[str, Any], dict[str, str]]]] | None = None
    for did in tables:
        rows = [(doc, cells(first(doc, "statement", ""))) for doc in _table_rows(index, did)]
        rows = [(doc, row) for doc, row in rows if row]
        if not rows:
            continue
        kinds = _column_kinds(rows)
        # The table's own words (its title and headings, its column names) the prompt uses.
        own = set(first(rows[0][0], "context", "").split()) | set(terms(" ".join(rows[0][1])))
        table_score = len(asked & own) * TABLE_MATCH
        if asks_who and any("name" in _WORD.findall(column.lower().replace("_", " ")) for column in rows[0][1]):
            table_score += TABLE_MATCH
        for name, kind in kinds.items():
            named, meant = _column_score(name, kind, wanted, prompt_terms, prompt_vector, initials)
            # A column chosen by its meaning or kind alone needs a table the prompt is about.
            if named or (meant and table_score > 0):
                score = named + meant + table_score
                if named and _distance(name, wanted, prompt) <= BESIDE_WORDS:
                    score += BESIDE_MATCH
                if best is None or score > best[0]:
                    best = (score, name, kind, rows)
    if best is None:
        return None
    _, column, kind, rows = best
    excluded, rows = _excluded(rows, prompt, index.acronyms)
    rows = _narrowed(rows, prompt_terms - set(terms(column)) - excluded, prompt)
    day_first = _day_first(row.get(column, "") for _, row in rows)
    valued = [(value, doc) for doc, row in rows if (value := typed(row.get(column, ""), day_first)) is not None]
    if not valued:
        return None
    pick = max if wanted.largest(kind) else min
    return pick(valued, key=lambda item: item[0][1])[1]


def _initials(prompt: str) -> set[str]:
    """The initials of every run of INITIALS_WORDS prompt words or fewer, two at least ("on
    time in full" → "otif", "preventive maintenance" → "pm"), but for the few a column name
    writes as a word of its own (`asset_id`)."""
    words = _WORD.findall(prompt.lower())
    found = {
        "".join(word[0] for word in words[start : start + length])
        for length in range(2, INITIALS_WORDS + 1)
        for start in range(len(words) - length + 1)
    }
    return found - _NOT_INITIALS


def _column_kinds(rows: list[tuple[dict[str, Any], dict[str, str]]]) -> dict[str, str]:
    """The date and number columns of a table: those whose values are mostly of one kind."""
    counts: dict[str, dict[str, int]] = {}
    for _, row in rows:
        for name, value in row.items():
            value_type = typed(value)
            tally = counts.setdefault(name, {"date": 0, "number": 0, "all": 0, "digits": 0})
            tally["all"] += 1
            tally["digits"] += bool(_DIGIT.search(value))
            if value_type is not None:
                tally[value_type[0]] += 1
    kinds: dict[str, str] = {}
    for name, tally in counts.items():
        for kind in ("date", "number"):
            if (
                tally["all"] >= 2
                and tally[kind] >= TYPED_SHARE * tally["digits"]
                and tally[kind] >= TYPED_MIN_SHARE * tally["all"]
            ):
                kinds[name] = kind
        if kinds.get(name) == "number" and _YEAR_COLUMN.search(name) and _years(row.get(name, "") for _, row in rows):
            kinds[name] = "date"  # a vehicle's `year` 2018: "the oldest" is the earliest
    return kinds


def _years(values: Iterable[str]) -> bool:
    """Whether every value given is a year (1800-2199) or empty."""
    return all(not value.strip() or _YEAR.match(value.strip()) for value in values)


def _day_first(values: Iterable[str]) -> bool:
    """Whether a column writes its slashed dates day first: one of them starts past 12."""
    return any((match := _SLASH_DATE.match(value.strip())) and int(match.group(1)) > 12 for value in values)


def _distance(column: str, wanted: Superlative, prompt: str) -> int:
    """How far apart, in words, the prompt writes a word of the column's name and its
    superlative (the length of the prompt when it writes no word of the name)."""
    words = _WORD.findall(prompt.lower())
    own = set(terms(column.replace("_", " ")))
    at_name = [i for i, word in enumerate(words) if own & set(terms(word))]
    at_superlative = [i for i, word in enumerate(words) if word in wanted.words]
    return min((abs(i - j) for i in at_name for j in at_superlative), default=len(words))


def _excluded(
    rows: list[tuple[dict[str, Any], dict[str, str]]], prompt: str, acronyms: dict[str, str]
) -> tuple[set[str], list[tuple[dict[str, Any], dict[str, str]]]]:
    """The terms the prompt sets aside ("leaving aside *the CEO*", "other than Reno") and the
    rows without what they name, its acronyms read as the memory writes them out ("Chief
    Executive Officer"). Every row, when the rows it names would be all of them."""
    named: set[str] = set()
    forms: list[set[str]] = []
    for match in _EXCLUDING.finditer(prompt):
        text = match.group(1) or match.group(2)
        own = set(terms(text))
        named |= own
        forms += [own, *(set(terms(acronyms[w.lower()])) for w in text.split() if w.lower() in acronyms)]
    forms = [form for form in forms if form]
    if not forms:
        return named, rows
    read = [(item, set(terms(" ".join(item[1].values())))) for item in rows]
    kept = [item for item, held in read if not any(form <= held for form in forms)]
    return named, kept or rows


def _narrowed(
    rows: list[tuple[dict[str, Any], dict[str, str]]], prompt_terms: set[str], prompt: str
) -> list[tuple[dict[str, Any], dict[str, str]]]:
    # A whole cell the prompt says ("Silver", "seafood"), not a word inside a name ("kit" in
    # "Portable DR kit"); a cell of a letter or a short code, when the prompt writes it after
    # its column's word ("tier A" for `payment_terms_tier: A`).
    holding: dict[str, list[tuple[dict[str, Any], dict[str, str]]]] = {}
    for item in rows:
        for name, value in item[1].items():
            cell = frozenset(terms(value))
            if cell and cell <= prompt_terms:
                holding.setdefault(" ".join(sorted(cell)), []).append(item)
            elif not cell and _CODE.match(value) and _written_after(value, name, prompt):
                holding.setdefault(f"{name}={value}", []).append(item)
    narrowing = [group for group in holding.values() if 0 < len(group) < len(rows)]
    if not narrowing:
        return rows
    return min(narrowing, key=len)


def _written_after(value: str, column: str, prompt: str) -> bool:
    """Whether the prompt writes the value right after a word of the column's name."""
    words = "|".join(re.escape(word) for word in _WORD.findall(column.lower()))
    return bool(words) and re.search(rf"\b(?i:{words})\s+{re.escape(value)}\b", prompt) is not None


# A row's own code ("E1006", "C-1007", "PRE-23-042") in its key column (`employee_id`,
# "Asset code"): the value other tables and messages join the row by.
KEY_CODE = re.compile(r"[A-Za-z]{1,5}-?\d{2,}(?:-\d+)*")
_KEY_COLUMN = re.compile(r"(?:^|[_\s])(?:id|code)$", re.IGNORECASE)


def is_key(column: str, value: str) -> bool:
    """Whether the cell is a row's own code in its key column (`KEY_CODE`)."""
    return bool(KEY_CODE.fullmatch(value) and _KEY_COLUMN.search(column))


def bridge_values(statement: str, prompt_lower: str, prompt_terms: set[str]) -> tuple[list[str], set[str]]:
    """A record's values that can lead a second hop: names and the row's own code (`is_key`:
    "the person with the lowest utilisation" → E1006 → that employee's directory row), not
    numbers, dates or addresses, and not what the prompt already says; and those of them in a
    column the prompt names ("the incident *commander* of …" → `incident_commander`): the hop
    crosses by those alone."""
    out: list[str] = []
    named: set[str] = set()
    for name, value in cells(statement).items():
        if not is_key(name, value) and (
            typed(value) is not None or "@" in value or sum(c.isdigit() for c in value) > len(value) // 3
        ):
            continue
        if value.lower() in prompt_lower or not terms(value):
            continue
        out.append(value)
        if set(terms(name.replace("_", " "))) & prompt_terms:
            named.add(value)
    return out, named
