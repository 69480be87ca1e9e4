"""Pipeline throughput and memory: documents per second and peak RSS for generated corpora.

    .venv/bin/python bench/pipeline_throughput.py                 # 1,000 / 5,000 / 10,000 docs
    .venv/bin/python bench/pipeline_throughput.py --sizes 2000    # one size
    .venv/bin/python bench/pipeline_throughput.py --sizes 1000 20000 --probe   # per stage

Each size runs in a fresh child process (so peak RSS is that run's own) on a throwaway data
directory and database: embedded SQLite unless DATABASE_URL is set. The corpus mixes Markdown,
plain text, HTML, CSV, JSON and e-mail files. Memory that stays flat as the corpus grows is
the point: compare the peak RSS across sizes. Results are printed as one JSON line per size.

--probe adds, per pipeline stage of both runs (documents: parse + extract + entities + store;
supersession; tree; entity pruning; index publish), the stage's seconds, the highest RSS
sampled during it (every 10 ms) in all and split into anonymous and file-backed memory, the
RSS at its end and the process's peak RSS so far, plus
the seconds spent in statement extraction and in entity extraction inside the documents
stage, and a digest of the results (superseded_by marks, the published index's documents
and pam_meta.json) to check that a change keeps them identical. --tracemalloc adds the
Python heap's peak per stage (several times slower: compare its memory, not its speed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

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


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _rss_parts_mb() -> tuple[float, float]:
    """The RSS split into anonymous memory (heaps, arenas: what the process allocated) and
    file-backed pages (the interpreter's libraries and memory-mapped files such as tantivy's
    segments, which the kernel can drop and re-read)."""
    parts = {"RssAnon:": 0.0, "RssFile:": 0.0}
    with open("/proc/self/status") as status:
        for line in status:
            fields = line.split()
            if fields and fields[0] in parts:
                parts[fields[0]] = int(fields[1]) / 1024
    return parts["RssAnon:"], parts["RssFile:"]


class Probe:
    """Per-stage seconds and memory: a thread samples the RSS every 10 ms, and each wrapped
    stage records the highest sample taken while it ran (and the Python heap's peak with
    tracemalloc)."""

    def __init__(self, *, heap: bool) -> None:
        self.heap = heap
        self.stages: list[dict[str, Any]] = []
        self.timers: dict[str, float] = {}
        self.run = 0
        self._high = _rss_mb()
        self._high_anon, self._high_file = _rss_parts_mb()
        self._stage_started = time.perf_counter()
        self._stop = threading.Event()
        if heap:
            tracemalloc.start()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self._high = max(self._high, _rss_mb())
            anon, file = _rss_parts_mb()
            self._high_anon, self._high_file = max(self._high_anon, anon), max(self._high_file, file)

    def mark(self, name: str) -> None:
        """End the stage running now (named `name`) and start the next one."""
        import resource

        now = time.perf_counter()
        rss = _rss_mb()
        anon, file = _rss_parts_mb()
        entry: dict[str, Any] = {
            "run": self.run, "stage": name, "s": round(now - self._stage_started, 2),
            "rss_high_mb": round(max(self._high, rss), 1), "rss_end_mb": round(rss, 1),
            "anon_high_mb": round(max(self._high_anon, anon), 1), "file_high_mb": round(max(self._high_file, file), 1),
            "peak_so_far_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        }
        if self.heap:
            entry["py_heap_peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
            tracemalloc.reset_peak()
        if name == "documents":
            entry.update({k: round(v, 2) for k, v in self.timers.items()})
            self.timers = {}
        if not name.startswith("before") or entry["s"] >= 0.05:  # the gaps between stages
            self.stages.append(entry)
        self._high, self._high_anon, self._high_file = rss, anon, file
        self._stage_started = now

    def stage(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self.mark("documents" if name == "supersession" else f"before {name}")
            result = function(*args, **kwargs)
            self.mark(name)
            return result
        return wrapped

    def timer(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.timers[name] = self.timers.get(name, 0.0) + time.perf_counter() - started
        return wrapped

    def install(self) -> None:
        from memory.pipelines import documents, sync

        for name, attr in [("supersession", "supersession_update"), ("tree", "tree_rebuild"),
                           ("entities_prune", "entities_prune"), ("index_publish", "index_publish")]:
            setattr(sync, attr, self.stage(name, getattr(sync, attr)))
        for name, attr in [("extract_s", "statements"), ("extract_s", "message_statements")]:
            setattr(documents, attr, self.timer(name, getattr(documents, attr)))
        for name, attr in [("entities_s", "extract"), ("mentions_s", "mentions")]:
            setattr(documents.entity_extraction, attr, self.timer(name, getattr(documents.entity_extraction, attr)))


def digest(workspace: Any) -> dict[str, Any]:
    """Fingerprints of the results: the superseded_by marks and the published index."""
    import tantivy

    from memory.engine.index import _version_dir, published_version
    from memory.models import Fact

    marks = hashlib.sha256()
    superseded = Fact.objects.filter(workspace=workspace, superseded_by__isnull=False).order_by("id")
    for fid, newer in superseded.values_list("id", "superseded_by_id").iterator(chunk_size=5000):
        marks.update(f"{fid}>{newer};".encode())
    version = published_version(workspace)
    assert version is not None
    path = _version_dir(workspace.pk, version)
    searcher = tantivy.Index.open(str(path)).searcher()
    hits = searcher.search(tantivy.Query.all_query(), searcher.num_docs).hits
    docs = sorted(
        (doc["fact_id"][0], hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest())
        for doc in (searcher.doc(address).to_dict() for _, address in hits)
    )
    return {
        "superseded": superseded.count(), "superseded_sha": marks.hexdigest()[:16],
        "index_docs": len(docs), "index_segments": searcher.num_segments,
        "index_sha": hashlib.sha256(repr(docs).encode()).hexdigest()[:16],
        "meta_sha": hashlib.sha256((path / "pam_meta.json").read_bytes()).hexdigest()[:16],
    }


def child(size: int, *, probe: bool = False, heap: bool = False) -> None:
    import resource

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from memory.models import Fact
    from memory.services import source_import, workspace_create

    workspace = workspace_create(slug=f"bench{size}", admin_email=f"b{size}@bench.example",
                                 admin_password="x" * 12, plan_name="unlimited")
    corpus = Path(os.environ["PAM_DATA_DIR"]) / "corpus"
    corpus.mkdir()
    generate(corpus, size)
    prober = Probe(heap=heap) if probe else None
    if prober is not None:
        prober.install()
        prober.mark("setup")
    started = time.perf_counter()
    run = source_import(workspace=workspace, path=corpus, name="bench").run
    seconds = time.perf_counter() - started
    if prober is not None:
        prober.mark("finish")
        prober.run = 1
    started = time.perf_counter()
    rerun = source_import(workspace=workspace, path=corpus, name="bench").run  # nothing changed: incremental
    resync_seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert run is not None and rerun is not None
    if prober is not None:
        prober.mark("finish")
        for entry in prober.stages:
            print(json.dumps({"docs": size, **entry}))
        print(json.dumps({"docs": size, "digest": digest(workspace)}))
    print(json.dumps({
        "docs": size, "status": run.status, "seconds": round(seconds, 2),
        "docs_per_s": round(size / seconds, 1), "facts": Fact.objects.filter(workspace=workspace).count(),
        "errors": len(run.errors), "skipped": len(run.skipped), "unchanged_resync_s": round(resync_seconds, 2),
        "resync_status": rerun.status, "peak_rss_mb": round(peak_mb, 1),
        "database": "postgresql" if os.environ.get("DATABASE_URL") else "sqlite",
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["1000,5000,10000"],
                        help="document counts, space- or comma-separated (default 1000 5000 10000)")
    parser.add_argument("--probe", action="store_true", help="per-stage seconds and RSS, and a result digest")
    parser.add_argument("--tracemalloc", action="store_true", help="--probe plus the Python heap's peak per stage (slow)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, probe=args.probe or args.tracemalloc, heap=args.tracemalloc)
        return
    flags = [flag for flag, on in (("--probe", args.probe), ("--tracemalloc", args.tracemalloc)) if on]
    for size in [int(n) for value in args.sizes for n in value.split(",") if n]:
        with tempfile.TemporaryDirectory() as data:
            env = {**os.environ, "PAM_DATA_DIR": data, "DJANGO_SETTINGS_MODULE": "pam.settings",
                   "PYTHONPATH": str(REPO)}
            env.pop("CELERY_BROKER_URL", None)
            out = subprocess.run([sys.executable, __file__, "--child", str(size), *flags], env=env, cwd=REPO,
                                 capture_output=True, text=True)
            lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
            if flags and len(lines) > 1:
                print("\n".join(lines[:-1]), flush=True)
            print(lines[-1] if lines else f'{{"docs": {size}, "failed": {json.dumps(out.stderr[-2000:])}}}', flush=True)


if __name__ == "__main__":
    main()
