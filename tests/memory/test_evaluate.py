"""`python manage.py evaluate DATASET [--data PATH] [--limit N]` (issue 5, point 1).

The datasets here are small files written by the tests in the public formats (LoCoMo, QMSum);
the real benchmark data is read from ../shared/data by the command and never copied here.
"""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from memory.evaluation.datasets import Case, company, locomo, locomo_evidence, locomo_time
from memory.evaluation.runner import Outcome, Score, _dedupe, against_lines, evaluate, rrf_fusion, score, session_score
from memory.models import Fact, Workspace
from tests.conftest import evaluation_company

pytestmark = pytest.mark.django_db

SUMMARY = re.compile(
    r"^(?P<name>[\w-]+): recall@5=(?P<r5>[\d.]+) recall@10=(?P<r10>[\d.]+) mrr@10=(?P<mrr>[\d.]+) "
    r"p50_ms=(?P<p50>[\d.]+) p95_ms=(?P<p95>[\d.]+)$"
)


def run(*args: str) -> list[str]:
    out = io.StringIO()
    call_command("evaluate", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue().splitlines()


def summary(lines: list[str]) -> dict[str, Any]:
    match = SUMMARY.match(lines[-1])
    assert match, lines[-1]
    return {k: v if k == "name" else float(v) for k, v in match.groupdict().items()}


def test_scores_count_the_gold_found_at_each_depth() -> None:
    case = Case("q", "c", ["a", "b"])
    ranked: list[set[str]] = [set(), {"a"}, set(), set(), set(), {"b"}]
    s = score(case, ranked, any_gold=False)
    assert (s.recall5, s.recall10, s.all10, s.mrr10) == (0.5, 1.0, 1.0, 0.5)
    ideal = 1 + 1 / math.log2(3)
    assert s.ndcg10 == pytest.approx((1 / math.log2(3) + 1 / math.log2(7)) / ideal)
    # QMSum counts a question found when any turn of its spans is found.
    assert score(Case("q", "c", ["a", "b", "c"]), [{"c"}], any_gold=True).recall5 == 1.0
    assert score(case, [set()] * 10, any_gold=False).mrr10 == 0.0


def test_the_facts_of_one_message_count_once_at_the_best_rank_with_all_their_text() -> None:
    # A mail's sign-off ranked first and its answer second: the unit holds both texts, so an
    # expected substring in the second is found (it was judged on the first alone).
    units = [("<m1@x>", "Eoin Byrne: Pharmacy & Stock Coordinator"), ("", "Late orders at Clonmel."),
             ("<m1@x>", "Eoin Byrne: The order cut-off becomes 2 pm.")]

    assert _dedupe(units) == [
        ("<m1@x>", "Eoin Byrne: Pharmacy & Stock Coordinator\nEoin Byrne: The order cut-off becomes 2 pm."),
        ("", "Late orders at Clonmel."),
    ]


def test_locomo_evidence_ids_are_normalised() -> None:
    known = {"D8:6", "D9:17", "D9:1", "D4:4", "D4:6", "D11:26"}
    raw = ["D8:6; D9:17", "D9:1 D4:4 D4:6", "D:11:26", "D30:05", "D", "D4:4"]
    assert locomo_evidence(raw, known) == ["D8:6", "D9:17", "D9:1", "D4:4", "D4:6"]
    assert locomo_time("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"  # type: ignore[union-attr]
    assert locomo_time("sometime") is None


def _locomo_file(tmp_path: Path) -> Path:
    sample = {
        "sample_id": "conv-test",
        "conversation": {
            "speaker_a": "Ines",
            "speaker_b": "Tomas",
            "session_1_date_time": "10:00 am on 3 March, 2024",
            "session_1": [
                {"speaker": "Ines", "dia_id": "D1:1", "text": "Hi Tomas! I adopted a greyhound called Pepper last week."},
                {"speaker": "Tomas", "dia_id": "D1:2", "text": "Congratulations! How is the new dog settling in?"},
                {"speaker": "Ines", "dia_id": "D1:3", "text": "Pepper sleeps all day on the sofa, very calm.",
                 "blip_caption": "a photo of a grey dog on a sofa"},
            ],
            "session_2_date_time": "4:30 pm on 20 April, 2024",
            "session_2": [
                {"speaker": "Tomas", "dia_id": "D2:1", "text": "I finished the Lisbon half marathon in two hours."},
                {"speaker": "Ines", "dia_id": "D2:2", "text": "Impressive! I am still learning the cello."},
            ],
        },
        "qa": [
            {"question": "What is the name of Ines's greyhound?", "answer": "Pepper", "evidence": ["D1:1"], "category": 4},
            {"question": "When did Tomas run the Lisbon half marathon?", "answer": "April 2024",
             "evidence": ["D2:1; D9:9"], "category": 2},
            {"question": "Which instrument is Ines learning and what dog did she adopt?", "answer": "cello, greyhound",
             "evidence": ["D2:2 D1:1"], "category": 1},
            {"question": "What colour is Tomas's submarine?", "evidence": ["D2:1"], "category": 5,
             "adversarial_answer": "yellow"},
        ],
    }
    path = tmp_path / "locomo-mini.json"
    path.write_text(json.dumps([sample]))
    return path


def test_locomo_turns_become_facts_with_their_dialogue_ids(tmp_path: Path) -> None:
    corpus = next(locomo(_locomo_file(tmp_path)))
    assert [item["external_id"] for item in corpus.items] == ["conv-test/session_1", "conv-test/session_2"]
    first = corpus.items[0]["messages"][2]
    assert first["id"] == "D1:3" and first["author"] == "Ines"
    assert first["text"].endswith("[shares a photo: a photo of a grey dog on a sofa]")
    assert first["sent_at"] == "2024-03-03T10:00:00+00:00"
    assert [c.gold for c in corpus.cases] == [["D1:1"], ["D2:1"], ["D2:2", "D1:1"], ["D2:1"]]
    assert [c.unanswerable for c in corpus.cases] == [False, False, False, True]


def test_evaluate_locomo_imports_asks_scores_and_cleans_up(tmp_path: Path, workspace: Workspace) -> None:
    before = set(Workspace.objects.values_list("pk", flat=True))
    lines = run("locomo", "--data", str(_locomo_file(tmp_path)))
    assert set(Workspace.objects.values_list("pk", flat=True)) == before  # throwaway workspaces are gone
    assert not Fact.objects.exclude(workspace=workspace).exists()
    text = "\n".join(lines)
    assert "3 answerable and 1 unanswerable questions" in text
    for category in ("multi_hop", "single_hop", "temporal", "overall"):
        assert re.search(rf"^{category}\s+\d+\s+[\d.]+", text, re.MULTILINE), category
    assert re.search(r"^unanswerable: coverage none/minimal for \d/1 ", text, re.MULTILINE)
    baseline = summary([line for line in lines if line.startswith("locomo-bm25:")])  # dense adds lines
    assert baseline["r10"] == 1.0  # 5 turns: BM25 finds all
    result = summary(lines)
    assert result["name"] == "locomo"
    assert result["r10"] >= 0.8  # the two-part question may miss its weaker half (cello)
    assert 0 < result["p50"] <= result["p95"]


def test_evaluate_qmsum_scores_any_turn_of_the_gold_spans(tmp_path: Path) -> None:
    meeting = {
        "topic_list": [{"topic": "Remote control design", "relevant_text_span": [["0", "3"]]}],
        "general_query_list": [{"query": "Summarize the whole meeting.", "answer": "..."}],
        "specific_query_list": [
            {"query": "What did the group decide about the battery of the remote control?", "answer": "...",
             "relevant_text_span": [["2", "3"]]},
            {"query": "Why did Marketing want a fruit-shaped case?", "answer": "...", "relevant_text_span": [["4", "4"]]},
        ],
        "meeting_transcripts": [
            {"speaker": "Project Manager", "content": "Welcome everyone, let us start with the design."},
            {"speaker": "Industrial Designer", "content": "The case can be rubber or plastic."},
            {"speaker": "User Interface", "content": "A kinetic battery would remove the need to replace the battery."},
            {"speaker": "Project Manager", "content": "So we decide on the kinetic battery for the remote control."},
            {"speaker": "Marketing", "content": "Customers said they want a fruit-shaped case that looks fancy."},
        ],
    }
    path = tmp_path / "qmsum-mini.jsonl"
    path.write_text(json.dumps(meeting) + "\n")
    lines = run("qmsum", "--data", str(path))
    result = summary(lines)
    assert result["name"] == "qmsum" and result["r10"] == 1.0 and result["mrr"] == 1.0


def test_evaluate_demo_with_a_limit_asks_only_that_many_questions() -> None:
    lines = run("demo", "--limit", "12")
    assert "12 answerable and 0 unanswerable questions" in lines[0]
    assert summary(lines)["r5"] >= 0.75


def test_evaluate_refuses_a_missing_file_a_malformed_file_and_a_bad_limit(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="is not a file"):
        run("locomo", "--data", str(tmp_path / "missing.json"))
    broken = tmp_path / "broken.json"
    broken.write_text('[{"conversation": {}}]')
    with pytest.raises(CommandError, match="not a locomo file"):
        run("locomo", "--data", str(broken))
    with pytest.raises(CommandError, match="--limit"):
        run("demo", "--limit", "0")


def test_reciprocal_rank_fusion_adds_one_over_k_plus_rank_from_each_ranking() -> None:
    assert rrf_fusion([1, 2, 3], [3, 4], k=60) == [3, 1, 2, 4]
    assert rrf_fusion([7, 7, 8], []) == [7, 8]  # a repeated id counts at its first rank only


def test_locomo_conversations_one_to_five_tune_and_the_rest_test(tmp_path: Path) -> None:
    sample = json.loads(_locomo_file(tmp_path).read_text())[0]
    samples = [dict(sample, sample_id=f"conv-{n}") for n in range(1, 8)]
    path = tmp_path / "locomo-seven.json"
    path.write_text(json.dumps(samples))
    halves = [{c.half for c in corpus.cases} for corpus in locomo(path)]
    assert halves == [{"tune"}] * 5 + [{"test"}] * 2
    lines = run("locomo", "--data", str(path))
    text = "\n".join(lines)
    for half in ("tune", "test"):
        assert re.search(rf"^overall\[{half}\]\s+\d+\s+[\d.]+", text, re.MULTILINE), half
        assert re.search(rf"^calibration\[{half}\]: hits .* misses and no-answer", text, re.MULTILINE), half
        assert re.search(rf"^locomo\[{half}\]: recall@5=", text, re.MULTILINE), half
    assert summary(lines)["name"] == "locomo"


def test_a_company_question_with_an_unknown_half_is_refused(tmp_path: Path) -> None:
    questions = evaluation_company(tmp_path, "# A\n\nAcme is based in Lyon.\n",
                              [{"question": "Where?", "category": "x", "expected": ["Lyon"], "half": "both"}])
    with pytest.raises(CommandError, match="half must be"):
        run("harbourline", "--data", str(questions))


def test_calibration_counts_hits_reported_answered_and_misses_reported_flagged(tmp_path: Path) -> None:
    questions = evaluation_company(tmp_path, "# Offices\n\nThe Lyon office opened in 2019 and employs forty people.\n", [
        {"question": "When did the Lyon office open?", "category": "fact", "expected": ["opened in 2019"], "half": "tune"},
        {"question": "What is the office dog called?", "category": "no_answer", "expected": [], "half": "test"},
    ])
    text = "\n".join(run("harbourline", "--data", str(questions)))
    match = re.search(r"^calibration: hits .* (\d)/(\d) .*; misses and no-answer reported minimal/none (\d)/(\d) ", text, re.MULTILINE)
    assert match, text
    assert match.group(2) == "1" and match.group(4) == "1"  # one hit, one no-answer question


def test_session_level_scoring_ranks_each_session_at_its_first_turn() -> None:
    case = Case("q", "multi_hop", ["D3:4", "D7:1", "D3:9"])
    ranked = [("D1:2", ""), ("D3:1", ""), ("D3:4", ""), ("D5:5", ""), ("D7:2", "")]
    s = session_score(case, ranked)  # sessions D1, D3, D5, D7; gold sessions D3 and D7
    assert (s.recall5, s.all10, s.mrr10) == (1.0, 1.0, 0.5)
    assert session_score(case, [("D2:1", "")]).recall10 == 0.0


def test_evaluate_locomo_prints_session_level_recall_beside_turn_level(tmp_path: Path) -> None:
    text = "\n".join(run("locomo", "--data", str(_locomo_file(tmp_path))))
    match = re.search(r"^session-level \(3 questions\): PAM R@5=([\d.]+) .*; BM25 R@5=([\d.]+) ", text, re.MULTILINE)
    assert match, text
    assert float(match.group(2)) == 1.0  # two sessions: BM25's top 10 turns cover both


def test_each_outcome_keeps_what_the_coverage_assessment_read(tmp_path: Path) -> None:
    # bench/coverage_calibration.py replays `assess` from these: how each fact was reached and
    # whether the prompt names something the memory never mentions.
    questions = evaluation_company(tmp_path, "# Projects\n\nThe Project Harbor budget is $120,000 including the audit fee.\n", [
        {"question": "What is the budget for Project Harbor?", "category": "fact", "expected": ["$120,000"], "half": "tune"},
        {"question": "What is the budget for Project Orion?", "category": "no_answer", "expected": [], "half": "test"},
    ])
    report = evaluate("harbourline", company(questions))
    known, unknown = report.outcomes
    assert (known.unknown_name, unknown.unknown_name) == (False, True)
    assert known.linked == [""] * len(known.relevances) and len(known.linked) >= 1


def _outcome(pam: float, bm25: float, dense: float) -> Outcome:
    """An answerable question's outcome whose all-evidence figure (all@10) is given per ranking."""
    def at(all10: float) -> Score:
        return Score(recall5=all10, recall10=all10, all10=all10, mrr10=all10, ndcg10=all10)

    return Outcome(
        case=Case("q", "paraphrase", ["D1:1"]), pam=at(pam), bm25=at(bm25), coverage="partial",
        ms=0.0, bm25_ms=0.0, dense=at(dense), rrf=at(dense),
    )


def test_each_baseline_is_compared_question_by_question_not_only_by_its_total() -> None:
    # Two found by both, one by the engine alone, two by the dense stage alone: totals 3 and 4.
    outcomes = [_outcome(1, 1, 1), _outcome(1, 0, 1), _outcome(1, 0, 0), _outcome(0, 1, 1), _outcome(0, 0, 1)]

    assert against_lines(outcomes, ("bm25", "dense")) == [
        "all evidence in the top 10 by the engine alone (+) or the baseline alone (-): BM25 +2 -1, DENSE +1 -2"
    ]


def test_a_report_prints_the_question_by_question_comparison_with_its_baselines(tmp_path: Path) -> None:
    questions = evaluation_company(tmp_path, "# Offices\n\nThe Lyon office opened in 2019 and employs forty people.\n", [
        {"question": "When did the Lyon office open?", "category": "fact", "expected": ["opened in 2019"], "half": "tune"},
    ])
    text = "\n".join(run("harbourline", "--data", str(questions)))

    # Found by the engine and by BM25 alike: by neither alone.
    line = "all evidence in the top 10 by the engine alone (+) or the baseline alone (-): BM25 +0 -0"
    assert re.search(rf"^{re.escape(line)}", text, re.MULTILINE), text
