"""The sentence encoders' transformer layers as an ONNX graph run by onnxruntime
(`PAM_DENSE_RUNTIME=onnx`, the default; issue 16 point 7; bench/README.md, "The dense stage on
onnxruntime").

`memory/engine/encoder.py` computes a text's embeddings and pools the last layer's states
with numpy; between the two, the layers run either as numpy matmuls or as the graph built
here from the same weights: per layer the query/key/value projection, scaled dot-product
attention with an additive bias (the padding mask, and MPNet's relative position bias), the
output projection and the feed-forward block, each followed by a residual LayerNorm, as in
the numpy pass. With `quantize`, onnxruntime's dynamic quantization stores the projection
weights as int8 with a scale per output channel and quantizes each activation per call:
MiniLM's vectors stay within cosine 0.97 of the float32 ones (0.99 on average) at 3-4× the
speed; MPNet's FFN outputs do not survive it (cosine 0.75), so it runs in float32
(tests/memory/test_onnx_graph.py).

A graph is built once per model, weights file and mode and kept in the cache folder
(`PAM_MODEL_DIR/onnx`), written atomically: building and quantizing MiniLM takes ~2.5 s,
loading the cached file ~0.1 s. Where that folder cannot be written (a read-only install), the
graph is built in the system's temporary folder instead.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import onnx
    import onnxruntime

    from memory.engine.encoder import Encoder

# Bumped when the graph changes, so that no cached graph of an older build is loaded.
GRAPH_VERSION = 1
OPSET = 20  # the first with Gelu (exact, erf-based, as BERT's)
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
    name = f"{weights.parent.name}-{'int8' if quantize else 'float32'}-{key}.onnx"
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
        plain = Path(work) / "float32.onnx"
        onnx.save(build(encoder), str(plain))
        made = plain
        if quantize:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            made = Path(work) / "int8.onnx"
            logging.disable(logging.WARNING)  # the quantizer's advice on each tensor it leaves as is
            try:
                quantize_dynamic(str(plain), str(made), weight_type=QuantType.QInt8, per_channel=True)
            finally:
                logging.disable(logging.NOTSET)
        os.replace(made, path)  # atomic: another process loads the whole file or builds its own
    return path


def build(encoder: "Encoder") -> "onnx.ModelProto":
    """The encoder's layers as an ONNX model, its float32 weights (as the encoder holds them) the
    graph's initialisers."""
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
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
