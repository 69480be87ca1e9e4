"""`python manage.py evaluate companies --data eval/sets/NAME.json` (issue 16, point 1): a named
set of question files over several companies, each company imported once for all its files,
reported per category, per half and per company beside the baselines. The repository's sets
(`eval/sets/`) name every held-out and tuning file once."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memory.evaluation.datasets import DEFAULT_PATHS, company_set
from memory.models import Workspace

pytestmark = pytest.mark.django_db

SETS = DEFAULT_PATHS["companies"].parent
COMPANIES = sorted(p.parent.name for p in SETS.parent.glob("*/corpus"))
NUMBERED = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth")


def _company(root: Path, name: str, page: str, files: dict[str, list[dict[str, object]]]) -> None:
    (root / name / "corpus").mkdir(parents=True)
    (root / name / "corpus" / "page.md").write_text(page)
    for file, rows in files.items():
        (root / name / file).write_text("".join(json.dumps(r) + "\n" for r in rows))


def _set(root: Path, entries: list[dict[str, object]]) -> Path:
    (root / "sets").mkdir(exist_ok=True)
    path = root / "sets" / "mine.json"
    path.write_text(json.dumps({"sets": entries}))
    return path


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("evaluate", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_a_set_asks_every_file_of_each_company_against_one_import_and_prints_a_line_per_company(tmp_path: Path) -> None:
    _company(tmp_path, "acme", "# Offices\n\nThe Lyon office opened in 2019.\n", {
        "a.jsonl": [{"question": "When did the Lyon office open?", "category": "fact", "expected": ["2019"], "half": "test"}],
        "b.jsonl": [{"question": "What is the office dog called?", "category": "no_answer", "expected": [], "half": "test"}],
    })
    _company(tmp_path, "bolt", "# Fleet\n\nBolt runs twelve electric vans from Leeds.\n", {
        "a.jsonl": [{"question": "How many electric vans does Bolt run?", "category": "fact", "expected": ["twelve"], "half": "test"}],
    })
    path = _set(tmp_path, [{"folder": "../acme", "files": ["a.jsonl", "b.jsonl"]}, {"folder": "../bolt", "files": ["a.jsonl"]}])

    text = run("companies", "--data", str(path))

    assert "companies: 2 workspace(s)" in text and "2 answerable and 1 unanswerable questions" in text
    assert re.search(r"^  acme +PAM 1/1 +BM25 1/1 .*no-answer flagged \d/1$", text, re.MULTILINE), text
    assert re.search(r"^  bolt +PAM 1/1 +BM25 1/1 .*no-answer flagged 0/0$", text, re.MULTILINE), text
    assert Workspace.objects.filter(slug__startswith="eval-").count() == 0  # both deleted


@pytest.mark.parametrize(
    "entry, complaint",
    [
        ({"folder": "../nowhere", "files": ["a.jsonl"]}, "holds no corpus/ folder"),
        ({"folder": "../acme", "files": ["missing.jsonl"]}, "must name question files in that folder"),
        ({"folder": "../acme", "files": ["../acme/a.jsonl"]}, "must name question files in that folder"),
        ({"folder": "../acme", "files": []}, "must name question files in that folder"),
        ({"folder": "../acme"}, "KeyError"),
    ],
)
def test_a_set_naming_what_is_not_a_company_s_question_file_is_refused_before_any_import(
    tmp_path: Path, entry: dict[str, object], complaint: str
) -> None:
    _company(tmp_path, "acme", "# A\n\nAcme is based in Lyon.\n", {
        "a.jsonl": [{"question": "Where is Acme based?", "category": "fact", "expected": ["Lyon"], "half": "test"}],
    })
    # The good entry first: a bad one later must not be found only after it was imported.
    path = _set(tmp_path, [{"folder": "../acme", "files": ["a.jsonl"]}, entry])
    workspaces = Workspace.objects.count()

    with pytest.raises(CommandError, match=rf"not a companies file .*{re.escape(complaint)}"):
        run("companies", "--data", str(path))
    assert Workspace.objects.count() == workspaces


def test_an_empty_set_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not a companies file"):
        run("companies", "--data", str(_set(tmp_path, [])))


def _files(name: str) -> set[tuple[str, str]]:
    """The (company, question file) pairs a repository set names; every file is read and checked."""
    data = json.loads((SETS / f"{name}.json").read_text())
    corpora = list(company_set(SETS / f"{name}.json"))
    return {(corpus.name, f) for corpus, entry in zip(corpora, data["sets"]) for f in entry["files"]}


def test_each_held_out_file_is_in_exactly_one_numbered_set_and_all_of_them_in_the_held_out_set() -> None:
    numbered = [pair for name in NUMBERED for pair in _files(name)]
    held_out = {(c, p.name) for c in COMPANIES for p in (SETS.parent / c).glob("holdout*.jsonl")}
    assert sorted(numbered) == sorted(held_out) and len(numbered) == len(set(numbered))
    assert _files("held-out") == held_out | {(c, "questions.jsonl") for c in COMPANIES}


def test_the_tuning_set_holds_the_demo_and_every_company_s_tuning_half_and_tuning_sets() -> None:
    probes = {(c, p.name) for c in COMPANIES for p in (SETS.parent / c).glob("probe*.jsonl")}
    assert _files("tuning") == probes | {(c, "questions.jsonl") for c in [*COMPANIES, "demo"]}
