"""The evaluation companies (`eval/harbourline`, `eval/wrenfield`, `eval/corvane`,
`eval/meridian`, `eval/tasmanlight`; issue 16 point 1) stay
well-formed: every evidence file exists and holds every expected substring, the halves
alternate tune/test within each category as fixed before any evaluation, and no-answer
questions expect nothing. What the questions ask is not read here."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from memory.evaluation.datasets import DEFAULT_PATHS, LOADERS

COMPANIES = ["harbourline", "wrenfield", "corvane", "meridian", "tasmanlight"]


def questions(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in DEFAULT_PATHS[name].read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", COMPANIES)
def test_every_expected_substring_is_in_an_evidence_file_of_its_question(name: str) -> None:
    corpus = DEFAULT_PATHS[name].parent / "corpus"
    for q in questions(name):
        evidence = q["evidence"]
        assert isinstance(evidence, list)
        texts = [(corpus / str(e["file"])).read_text(encoding="utf-8").lower() for e in evidence]
        expected = q["expected"]
        assert isinstance(expected, list)
        for substring in expected:
            assert any(str(substring).lower() in text for text in texts), (q["id"], substring)


@pytest.mark.parametrize("name", COMPANIES)
def test_halves_alternate_within_each_category_and_no_answer_questions_expect_nothing(name: str) -> None:
    seen: Counter[str] = Counter()
    for q in questions(name):
        category = str(q["category"])
        assert q["half"] == ("tune" if seen[category] % 2 == 0 else "test"), q["id"]
        seen[category] += 1
        assert (category == "no_answer") == (not q["expected"]), q["id"]
    assert sum(seen.values()) >= 80


@pytest.mark.parametrize("name", COMPANIES)
def test_the_loader_reads_each_company_as_one_corpus_with_both_halves(name: str) -> None:
    corpora = list(LOADERS[name](DEFAULT_PATHS[name]))

    assert len(corpora) == 1
    assert isinstance(corpora[0].folder, Path) and corpora[0].folder.is_dir()
    assert {case.half for case in corpora[0].cases} == {"tune", "test"}
