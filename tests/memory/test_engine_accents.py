"""Accented names in the engine (SPEC §2.3 retrieval; issue 16, companies the engine has never
seen): a question typed without a name's accents finds what a document wrote with them, and
the names a prompt asks about are read whatever their first letter (memory/engine/text.py
`fold`, `CAPITALS`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory.engine import retrieve
from memory.engine.answer_types import contact_holder
from memory.engine.rank import SPEAKER, capitalised_words
from memory.engine.text import fold, terms
from memory.models import Workspace
from tests.conftest import folder_import

SITES = """# Sites

Søren Ødegaard runs the Kraków warehouse.
Anna Nowak runs the Warsaw warehouse.
Zoë Brennan runs the Gdańsk office.
Łukasz Wójcik manages the fleet at every site.
"""


def test_a_word_s_accents_are_folded_so_a_name_typed_without_them_is_the_same_term() -> None:
    assert terms("Kraków") == terms("Krakow") == ["krakow"]  # not the two terms krak and w
    assert terms("Søren Ødegaard, Łukasz Wójcik, Zoë") == terms("Soren Odegaard, Lukasz Wojcik, Zoe")
    assert terms("Nguyễn Thị") == ["nguyen", "thi"]
    assert terms("Straße, the ﬁrst café") == terms("Strasse, the first cafe")


def test_plain_text_is_its_own_folding() -> None:
    text = "Ana approved the Q3 budget on 2026-05-04 (1,200 EUR)."
    assert fold(text) is text
    assert fold("naïve “quotes” — kept") == "naive “quotes” — kept"  # punctuation is not a letter's accent


def test_a_question_typed_without_accents_finds_the_fact_written_with_them(
    workspace: Workspace, settings: Any, tmp_path: Path
) -> None:
    settings.PAM_DENSE = False  # the words alone: the dense stage would reach it by meaning
    folder_import(workspace, tmp_path / "ops", {"sites.md": SITES})

    krakow = retrieve(workspace, "Who runs the Krakow warehouse?")
    soren = retrieve(workspace, "What does Soren Odegaard run?")

    assert krakow.facts[0].statement == "Sites: Søren Ødegaard runs the Kraków warehouse."
    assert soren.facts[0].statement == "Sites: Søren Ødegaard runs the Kraków warehouse."


def test_a_name_asked_about_is_read_whatever_its_first_letter() -> None:
    assert capitalised_words("Which accounts does Łukasz Nowak own?") == ["Łukasz", "Nowak"]
    assert capitalised_words("Is Émile on call?") == ["Émile"]
    assert contact_holder("What's Émile Durand's mobile?") == ["emil", "durand"]
    assert contact_holder("What is the phone number for Øyvind?") == ["oyvind"]
    speaker = SPEAKER.match("Øyvind Berg: ship it Friday")
    assert speaker is not None and speaker.group(1) == "Øyvind Berg"
