"""`manage.py evaluate DATASET --half tune|test`, `--save PATH` and `--against PATH`
(memory/evaluation/compare.py), and the all-evidence rate's 95 % interval in every report
(issue 16 point 1)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from django.core.management import CommandError, call_command

from memory.evaluation.compare import sign_test
from memory.evaluation.runner import NOT_ANSWERED, wilson
from tests.conftest import evaluation_company

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("evaluate", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _company(tmp_path: Path) -> Path:
    """A company of one page: two answerable questions (tune and test) and a no-answer one."""
    return evaluation_company(tmp_path, (
        "# Offices\n\nThe Lyon office opened in 2019 and employs forty people.\n\n"
        "## Parking\n\nThe Porto office has twelve parking spaces for staff.\n"
    ), [
        {"question": "When did the Lyon office open?", "category": "fact", "expected": ["opened in 2019"], "half": "tune"},
        {"question": "How many parking spaces does the Porto office have?", "category": "fact",
         "expected": ["twelve parking spaces"], "half": "test"},
        {"question": "What is the office dog called?", "category": "no_answer", "expected": [], "half": "test"},
    ])


def test_the_sign_test_is_exact_and_two_sided() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(1, 0) == 1.0  # one question either way proves nothing
    assert sign_test(3, 1) == pytest.approx(0.625)
    assert sign_test(5, 0) == pytest.approx(0.0625)
    assert sign_test(0, 6) == pytest.approx(0.03125)
    assert sign_test(2, 2) == 1.0


def test_the_wilson_interval_brackets_the_rate_and_stays_within_zero_and_one() -> None:
    lo, hi = wilson(32, 40)
    assert (round(lo, 3), round(hi, 3)) == (0.652, 0.895)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(40, 40)[1] == 1.0 and wilson(40, 40)[0] == pytest.approx(0.912, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0


def test_every_report_gives_the_all_evidence_rate_with_its_interval_per_half(tmp_path: Path) -> None:
    text = run("harbourline", "--data", str(_company(tmp_path)))
    for label, figures in (("", r"2/2 \(1\.000; 95 % interval 0\.342-1\.000\)"),
                           (r"\[tune\]", r"1/1 \(1\.000; 95 % interval 0\.207-1\.000\)"),
                           (r"\[test\]", r"1/1 \(1\.000; 95 % interval 0\.207-1\.000\)")):
        assert re.search(rf"^all evidence in the top 10{label}: {figures}$", text, re.MULTILINE), label


def test_a_saved_run_compared_with_itself_changes_nothing(tmp_path: Path) -> None:
    questions = _company(tmp_path)
    saved = tmp_path / "run.json"
    run("harbourline", "--data", str(questions), "--save", str(saved))
    data = json.loads(saved.read_text())
    assert data["format"] == 1 and data["dataset"] == "harbourline"
    assert [(q["half"], q["hit"], q["unanswerable"]) for q in data["questions"]] == [
        ("tune", True, False), ("test", True, False), ("test", False, True)]
    text = run("harbourline", "--data", str(questions), "--against", str(saved))
    assert "against " + str(saved) + " (3 of 3 questions matched; 3 in the saved run)" in text
    assert "[test] all evidence in the top 10: 1 -> 1 of 1; gained 0, lost 0 (sign test p = 1.00)" in text
    assert "[tune] all evidence in the top 10: 1 -> 1 of 1; gained 0, lost 0 (sign test p = 1.00)" in text
    assert not re.search(r"^  [+~-] ", text, re.MULTILINE)


def _against_an_earlier_run(tmp_path: Path, change: Callable[[list[dict[str, Any]]], None]) -> str:
    """This run's report against a saved run of the same questions, `change`d as if an earlier
    engine had answered them otherwise."""
    questions = _company(tmp_path)
    saved = tmp_path / "run.json"
    run("harbourline", "--data", str(questions), "--save", str(saved))
    data = json.loads(saved.read_text())
    change(data["questions"])
    saved.write_text(json.dumps(data))
    return run("harbourline", "--data", str(questions), "--against", str(saved))


def test_questions_answered_differently_are_listed_by_half(tmp_path: Path) -> None:
    flagged: list[bool] = []

    def earlier(rows: list[dict[str, Any]]) -> None:
        # The test question missed, the no-answer one judged the other way, one more question.
        rows[1].update(hit=False, recall10=0.0)
        flagged.append(rows[2]["coverage"] in NOT_ANSWERED)
        rows[2].update(coverage="partial" if flagged[0] else "minimal")
        rows.append(dict(rows[0], question="A question this run does not ask"))

    text = _against_an_earlier_run(tmp_path, earlier)
    assert "(3 of 3 questions matched; 4 in the saved run)" in text
    assert "[test] all evidence in the top 10: 0 -> 1 of 1; gained 1, lost 0 (sign test p = 1.00)" in text
    # Test-half questions are counted by category, their text withheld: nobody tunes on them.
    assert "  + [fact] (a test-half question: its text is withheld)" in text
    assert f"  {'+' if flagged[0] else '-'} (a test-half question: its text is withheld) (" in text
    assert "Porto" not in text and "office dog" not in text
    assert "[tune] all evidence in the top 10: 1 -> 1 of 1; gained 0, lost 0" in text


def test_tuning_half_questions_answered_differently_are_listed_by_their_text(tmp_path: Path) -> None:
    text = _against_an_earlier_run(tmp_path, lambda rows: rows[0].update(hit=False, recall10=0.0))
    assert "[tune] all evidence in the top 10: 0 -> 1 of 1; gained 1, lost 0 (sign test p = 1.00)" in text
    assert "  + [fact] When did the Lyon office open?" in text


def test_a_bad_saved_run_or_save_path_is_refused_before_anything_is_imported(tmp_path: Path) -> None:
    questions = _company(tmp_path)
    with pytest.raises(CommandError, match="is not a saved evaluation"):
        run("harbourline", "--data", str(questions), "--against", str(tmp_path / "missing.json"))
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(CommandError, match="is not a saved evaluation"):
        run("harbourline", "--data", str(questions), "--against", str(broken))
    broken.write_text(json.dumps({"format": 1, "dataset": "harbourline", "questions": [{"question": "q"}]}))
    with pytest.raises(CommandError, match="a question lacks one of"):
        run("harbourline", "--data", str(questions), "--against", str(broken))
    broken.write_text(json.dumps({"format": 1, "dataset": "locomo", "questions": []}))
    with pytest.raises(CommandError, match="a run of 'locomo', not of 'harbourline'"):
        run("harbourline", "--data", str(questions), "--against", str(broken))
    with pytest.raises(CommandError, match="is not a folder"):
        run("harbourline", "--data", str(questions), "--save", str(tmp_path / "nowhere" / "run.json"))
    with pytest.raises(CommandError, match="takes none"):
        run("followups", "--data", str(questions), "--save", str(tmp_path / "run.json"))


def test_half_asks_only_that_halfs_questions_and_prints_nothing_of_the_other(tmp_path: Path) -> None:
    questions = _company(tmp_path)
    text = run("harbourline", "--data", str(questions), "--half", "tune")
    assert "1 answerable and 0 unanswerable questions (the tune half only)" in text
    assert "[test]" not in text and "unanswerable:" not in text
    assert re.search(r"^all evidence in the top 10: 1/1 ", text, re.MULTILINE)
    text = run("harbourline", "--data", str(questions), "--half", "test")
    assert "1 answerable and 1 unanswerable questions (the test half only)" in text and "[tune]" not in text


def test_a_half_run_against_a_whole_run_compares_the_questions_it_asked(tmp_path: Path) -> None:
    questions = _company(tmp_path)
    saved = tmp_path / "run.json"
    run("harbourline", "--data", str(questions), "--save", str(saved))
    text = run("harbourline", "--data", str(questions), "--half", "tune", "--against", str(saved))
    assert "(1 of 1 questions matched; 3 in the saved run)" in text
    assert "[tune] all evidence in the top 10: 1 -> 1 of 1" in text and "[test]" not in text


def test_a_half_without_questions_and_half_on_followups_are_refused(tmp_path: Path) -> None:
    questions = _company(tmp_path)
    rows = [json.loads(line) for line in questions.read_text().splitlines()]
    questions.write_text("".join(json.dumps(dict(r, half="tune")) + "\n" for r in rows))
    with pytest.raises(CommandError, match=r"No questions were asked \(the test half holds none\)"):
        run("harbourline", "--data", str(questions), "--half", "test")
    with pytest.raises(CommandError, match="takes none"):
        run("followups", "--data", str(questions), "--half", "tune")
