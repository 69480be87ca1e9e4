"""Pipeline throughput and memory: documents per second and peak RSS for generated corpora.

    .venv/bin/python bench/pipeline_throughput.py                 # 1,000 / 5,000 / 10,000 docs
    .venv/bin/python bench/pipeline_throughput.py --sizes 2000    # one size

Each size runs in a fresh child process (so peak RSS is that run's own) on a throwaway data
directory and database: embedded SQLite unless DATABASE_URL is set. The corpus mixes Markdown,
plain text, HTML, CSV, JSON and e-mail files. Memory that stays flat as the corpus grows is
the point: compare the peak RSS across sizes. Results are printed as one JSON line per size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NAMES = ["Ana Ruiz", "Ben Okafor", "Chen Wei", "Dara Singh", "Eli Novak", "Fay Osei", "Gus Lind", "Hana Ito"]
TEAMS = ["Platform", "Data", "Sales", "Support", "Finance", "Security"]


def generate(folder: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for i in range(count):
        name, other = rng.sample(NAMES, 2)
        team = rng.choice(TEAMS)
        project = f"Project P{i}"
        kind = i % 6
        day = f"2026-{1 + i % 12:02}-{1 + i % 28:02}"
        if kind == 0:
            (folder / f"doc-{i}.md").write_text(
                f"---\ntitle: {project} status\ndate: {day}\n---\n# {project} status\n\n"
                f"{project} is owned by the {team} team.\n{name} is the DRI for {project}.\n\n## Status\n"
                + "".join(f"- Milestone {j} of {project} is due in week {rng.randint(1, 52)}.\n" for j in range(8))
            )
        elif kind == 1:
            (folder / f"note-{i}.txt").write_text(
                f"Meeting note {i}\n\n{name} met {other} on {day} about {project}. "
                f"The budget for {project} is ${rng.randint(1, 90)},000. {other} will follow up.\n"
            )
        elif kind == 2:
            (folder / f"page-{i}.html").write_text(
                f"<html><head><title>{project} handbook</title></head><body><h1>{project} handbook</h1>"
                f"<h2>Owners</h2><p>{name} leads the {team} team.</p><ul>"
                + "".join(f"<li>Rule {j}: requests for {project} need approval within {j + 1} days.</li>" for j in range(6))
                + "</ul></body></html>"
            )
        elif kind == 3:
            (folder / f"table-{i}.csv").write_text(
                "account,owner,arr\n"
                + "".join(f"Client {i}-{j},{rng.choice(NAMES)},{rng.randint(10, 900)}000\n" for j in range(8))
            )
        elif kind == 4:
            (folder / f"record-{i}.json").write_text(
                json.dumps({"title": f"{project} record", "owner": name, "team": team, "status": "on track",
                            "notes": [f"{project} passed review {j}." for j in range(4)]})
            )
        else:
            (folder / f"mail-{i}.eml").write_text(
                f"From: {name} <{name.split()[0].lower()}@example.com>\nTo: {other} <x@example.com>\n"
                f"Subject: {project} update\nDate: Mon, 04 May 2026 10:{i % 60:02}:00 +0000\n\n"
                f"Hi {other.split()[0]},\n\n{project} shipped its beta to {rng.randint(2, 40)} customers.\n"
                f"The next review is on {day}.\n\nThanks,\n{name}\n"
            )


def child(size: int) -> None:
    import resource

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from memory.models import Fact, Source
    from memory.pipelines.sync import run_create, source_sync
    from memory.services import workspace_create

    workspace = workspace_create(slug=f"bench{size}", admin_email=f"b{size}@bench.example",
                                 admin_password="x" * 12, plan_name="unlimited")
    corpus = Path(os.environ["PAM_DATA_DIR"]) / "corpus"
    corpus.mkdir()
    generate(corpus, size)
    source = Source.objects.create(workspace=workspace, name="bench", kind="auto", location=str(corpus))
    started = time.perf_counter()
    run = source_sync(run_id=run_create(source=source).pk)
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    rerun = source_sync(run_id=run_create(source=source).pk)  # nothing changed: incremental
    resync_seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({
        "docs": size, "status": run.status, "seconds": round(seconds, 2),
        "docs_per_s": round(size / seconds, 1), "facts": Fact.objects.filter(workspace=workspace).count(),
        "errors": len(run.errors), "skipped": len(run.skipped), "unchanged_resync_s": round(resync_seconds, 2),
        "resync_status": rerun.status, "peak_rss_mb": round(peak_mb, 1),
        "database": "postgresql" if os.environ.get("DATABASE_URL") else "sqlite",
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,5000,10000")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    for size in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory() as data:
            env = {**os.environ, "PAM_DATA_DIR": data, "DJANGO_SETTINGS_MODULE": "pam.settings",
                   "PYTHONPATH": str(REPO)}
            env.pop("CELERY_BROKER_URL", None)
            out = subprocess.run([sys.executable, __file__, "--child", str(size)], env=env, cwd=REPO,
                                 capture_output=True, text=True)
            lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
            print(lines[-1] if lines else f'{{"docs": {size}, "failed": {json.dumps(out.stderr[-2000:])}}}', flush=True)


if __name__ == "__main__":
    main()
