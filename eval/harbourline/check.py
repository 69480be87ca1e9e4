"""Validate the Harbourline evaluation set (questions.jsonl against corpus/).

Plain Python, standard library only. Run from anywhere:

    python3 eval/harbourline/check.py

Checks, each failure printed with the question id:
  * every line is a JSON object with the fields id, question, category, half, expected,
    evidence, answer; ids are hl-001, hl-002, ... in order; categories and halves are known;
  * every evidence quote occurs verbatim in its file (raw text, so CSV rows and JSON lines too);
  * every expected substring occurs (case-insensitive) in at least one of its evidence files,
    is on one line, and every evidence piece's file holds at least one expected substring;
  * multi_hop questions have at least two pieces of evidence in different files;
    no_answer questions have no expected substrings and no evidence, all others have both;
  * halves follow the fixed alternation within each category (tune, test, tune, ...);
  * the minimum counts of the brief: documents, questions and categories.

Exits 1 on any failure, 0 otherwise, after printing the counts per category and half.
"""

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
QUESTIONS = HERE / "questions.jsonl"

FIELDS = ("id", "question", "category", "half", "expected", "evidence", "answer")
CATEGORIES = (
    "single_fact", "table_lookup", "multi_hop", "entity_attribute",
    "paraphrase", "newest_wins", "superlative", "no_answer",
)
HALVES = ("tune", "test")
MIN_DOCUMENTS = 44
MIN_QUESTIONS = 84
MIN_PER_CATEGORY = {
    "multi_hop": 16, "no_answer": 6, "entity_attribute": 8, "paraphrase": 8, "newest_wins": 6,
}
MIN_TABLE_QUESTIONS = 10  # table_lookup + superlative, over CSV or JSON files
TABLE_SUFFIXES = (".csv", ".json")


def read_text(path: Path, cache: dict[Path, str]) -> str:
    if path not in cache:
        cache[path] = path.read_text(encoding="utf-8")
    return cache[path]


def check_question(q: dict, position: int, cache: dict[Path, str]) -> list[str]:
    errors: list[str] = []
    missing = [f for f in FIELDS if f not in q]
    if missing:
        return [f"missing fields {missing}"]
    if q["id"] != f"hl-{position:03d}":
        errors.append(f"id should be hl-{position:03d}")
    if q["category"] not in CATEGORIES:
        errors.append(f"unknown category {q['category']!r}")
    if q["half"] not in HALVES:
        errors.append(f"unknown half {q['half']!r}")
    if not q["question"].strip() or not q["answer"].strip():
        errors.append("empty question or answer")

    expected, evidence = q["expected"], q["evidence"]
    if q["category"] == "no_answer":
        if expected or evidence:
            errors.append("no_answer questions have no expected substrings and no evidence")
        return errors
    if not expected or not evidence:
        errors.append("answerable questions need expected substrings and evidence")
        return errors

    texts: list[str] = []
    for piece in evidence:
        path = CORPUS / piece["file"]
        if not path.is_file():
            errors.append(f"evidence file {piece['file']} does not exist")
            texts.append("")
            continue
        text = read_text(path, cache)
        texts.append(text)
        if piece["quote"] not in text:
            errors.append(f"quote not verbatim in {piece['file']}: {piece['quote'][:60]!r}")

    for sub in expected:
        if "\n" in sub:
            errors.append(f"expected substring spans lines: {sub!r}")
        if not any(sub.lower() in t.lower() for t in texts):
            errors.append(f"expected {sub!r} is in none of its evidence files")
    for piece, text in zip(evidence, texts):
        if text and not any(sub.lower() in text.lower() for sub in expected):
            errors.append(f"evidence {piece['file']} holds none of the expected substrings")

    if q["category"] == "multi_hop":
        files = {piece["file"] for piece in evidence}
        if len(evidence) < 2 or len(files) < 2:
            errors.append("multi_hop needs two pieces of evidence in different files")
    return errors


def main() -> int:
    failures: list[str] = []
    questions = []
    for n, line in enumerate(QUESTIONS.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            failures.append(f"line {n}: blank line")
            continue
        try:
            questions.append(json.loads(line))
        except json.JSONDecodeError as exc:
            failures.append(f"line {n}: not JSON ({exc})")

    cache: dict[Path, str] = {}
    seen_in_category: Counter[str] = Counter()
    for position, q in enumerate(questions, 1):
        for err in check_question(q, position, cache):
            failures.append(f"{q.get('id', f'line {position}')}: {err}")
        category = q.get("category")
        want = HALVES[seen_in_category[category] % 2]
        if q.get("half") != want:
            failures.append(f"{q.get('id')}: half should be {want} (fixed alternation per category)")
        seen_in_category[category] += 1

    documents = [p for p in CORPUS.rglob("*") if p.is_file()]
    by_kind = Counter(p.suffix.lstrip(".") or "(none)" for p in documents)
    counts = Counter((q.get("category"), q.get("half")) for q in questions)
    per_category = Counter(q.get("category") for q in questions)
    table_questions = sum(
        1 for q in questions
        if q.get("category") in ("table_lookup", "superlative")
        and any(e["file"].endswith(TABLE_SUFFIXES) for e in q.get("evidence", []))
    )

    if len(documents) < MIN_DOCUMENTS:
        failures.append(f"only {len(documents)} documents, need {MIN_DOCUMENTS}")
    if len(questions) < MIN_QUESTIONS:
        failures.append(f"only {len(questions)} questions, need {MIN_QUESTIONS}")
    for category, minimum in MIN_PER_CATEGORY.items():
        if per_category[category] < minimum:
            failures.append(f"only {per_category[category]} {category} questions, need {minimum}")
    if table_questions < MIN_TABLE_QUESTIONS:
        failures.append(f"only {table_questions} table questions, need {MIN_TABLE_QUESTIONS}")
    for category in CATEGORIES:
        if abs(counts[(category, "tune")] - counts[(category, "test")]) > 1:
            failures.append(f"{category}: halves differ by more than one")

    print(f"documents: {len(documents)} ({', '.join(f'{k} {v}' for k, v in sorted(by_kind.items()))})")
    print(f"questions: {len(questions)}; table/superlative over CSV or JSON: {table_questions}")
    print(f"{'category':<18}{'tune':>6}{'test':>6}{'total':>7}")
    for category in CATEGORIES:
        tune, test = counts[(category, "tune")], counts[(category, "test")]
        print(f"{category:<18}{tune:>6}{test:>6}{tune + test:>7}")
    tune_all = sum(v for (_, h), v in counts.items() if h == "tune")
    test_all = sum(v for (_, h), v in counts.items() if h == "test")
    print(f"{'all':<18}{tune_all:>6}{test_all:>6}{tune_all + test_all:>7}")

    for failure in failures:
        print("FAIL", failure)
    print("OK" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
