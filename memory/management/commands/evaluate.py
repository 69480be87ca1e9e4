"""python manage.py evaluate DATASET [--data PATH] [--limit N] [--half tune|test] [--save PATH] [--against PATH]

Imports a public benchmark (or the demo company) into throwaway workspaces through the normal
pipeline, asks every question through the engine `retrieve_memory` uses and, beside it, a plain
BM25 baseline over the same facts, then prints per-category recall@5, recall@10, all-evidence
rate, MRR@10 and nDCG@10, the calibration of the coverage reported, the engine's latency, and a
last summary line: `DATASET: recall@5=… recall@10=… mrr@10=… p50_ms=… p95_ms=…`.

`--half tune` asks the tuning half's questions only (LoCoMo imports conversations 1-5 alone), so
a change is tuned without the test half's figures being printed at all. `--save PATH` writes
each question's outcome to PATH (JSON); `--against PATH` reads a run saved that way and lists,
per half, the questions this run answers differently, with a sign test
(memory/evaluation/compare.py).

`evaluate companies --data eval/sets/NAME.json` asks a named set of question files over several
evaluation companies (the numbered held-out sets, `held-out.json`, `tuning.json`), each company
imported once for all its files, and prints a line per company beside the per-category table.

`evaluate followups` imports nothing: it measures follow-up detection (triage) on the labelled
prompts of `eval/followups/prompts.jsonl`, precision and recall per half.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.evaluation import compare, followups
from memory.evaluation.datasets import DEFAULT_PATHS, LOADERS, TEST, TUNE
from memory.evaluation.runner import evaluate, render

FOLLOWUPS = "followups"


class Command(BaseCommand):
    help = "Measure retrieval quality and speed on locomo, qmsum, the demo, an evaluation company or a set of them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dataset", choices=sorted([*LOADERS, FOLLOWUPS]))
        parser.add_argument("--data", default=None, help="the dataset file (default: the shared data folder)")
        parser.add_argument("--limit", type=int, default=None, help="ask at most N questions")
        parser.add_argument("--half", choices=[TUNE, TEST], default=None,
                            help="ask only the questions of this half (default: both)")
        parser.add_argument("--save", default=None, metavar="PATH", help="write each question's outcome to PATH (JSON)")
        parser.add_argument("--against", default=None, metavar="PATH",
                            help="list the questions answered differently from a run saved with --save")

    def handle(self, *args: Any, **options: Any) -> None:
        dataset = options["dataset"]
        path = Path(options["data"]).expanduser() if options["data"] else DEFAULT_PATHS[dataset]
        if not path.is_file():
            raise CommandError(f"{path} is not a file (give the dataset with --data PATH).")
        save = Path(options["save"]).expanduser() if options["save"] else None
        against = Path(options["against"]).expanduser() if options["against"] else None
        half = options["half"]
        if dataset == FOLLOWUPS and (save or against or half):
            raise CommandError("--half, --save and --against are for retrieval runs; evaluate followups takes none.")
        if save is not None and not save.parent.is_dir():
            raise CommandError(f"{save.parent} is not a folder (--save PATH writes a file there).")
        try:
            earlier = compare.load(against, dataset) if against is not None else None  # refused before the run
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if dataset == FOLLOWUPS:
            try:
                prompts = followups.load(path)
            except (ValueError, KeyError, TypeError) as exc:
                raise CommandError(f"{path}: not a labelled prompts file ({exc.__class__.__name__}: {exc}).") from exc
            self.stdout.write("\n".join(followups.render(prompts)))
            return
        limit = options["limit"]
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1.")
        try:
            corpora = LOADERS[dataset](path)
            report = evaluate(
                dataset, corpora, limit=limit, half=half, progress=lambda line: print(line, file=sys.stderr, flush=True)
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise CommandError(f"{path}: not a {dataset} file ({exc.__class__.__name__}: {exc}).") from exc
        if not report.outcomes:
            raise CommandError(f"No questions were asked{f' (the {half} half holds none)' if half else ''}.")
        lines = render(report)
        if earlier is not None:
            lines += compare.compare_lines(report, earlier, str(against))
        self.stdout.write("\n".join(lines))
        if save is not None:
            try:
                compare.save(report, save)
            except OSError as exc:
                raise CommandError(f"{save} could not be written ({exc.__class__.__name__}: {exc}).") from exc
