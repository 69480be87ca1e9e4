"""Import a dataset through the normal pipeline, ask its questions through the engine, score.

Every corpus goes into its own throwaway workspace (deleted afterwards, with a throwaway data
directory) and is imported by the same in-process sync a Celery worker runs. Each question is
asked through `memory.engine.search.retrieve`, the function `retrieve_memory` calls, and beside
it through a plain BM25 baseline over the same facts of the same published index, so every
figure has its baseline measured in the same run.
"""

from __future__ import annotations

import math
import shutil
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import tantivy
from django.conf import settings
from django.test import override_settings

from memory.engine import dense
from memory.engine.index import LoadedIndex, index_for
from memory.engine.search import retrieve
from memory.engine.text import terms
from memory.evaluation.datasets import Case, Corpus, session_of
from memory.models import Fact, PipelineRun, Workspace
from memory.services import source_import, workspace_create
from memory.sources.push import item_write

K = 10
RRF_K = 60  # the reciprocal-rank-fusion constant of Cormack et al. (2009)
ANSWERED = ("comprehensive", "partial")  # coverage that tells the agent to use the answer
NOT_ANSWERED = ("minimal", "none")  # coverage that tells it the memory does not hold it
WILSON_Z = 1.96  # the normal quantile of a two-sided 95 % interval


@dataclass
class Score:
    recall5: float
    recall10: float
    all10: float
    mrr10: float
    ndcg10: float


@dataclass
class Outcome:
    case: Case
    pam: Score
    bm25: Score
    coverage: str
    ms: float
    bm25_ms: float
    dense: Score | None = None  # the dense-only baseline, with the dense stage on
    dense_ms: float = 0.0
    rrf: Score | None = None  # BM25 and dense fused by reciprocal rank, with the dense stage on
    pam_sessions: Score | None = None  # session-level (LoCoMo): a session is found when any of
    bm25_sessions: Score | None = None  # its turns is, ranked by its first turn's rank
    relevances: list[float] = field(default_factory=list)  # the facts' relevance_score, best first
    joint_coverage: float = 0.0  # the engine's share of the prompt the facts hold together
    statements: list[str] = field(default_factory=list)  # the facts returned, best first
    linked: list[str] = field(default_factory=list)  # how each fact was reached (FactHit.linked)
    unknown_name: bool = False  # the prompt names what the memory never mentions
    meant: bool = False  # the rank chose the fact the dense stage holds clearly nearest (Retrieval.meant_fact)
    corpus: str = ""  # the corpus asked (a company of a set, a conversation)


@dataclass
class Report:
    dataset: str
    outcomes: list[Outcome] = field(default_factory=list)
    workspaces: int = 0
    facts: int = 0
    import_seconds: float = 0.0
    half: str | None = None  # the only half asked (`evaluate --half`), or None for both


def score(case: Case, ranked: list[set[str]], any_gold: bool) -> Score:
    """`ranked[i]` is the set of gold units the i-th result covers (empty when none)."""
    gold = set(case.gold)
    need = 1 if any_gold else max(1, len(gold))

    def found(k: int) -> set[str]:
        out: set[str] = set()
        for covered in ranked[:k]:
            out |= covered
        return out & gold

    def recall(k: int) -> float:
        return min(1.0, len(found(k)) / need)

    mrr = 0.0
    dcg = 0.0
    seen: set[str] = set()
    for i, covered in enumerate(ranked[:K]):
        new = (covered & gold) - seen
        if covered & gold and mrr == 0.0:
            mrr = 1.0 / (i + 1)
        if new:
            dcg += 1.0 / math.log2(i + 2)
            seen |= new
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), K)))
    return Score(
        recall5=recall(5),
        recall10=recall(10),
        all10=1.0 if found(10) >= gold else 0.0,
        mrr10=mrr,
        ndcg10=dcg / ideal if ideal else 0.0,
    )


def _judge(corpus: Corpus, case: Case, units: list[tuple[str, str]]) -> list[set[str]]:
    """Which gold items each result covers: by locator, or by expected substring."""
    if corpus.scoring == "substrings":
        return [{g for g in case.gold if g.lower() in statement.lower()} for _, statement in units]
    return [{locator} if locator in case.gold else set() for locator, _ in units]


def session_score(case: Case, ranked: list[tuple[str, str]]) -> Score:
    """The question scored over sessions instead of turns, as published LoCoMo retrieval
    figures count them: the ranked turns become their distinct sessions, in order."""
    sessions = list(dict.fromkeys(session_of(locator) for locator, _ in ranked if locator))
    gold = Case(case.question, case.category, list(dict.fromkeys(session_of(g) for g in case.gold)))
    return score(gold, [{s} & set(gold.gold) for s in sessions], any_gold=False)


def _dedupe(units: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """One result per unit: a long turn (or a mail) split into several facts counts once, at
    its best rank, holding the text of every one of its facts returned (an expected answer in
    a mail's third paragraph is found when that fact is returned, whichever fact ranked first)."""
    texts: dict[str, list[str]] = {}
    order: list[tuple[str, str]] = []
    for locator, statement in units:
        key = locator or statement
        if key not in texts:
            texts[key] = []
            order.append((key, locator))
        texts[key].append(statement)
    return [(locator, "\n".join(texts[key])) for key, locator in order]


def bm25_baseline(index: LoadedIndex, question: str, k: int = K) -> list[int]:
    """Plain BM25: one OR query of the question's analyzed terms over the facts' text."""
    unique = list(dict.fromkeys(terms(question)))
    if not unique:
        return []
    query = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(index.index.schema, "terms", t)) for t in unique]
    )
    # A few extra hits: several facts of one long turn collapse into one unit.
    hits = index.searcher.search(query, k * 3).hits
    return [int(index.searcher.doc(address)["fact_id"][0]) for _, address in hits]


def rrf_fusion(*rankings: list[int], k: int = RRF_K) -> list[int]:
    """Reciprocal-rank fusion: each id scores the sum of 1 / (k + rank) over the rankings."""
    fused: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for rank, item in enumerate(dict.fromkeys(ranking), start=1):
            fused[item] += 1.0 / (k + rank)
    return sorted(fused, key=lambda item: -fused[item])


def import_corpus(corpus: Corpus) -> Workspace:
    tag = uuid.uuid4().hex[:10]
    workspace = workspace_create(
        slug=f"eval-{tag}",
        admin_email=f"eval-{tag}@pam.invalid",
        admin_password=uuid.uuid4().hex,
        plan_name="unlimited",
        name=f"Evaluation: {corpus.name}",
    )
    if corpus.folder is not None:
        path, kind = corpus.folder, "auto"
    else:  # a folder of items, as the items API writes them
        path, kind = Path(settings.PAM_DATA_DIR) / "evaluation" / tag, "items"
        path.mkdir(parents=True)
        for item in corpus.items:
            item_write(path, item)
    run = source_import(workspace=workspace, path=path, kind=kind, name=corpus.name).run
    if run is None or run.status != PipelineRun.Status.COMPLETED:
        raise RuntimeError(f"importing {corpus.name} did not complete: {run.errors if run else 'no run'}")
    return workspace


def evaluate(
    dataset: str,
    corpora: Iterable[Corpus],
    *,
    limit: int | None = None,
    half: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Ask every corpus's questions (of `half` only, when given: a corpus with none there is
    not imported), at most `limit` in all."""
    report = Report(dataset, half=half)
    remaining = limit
    data_dir = Path(tempfile.mkdtemp(prefix="pam-eval-"))
    try:
        with override_settings(PAM_DATA_DIR=str(data_dir)):
            for corpus in corpora:
                if remaining is not None and remaining <= 0:
                    break
                cases = [c for c in corpus.cases if half is None or c.half == half]
                cases = cases if remaining is None else cases[:remaining]
                if remaining is not None:
                    remaining -= len(cases)
                if not cases:
                    continue
                started = time.perf_counter()
                workspace = import_corpus(corpus)
                report.import_seconds += time.perf_counter() - started
                try:
                    report.outcomes.extend(_ask(corpus, cases, workspace))
                    report.workspaces += 1
                    report.facts += Fact.objects.filter(workspace=workspace).count()
                finally:
                    workspace.delete()
                if progress:
                    progress(f"{corpus.name}: {len(cases)} questions")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return report


def _ask(corpus: Corpus, cases: list[Case], workspace: Workspace) -> list[Outcome]:
    units = {
        fid: (locator, statement)
        for fid, locator, statement in Fact.objects.filter(workspace=workspace).values_list("id", "locator", "statement")
    }
    index = index_for(workspace)
    if index is None:
        raise RuntimeError(f"{corpus.name}: no published index")
    outcomes = []
    for case in cases:
        started = time.perf_counter()
        result = retrieve(workspace, case.question, limit=K)
        ms = (time.perf_counter() - started) * 1000
        ranked = _dedupe(units.get(f.fact_id, ("", f.statement)) for f in result.facts)[:K]
        started = time.perf_counter()
        baseline_ids = bm25_baseline(index, case.question)
        bm25_ms = (time.perf_counter() - started) * 1000
        baseline = _dedupe(units[f] for f in baseline_ids if f in units)[:K]
        outcome = Outcome(
            case=case,
            pam=score(case, _judge(corpus, case, ranked), corpus.any_gold),
            bm25=score(case, _judge(corpus, case, baseline), corpus.any_gold),
            coverage=result.coverage_assessment,
            ms=ms,
            bm25_ms=bm25_ms,
            relevances=[f.relevance_score for f in result.facts],
            joint_coverage=result.joint_coverage,
            statements=[f.statement for f in result.facts],
            linked=[f.linked for f in result.facts],
            unknown_name=bool(result.unknown_names),
            meant=result.meant_fact is not None,
            corpus=corpus.name,
        )
        if corpus.sessions:
            # From the same ten turns as the turn-level figures, for both.
            outcome.pam_sessions = session_score(case, ranked)
            outcome.bm25_sessions = session_score(case, baseline)
        if index.vectors is not None:
            # Dense only: the nearest facts by cosine, nothing else.
            started = time.perf_counter()
            # Encoded afresh (not encode_query's cache, which the engine's call just filled).
            nearest = [f for f, _ in index.vectors.top(dense.encode([case.question])[0], K * 3)]
            outcome.dense_ms = (time.perf_counter() - started) * 1000
            only = _dedupe(units[f] for f in nearest if f in units)[:K]
            outcome.dense = score(case, _judge(corpus, case, only), corpus.any_gold)
            fused = _dedupe(units[f] for f in rrf_fusion(baseline_ids, nearest) if f in units)[:K]
            outcome.rrf = score(case, _judge(corpus, case, fused), corpus.any_gold)
        outcomes.append(outcome)
    return outcomes


# --- printing ---------------------------------------------------------------------------------


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def summary_line(name: str, outcomes: list[Outcome], which: str) -> str:
    scores = [getattr(o, which) for o in outcomes]
    times = [{"pam": o.ms, "bm25": o.bm25_ms, "dense": o.dense_ms, "rrf": o.bm25_ms + o.dense_ms}[which] for o in outcomes]
    return (
        f"{name}: recall@5={_mean([s.recall5 for s in scores]):.3f} "
        f"recall@10={_mean([s.recall10 for s in scores]):.3f} "
        f"mrr@10={_mean([s.mrr10 for s in scores]):.3f} "
        f"p50_ms={_pct(times, 50):.1f} p95_ms={_pct(times, 95):.1f}"
    )


def render(report: Report) -> list[str]:
    answerable = [o for o in report.outcomes if not o.case.unanswerable]
    unanswerable = [o for o in report.outcomes if o.case.unanswerable]
    baselines = ("bm25", "dense", "rrf") if all(o.dense is not None for o in report.outcomes) else ("bm25",)
    lines = [
        f"{report.dataset}: {report.workspaces} workspace(s), {report.facts:,} facts, imported in "
        f"{report.import_seconds:.1f} s; {len(answerable)} answerable and {len(unanswerable)} "
        f"unanswerable questions{f' (the {report.half} half only)' if report.half else ''}",
        "",
        f"{'category':14} {'n':>5}  {'R@5':>6} {'R@10':>6} {'all@10':>6} {'MRR@10':>6} {'nDCG@10':>7}"
        + "".join(
            f"  | {name.upper():5} {'R@5':>6} {'R@10':>6} {'all@10':>6} {'MRR@10':>6} {'nDCG@10':>7}"
            for name in baselines
        ),
    ]
    by_category: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in answerable:
        by_category[outcome.case.category].append(outcome)

    def row(label: str, group: list[Outcome]) -> str:
        cells = []
        for which in ("pam", *baselines):
            scores = [getattr(o, which) for o in group]
            cells.append(
                f"{_mean([s.recall5 for s in scores]):6.3f} {_mean([s.recall10 for s in scores]):6.3f} "
                f"{_mean([s.all10 for s in scores]):6.3f} {_mean([s.mrr10 for s in scores]):6.3f} "
                f"{_mean([s.ndcg10 for s in scores]):7.3f}"
            )
        return f"{label:14} {len(group):5d}  {cells[0]}" + "".join(f"  |       {c}" for c in cells[1:])

    for category in sorted(by_category):
        lines.append(row(category, by_category[category]))
    lines.append(row("overall", answerable))
    halves = sorted({o.case.half for o in report.outcomes})
    if len(halves) > 1:
        for half in halves:
            lines.append(row(f"overall[{half}]", [o for o in answerable if o.case.half == half]))
    if unanswerable:
        flagged = sum(1 for o in unanswerable if o.coverage in NOT_ANSWERED)
        lines.append("")
        lines.append(
            f"unanswerable: coverage none/minimal for {flagged}/{len(unanswerable)} "
            f"({flagged / len(unanswerable):.1%})"
        )
    lines.extend(corpus_lines(report, baselines))
    lines.extend(against_lines(answerable, baselines))
    lines.extend(calibration_lines(report.outcomes, halves))
    lines.extend(interval_lines(answerable, halves))
    lines.extend(session_lines(answerable, halves))
    times = [o.ms for o in report.outcomes]
    bm25_times = [o.bm25_ms for o in report.outcomes]
    lines.append(
        f"engine latency: p50 {_pct(times, 50):.1f} ms, p95 {_pct(times, 95):.1f} ms "
        f"(BM25 baseline p50 {_pct(bm25_times, 50):.1f} ms, p95 {_pct(bm25_times, 95):.1f} ms)"
    )
    lines.append("")
    if len(halves) > 1:
        for half in halves:
            lines.append(summary_line(f"{report.dataset}[{half}]", [o for o in answerable if o.case.half == half], "pam"))
    for which in baselines:
        lines.append(summary_line(f"{report.dataset}-{which}", answerable, which))
    lines.append(summary_line(report.dataset, answerable, "pam"))
    return lines


def found_all(outcome: Outcome, which: str) -> bool:
    """Whether the ranking `which` ("pam" or a baseline) has all the question's evidence in
    its top K (all@10), as the per-company and per-baseline lines count it."""
    return getattr(outcome, which).all10 >= 1.0


def corpus_lines(report: Report, baselines: tuple[str, ...]) -> list[str]:
    """For a set over several companies (`evaluate companies`), each company's answerable
    questions with all their evidence in the top 10, the engine's beside each baseline's, and
    its no-answer questions flagged."""
    if report.dataset != "companies":
        return []
    by_corpus: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in report.outcomes:
        by_corpus[outcome.corpus].append(outcome)
    lines = ["", f"all evidence in the top {K}, by company:"]
    for name, group in by_corpus.items():
        answerable = [o for o in group if not o.case.unanswerable]
        found = "  ".join(
            f"{which.upper()} {sum(1 for o in answerable if found_all(o, which))}/{len(answerable)}"
            for which in ("pam", *baselines)
        )
        unanswerable = [o for o in group if o.case.unanswerable]
        flagged = sum(1 for o in unanswerable if o.coverage in NOT_ANSWERED)
        lines.append(f"  {name:14} {found}  no-answer flagged {flagged}/{len(unanswerable)}")
    return lines


def against_lines(answerable: list[Outcome], baselines: tuple[str, ...]) -> list[str]:
    """Question by question against each baseline: how many questions only the engine has all
    the evidence of in the top 10 (+), and how many only the baseline (-). Two totals that are
    nearly equal can hide either: the engine adding little to its dense stage, or trading
    questions with it (what a fusion of the two could still gain)."""
    if not answerable:
        return []
    cells = []
    for which in baselines:
        ours = sum(1 for o in answerable if found_all(o, "pam") and not found_all(o, which))
        theirs = sum(1 for o in answerable if not found_all(o, "pam") and found_all(o, which))
        cells.append(f"{which.upper()} +{ours} -{theirs}")
    return [f"all evidence in the top {K} by the engine alone (+) or the baseline alone (-): " + ", ".join(cells)]


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate of k in n (0 to 1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + WILSON_Z**2 / (2 * n)) / (1 + WILSON_Z**2 / n)
    half = WILSON_Z * math.sqrt(p * (1 - p) / n + WILSON_Z**2 / (4 * n * n)) / (1 + WILSON_Z**2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def interval_lines(answerable: list[Outcome], halves: list[str]) -> list[str]:
    """The all-evidence rate (all@10) with its 95 % interval, overall and per half: how far a
    half of 40 questions can tell two engines apart."""

    def line(label: str, group: list[Outcome]) -> str:
        k, n = sum(1 for o in group if is_hit(o)), len(group)
        lo, hi = wilson(k, n)
        return f"all evidence in the top 10{label}: {k}/{n} ({k / n if n else 0:.3f}; 95 % interval {lo:.3f}-{hi:.3f})"

    if not answerable:
        return []
    out = [line("", answerable)]
    if len(halves) > 1:
        out += [line(f"[{half}]", [o for o in answerable if o.case.half == half]) for half in halves]
    return out


def session_lines(answerable: list[Outcome], halves: list[str]) -> list[str]:
    """Session-level recall (LoCoMo), beside the turn-level figures above."""
    if not answerable or any(o.pam_sessions is None for o in answerable):
        return []

    def line(label: str, group: list[Outcome]) -> str:
        cells = []
        for name, which in (("PAM", "pam_sessions"), ("BM25", "bm25_sessions")):
            scores = [getattr(o, which) for o in group]
            cells.append(
                f"{name} R@5={_mean([s.recall5 for s in scores]):.3f} R@10={_mean([s.recall10 for s in scores]):.3f} "
                f"all@10={_mean([s.all10 for s in scores]):.3f}"
            )
        return f"session-level{label} ({len(group)} questions): " + "; ".join(cells)

    out = [line("", answerable)]
    if len(halves) > 1:
        out += [line(f"[{half}]", [o for o in answerable if o.case.half == half]) for half in halves]
    return out


def is_hit(outcome: Outcome) -> bool:
    """An answerable question whose evidence is in the top K: all of it, or any of it where
    the dataset counts any gold unit (QMSum's spans)."""
    return not outcome.case.unanswerable and outcome.pam.recall10 >= 1.0


def calibration(outcomes: list[Outcome]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Whether the coverage an agent reads agrees with what was found (issue 16, point 6):
    (answered among hits, hits) and (flagged among misses and no-answer questions, those)."""
    hits = [o for o in outcomes if is_hit(o)]
    misses = [o for o in outcomes if not is_hit(o)]
    answered = sum(1 for o in hits if o.coverage in ANSWERED)
    flagged = sum(1 for o in misses if o.coverage in NOT_ANSWERED)
    return (answered, len(hits)), (flagged, len(misses))


def calibration_lines(outcomes: list[Outcome], halves: list[str]) -> list[str]:
    def line(label: str, group: list[Outcome]) -> str:
        (answered, hits), (flagged, misses) = calibration(group)
        return (
            f"calibration{label}: hits (all evidence in top {K}) reported comprehensive/partial "
            f"{answered}/{hits} ({answered / hits if hits else 0:.1%}); misses and no-answer reported "
            f"minimal/none {flagged}/{misses} ({flagged / misses if misses else 0:.1%})"
        )

    out = [line("", outcomes)]
    if len(halves) > 1:
        out += [line(f"[{half}]", [o for o in outcomes if o.case.half == half]) for half in halves]
    return out
