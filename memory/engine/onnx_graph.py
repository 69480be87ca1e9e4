"""The sentence encoders' transformer layers as an ONNX graph run by onnxruntime
(`PAM_DENSE_RUNTIME=onnx`, the default; issue 16 point 7; bench/README.md, "The dense stage on
onnxruntime").

`memory/engine/encoder.py` computes a text's embeddings and pools the last layer's states
with numpy; between the two, the layers run either as numpy matmuls or as the graph built
here from the same weights: per layer the query/key/value projection, scaled dot-product
attention with an additive bias (the padding mask, and MPNet's relative position bias), the
output projection and the feed-forward block, each followed by a residual LayerNorm, as in
the numpy pass. With `quantize`, each projection is onnxruntime's MatMulNBits: its weights
int8 in blocks of QUANT_BLOCK inputs, each block with its own scale and zero point, and each
activation row quantized to int8 by blocks as it comes (`accuracy_level` 4), so a text's vector
depends on nothing else in its batch. Both models' vectors stay within cosine 0.998 of the
float32 ones (0.9995 on average), mpnet's questions encode about twice as fast and its graph
is 94 MB instead of 340 (tests/memory/test_onnx_graph.py; bench/README.md, "Both models in
int8 by blocks"). onnxruntime's dynamic quantization, used before, scaled each activation as
a whole: MiniLM's vectors moved by up to 0.03 and mpnet's FFN outputs did not survive it.

A graph is built once per model, weights file and mode and kept in the cache folder
(`PAM_MODEL_DIR/onnx`), written atomically: building mpnet's takes a few seconds, loading
the cached file well under one. Where that folder cannot be written (a read-only install), the
graph is built in the system's temporary folder instead.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import onnx
    import onnxruntime

    from memory.engine.encoder import Encoder

# Bumped when the graph changes, so that no cached graph of an older build is loaded. (The int8
# graph by blocks has a name of its own: the dynamic quantization's was `…-int8-…`.)
GRAPH_VERSION = 1
OPSET = 20  # the first with Gelu (exact, erf-based, as BERT's)
MICROSOFT = "com.microsoft"  # onnxruntime's own operators' domain: MatMulNBits
# int8 weights by blocks of this many inputs, one scale and zero point each: 32 keeps every
# reference vector within cosine 0.998 of float32's (128: 0.993).
QUANT_BITS = 8
QUANT_BLOCK = 32
QUANT_LEVELS = (1 << QUANT_BITS) - 1
# MatMulNBits' `accuracy_level` 4: activations quantized to int8 by blocks, int8 products.
# Lower levels dequantize the weights to float32 on every call: 4× slower than float32 here.
QUANT_ACCURACY = 4
INPUT, BIAS, OUTPUT = "x", "bias", "y"


def session(
    encoder: "Encoder", weights: Path, quantize: bool, cache_dir: Path, threads: int
) -> "onnxruntime.InferenceSession":
    """An onnxruntime session running the encoder's layers: input `x` (texts, tokens, hidden)
    after the embedding LayerNorm, `bias` added to every layer's attention scores, output `y`
    the last layer's states. `threads` intra-op threads (0: onnxruntime's default)."""
    import onnxruntime

    path = _cached(encoder, weights, quantize, cache_dir)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: the optimiser's notes are not the user's business
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run(graph: "onnxruntime.InferenceSession", x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return graph.run([OUTPUT], {INPUT: x, BIAS: bias})[0]


def _cached(encoder: "Encoder", weights: Path, quantize: bool, cache_dir: Path) -> Path:
    stat = weights.stat()
    key = hashlib.sha256(
        f"{GRAPH_VERSION}|{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{quantize}".encode()
    ).hexdigest()[:16]
    name = f"{weights.parent.name}-{'int8-blocks' if quantize else 'float32'}-{key}.onnx"
    if (cache_dir / name).exists():
        return cache_dir / name
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        return _write(encoder, quantize, cache_dir / name)
    except OSError:  # a read-only install
        folder = _own_temporary_folder()
        return folder / name if (folder / name).exists() else _write(encoder, quantize, folder / name)


def _own_temporary_folder() -> Path:
    """A folder of this user's own in the system's temporary folder, where a read-only install
    keeps its graphs: a folder of the expected name that another user made (to plant a graph in
    it) is passed over for a fresh private one."""
    folder = Path(tempfile.gettempdir()) / f"pam-onnx-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.is_symlink() or folder.stat().st_uid != os.getuid():
        return Path(tempfile.mkdtemp(prefix="pam-onnx-"))
    return folder


def _write(encoder: "Encoder", quantize: bool, path: Path) -> Path:
    import onnx

    with tempfile.TemporaryDirectory(dir=path.parent) as work:
        made = Path(work) / "graph.onnx"
        onnx.save(build(encoder, quantize), str(made))
        os.replace(made, path)  # atomic: another process loads the whole file or builds its own
    return path


def build(encoder: "Encoder", quantize: bool = False) -> "onnx.ModelProto":
    """The encoder's layers as an ONNX model, its weights (as `Encoder.read_layers` gives them)
    the graph's initialisers: float32, or with `quantize` the projections' int8 by blocks."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    hidden, heads = encoder.hidden, encoder.heads
    head = hidden // heads
    initialisers: list[onnx.TensorProto] = []
    nodes: list[onnx.NodeProto] = []

    def constant(name: str, value: np.ndarray) -> str:
        initialisers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(op: str, inputs: list[str], output: str, **attributes: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attributes))
        return output

    split_shape = constant("split_shape", np.array([0, 0, 3, heads, head], dtype=np.int64))
    joined_shape = constant("joined_shape", np.array([0, 0, hidden], dtype=np.int64))
    scale = constant("scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    first_axis = constant("first_axis", np.array([0], dtype=np.int64))
    eps = float(encoder.eps)
    x = INPUT
    for i, layer in enumerate(encoder.read_layers()):
        p = f"layer{i}."

        def linear(x: str, name: str, w: np.ndarray, b: np.ndarray) -> str:
            if quantize:
                blocks, scales, zeros = _int8_blocks(w)
                weights = [constant(p + name + part, v) for part, v in ((".q", blocks), (".s", scales), (".z", zeros))]
                product = node(
                    "MatMulNBits", [x, *weights], p + name + ".mm", domain=MICROSOFT, K=w.shape[0], N=w.shape[1],
                    bits=QUANT_BITS, block_size=QUANT_BLOCK, accuracy_level=QUANT_ACCURACY,
                )
            else:
                product = node("MatMul", [x, constant(p + name + ".w", w)], p + name + ".mm")
            return node("Add", [product, constant(p + name + ".b", b)], p + name)

        def norm(x: str, residual: str, name: str, weights: tuple[np.ndarray, np.ndarray]) -> str:
            summed = node("Add", [x, residual], p + name + ".residual")
            gain = constant(p + name + ".g", weights[0])
            shift = constant(p + name + ".b", weights[1])
            return node("LayerNormalization", [summed, gain, shift], p + name, axis=-1, epsilon=eps)

        qkv = node("Reshape", [linear(x, "qkv", layer.qkv_w, layer.qkv_b), split_shape], p + "qkv.split")
        # (texts, tokens, 3, heads, head) -> (3, texts, heads, tokens, head), then q, k and v.
        qkv = node("Transpose", [qkv], p + "qkv.heads", perm=[2, 0, 3, 1, 4])
        parts = [p + name + "5" for name in ("q", "k", "v")]
        nodes.append(helper.make_node("Split", [qkv], parts, name=p + "split", axis=0, num_outputs=3))
        q, k, v = (node("Squeeze", [part, first_axis], part[:-1]) for part in parts)
        scores = node("MatMul", [q, node("Transpose", [k], p + "k.t", perm=[0, 1, 3, 2])], p + "scores")
        scores = node("Add", [node("Mul", [scores, scale], p + "scaled"), BIAS], p + "biased")
        attention = node("Softmax", [scores], p + "attention", axis=-1)
        context = node("MatMul", [attention, v], p + "context.heads")
        context = node("Transpose", [context], p + "context.t", perm=[0, 2, 1, 3])
        context = node("Reshape", [context, joined_shape], p + "context")
        x = norm(linear(context, "out", layer.out_w, layer.out_b), x, "attn_norm", layer.attn_norm)
        up = node("Gelu", [linear(x, "up", layer.up_w, layer.up_b)], p + "gelu")
        x = norm(linear(up, "down", layer.down_w, layer.down_b), x, "ffn_norm", layer.ffn_norm)
    node("Identity", [x], OUTPUT)
    graph = helper.make_graph(
        nodes,
        "sentence-encoder-layers",
        [
            helper.make_tensor_value_info(INPUT, TensorProto.FLOAT, ["texts", "tokens", hidden]),
            helper.make_tensor_value_info(BIAS, TensorProto.FLOAT, ["texts", "bias_heads", "bias_queries", "tokens"]),
        ],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["texts", "tokens", hidden])],
        initialisers,
    )
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid(MICROSOFT, 1)]
    return helper.make_model(graph, opset_imports=opsets)


def _int8_blocks(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A projection's weights (inputs, outputs) as MatMulNBits holds them: per output, its
    inputs in blocks of QUANT_BLOCK, each block's values as uint8 levels between the block's
    least and greatest value (0 always among them, so that zero stays exact), with the block's
    scale and zero point."""
    inputs, outputs = w.shape
    blocks = w.T.reshape(outputs, inputs // QUANT_BLOCK, QUANT_BLOCK)
    low = np.minimum(blocks.min(-1), 0.0)
    high = np.maximum(blocks.max(-1), 0.0)
    scale = np.where(high > low, (high - low) / QUANT_LEVELS, 1.0).astype(np.float32)
    zero = np.clip(np.round(-low / scale), 0, QUANT_LEVELS)
    levels = np.clip(np.round(blocks / scale[..., None]) + zero[..., None], 0, QUANT_LEVELS)
    return levels.astype(np.uint8), scale.reshape(-1), zero.astype(np.uint8)
