"""memory.engine.records: record facts read back as typed cells, superlatives, bridge values
(SPEC §2.3; issue 16 point 2)."""

from __future__ import annotations

import datetime as dt

import pytest

from memory.engine.records import (
    _column_kinds,
    _column_score,
    _day_first,
    _initials,
    bridge_values,
    cells,
    superlative,
    typed,
)
from memory.engine.text import terms


def test_a_record_fact_reads_back_as_its_cells_without_the_title_before_them() -> None:
    statement = "Staff directory: Name: Ana Ruiz; Title: Head of Fleet; Team: Fleet; Mobile: 07700 900 102"

    assert cells(statement) == {"Name": "Ana Ruiz", "Title": "Head of Fleet", "Team": "Fleet", "Mobile": "07700 900 102"}


@pytest.mark.parametrize(
    "statement",
    [
        "Refunds above $5,000 need approval from the CFO.",
        "Note: the office is closed; back on Monday",  # two parts: a sentence, not a record
        "Owner: Head of IT; Frostline is our new platform; supplied by Polarsoft",  # a part without a name
    ],
)
def test_prose_is_not_a_record(statement: str) -> None:
    assert cells(statement) == {}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-03-26", ("date", float(dt.date(2026, 3, 26).toordinal()))),
        ("2026-03", ("date", float(dt.date(2026, 3, 1).toordinal()))),
        ("4150000", ("number", 4150000.0)),
        ("£1,240,000", ("number", 1240000.0)),
        ("98.4%", ("number", 98.4)),
        ("06/14/2026", ("date", float(dt.date(2026, 6, 14).toordinal()))),  # month first, as in the US
        ("3/2/26", ("date", float(dt.date(2026, 3, 2).toordinal()))),
        ("14/06/2026", ("date", float(dt.date(2026, 6, 14).toordinal()))),  # can only be day first
        ("June 30, 2029", ("date", float(dt.date(2029, 6, 30).toordinal()))),
        ("30 June 2029", ("date", float(dt.date(2029, 6, 30).toordinal()))),
        ("Mar 2026", ("date", float(dt.date(2026, 3, 1).toordinal()))),
        ("Maybe 2026", None),
        ("2026-02-30", None),
        ("Gold", None),
        ("07700 900 102", None),
    ],
)
def test_values_are_typed_as_dates_and_numbers_or_not_at_all(value: str, expected: object) -> None:
    assert typed(value) == expected


def test_a_column_writes_its_slashed_dates_day_first_when_one_of_them_can_only_be_read_so() -> None:
    assert _day_first(["05/03/2026", "14/03/2026"]) is True
    assert _day_first(["05/03/2026", "06/14/2026"]) is False
    assert typed("05/03/2026", day_first=True) == ("date", float(dt.date(2026, 3, 5).toordinal()))


def test_a_value_with_no_digit_leaves_a_column_of_dates_a_column_of_dates() -> None:
    ends = ["30/06/2026", "31/12/2026", "31/03/2027", "No fixed term", "30/09/2026", "No fixed term", "n/a"]
    notes = ["Renewed 2026-01-05", "Rolling", "Paid", "Open", "Closed", "2026-02-01", "TBC"]
    rows = [({}, {"contract_end": end, "notes": note}) for end, note in zip(ends, notes)]

    # Five dates of seven, the rest saying there is none; a column of words holding a date or
    # two is no column of dates.
    assert _column_kinds(rows) == {"contract_end": "date"}


@pytest.mark.parametrize(
    ("prompt", "column", "kind"),
    [
        ("Which piece of equipment has gone the longest since its last preventive maintenance?", "last_pm", "date"),
        ("Which client has the least demanding on-time-in-full commitment in its contract?", "otif_target", "number"),
    ],
)
def test_a_column_named_by_the_initials_of_words_the_prompt_writes_out_is_named(prompt: str, column: str, kind: str) -> None:
    wanted = superlative(prompt)
    assert wanted is not None
    terms_said = set(terms(prompt)) - set(terms(" ".join(wanted.words)))  # as extreme_row reads them

    assert _column_score(column, kind, wanted, terms_said, None, _initials(prompt))[0] > 0
    assert _column_score(column, kind, wanted, terms_said, None)[0] == 0  # by its words alone


def test_initials_are_of_runs_of_two_words_or_more_and_never_a_column_s_own_short_words() -> None:
    found = _initials("Is it due for its next MOT in time?")

    assert {"dfi", "nm"} <= found
    assert not {"id", "it", "in", "is"} & found


@pytest.mark.parametrize(
    ("prompt", "date_largest", "number_largest"),
    [
        ("Who has been a customer the longest?", False, True),  # the earliest start; the longest route
        ("What is the newest site we have opened?", True, None),
        ("Which warehouse has the most pallet positions?", None, True),
        ("Which customer signed up most recently?", True, True),
        ("Which vehicle had the earliest MOT date?", False, None),
        ("Which site has the fewest chambers?", None, False),
    ],
)
def test_a_superlative_picks_an_end_of_a_column_by_its_kind(
    prompt: str, date_largest: bool | None, number_largest: bool | None
) -> None:
    wanted = superlative(prompt)

    assert wanted is not None
    assert wanted.largest("date") is date_largest
    assert wanted.largest("number") is number_largest


def test_a_prompt_without_a_superlative_has_none() -> None:
    assert superlative("When does the Kestrel contract end?") is None


@pytest.mark.parametrize(
    "prompt",
    [
        "Most of December's delivery misses came from one site: what OTIF did that site record in February?",
        "Which carriers must give at least a week's notice?",
        "Can a driver work at most six nights in a row?",
    ],
)
def test_most_of_and_at_least_are_quantities_not_superlatives(prompt: str) -> None:
    assert superlative(prompt) is None


def test_a_quantifier_leaves_a_superlative_beside_it_asked() -> None:
    wanted = superlative("Of the sites with at least two chambers, which has the most pallet positions?")

    assert wanted is not None and wanted.words == ["most"]


def test_bridge_values_are_names_and_the_row_s_code_the_prompt_does_not_already_say() -> None:
    statement = (
        "customer_id: C-1003; customer_name: Kestrel Seafoods Ltd; signup_date: 2012-04-02; "
        "annual_value_gbp: 1240000; tier: Gold; account_owner: Saoirse Mulvaney; email: ops@kestrel.test"
    )

    assert bridge_values(statement, "what discount does kestrel seafoods ltd get?", set()) == (
        ["C-1003", "Gold", "Saoirse Mulvaney"],
        set(),
    )
    assert bridge_values(statement, "what discount does c-1003 get?", set())[0] == ["Kestrel Seafoods Ltd", "Gold", "Saoirse Mulvaney"]


def test_bridge_values_in_a_column_the_prompt_names_are_told_apart() -> None:
    statement = "customer_name: Kestrel Seafoods Ltd; tier: Gold; account_owner: Saoirse Mulvaney; region: North"

    prompt_terms = {"account", "owner", "kestrel", "base"}
    values, named = bridge_values(statement, "where is the account owner of kestrel based?", prompt_terms)

    assert values == ["Kestrel Seafoods Ltd", "Gold", "Saoirse Mulvaney", "North"]
    assert named == {"Saoirse Mulvaney"}
