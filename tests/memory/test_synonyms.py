"""The business thesaurus (memory/engine/synonyms.py, SPEC §2.3 ranking): a prompt in
everyday words finds the statement written in the policy's words, with the dense stage off,
so the lexical stage alone is what is measured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memory.engine.search import retrieve
from memory.engine.synonyms import synonyms
from memory.engine.text import stem
from memory.models import Workspace
from tests.conftest import folder_import

POLICIES = [
    "Discounts up to 5% may be given by a consultant; up to 10% needs the Head of Sales.",
    "Accounts more than 120 days overdue are referred to our collection agency.",
    "Complaints about clinical care are escalated to the Clinical Director.",
    "Prices on the rate card are reviewed every April by the finance team.",
    "Customers who pay by direct debit get their invoice on the first of the month.",
    "The clinical team reviews every care plan after the first week.",
    "Collections cancelled after 06:00 on the day are charged at 50% of the haulage rate.",
    "Collections cancelled by the haulier are re-booked for the next morning.",
    "Each colleague may claim up to £90 per year towards safety footwear.",
    "Each colleague may claim a new uniform every year.",
]


@pytest.mark.parametrize(
    ("prompt", "answer"),
    [
        ("How much can a salesperson knock off the price?", POLICIES[0]),
        ("What happens to customers who leave their balance unpaid for months?", POLICIES[1]),
        ("A customer cancelled their collection at seven this morning: do we bill them?", POLICIES[6]),
        ("Can I claim for new work boots each year?", POLICIES[8]),
    ],
)
def test_a_prompt_in_everyday_words_finds_the_policy_s_words_first(
    workspace: Workspace, settings: Any, tmp_path: Path, prompt: str, answer: str
) -> None:
    settings.PAM_DENSE = False
    folder_import(workspace, tmp_path / "policies", {f"policy-{n}.txt": text for n, text in enumerate(POLICIES)})

    result = retrieve(workspace, prompt)

    assert result.facts and result.facts[0].statement == answer


@pytest.mark.parametrize(
    ("said", "written"),
    [("knock-off", "discount"), ("unpaid", "overdue"), ("arrears", "outstanding"), ("pass-up", "escalated"),
     ("salesperson", "consultant"), ("reps", "salespeople"), ("bill", "charged"), ("gp", "doctor"), ("unwell", "sick"),
     ("boots", "footwear")],
)
def test_everyday_words_and_the_policy_s_words_are_one_group(said: str, written: str) -> None:
    assert stem(written.split("-")[0]) in synonyms(stem(said.split("-")[0]))
