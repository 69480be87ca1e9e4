"""The encoders' layers on onnxruntime (memory/engine/onnx_graph.py, `PAM_DENSE_RUNTIME=onnx`, the
default; issue 16 point 7): in float32 the same vectors as sentence-transformers on torch, for
MiniLM and mpnet; their int8 graphs (by blocks) within cosine 0.997 of them (0.999 on average),
mpnet's under a third the size, each text's vector its own whatever it is encoded with; a graph built once per weights file and mode and
loaded from its cache after, without reading the layers' weights again.

The reference vectors are test_encoder.py's (fixtures/{minilm,mpnet}_reference.npz); the mpnet
tests need all-mpnet-base-v2 (`make install`) and skips, saying so, without it.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from memory.engine import dense, encoder, onnx_graph
from tests.conftest import needs_mpnet

THREADS = 1
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXACT = 0.9999  # float32 through another runtime: rounding only
INT8_WORST = 0.997  # the reference's worst text under int8 by blocks (0.97 under dynamic int8)
INT8_MEAN = 0.999
MPNET = dense.mpnet_dir()


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("graphs")


@pytest.fixture(scope="module")
def int8(cache: Path) -> encoder.Encoder:
    return encoder.Encoder(encoder.minilm_dir(), encoder.ONNX_INT8, cache, THREADS)


def _cosines(model: encoder.Encoder, reference_file: str) -> np.ndarray:
    reference = np.load(FIXTURES / reference_file)
    vectors = model.encode([str(t) for t in reference["texts"]], THREADS)
    assert vectors.dtype == np.float32 and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    return np.asarray((vectors * reference["vectors"]).sum(axis=1))


def test_minilm_in_float32_on_onnxruntime_gives_the_vectors_sentence_transformers_gives(cache: Path) -> None:
    model = encoder.Encoder(encoder.minilm_dir(), encoder.ONNX, cache, THREADS)
    assert model.graph is not None and model.layers == []  # the graph runs the layers, not numpy
    assert _cosines(model, "minilm_reference.npz").min() >= EXACT


def test_minilm_in_int8_stays_near_every_reference_vector(int8: encoder.Encoder) -> None:
    cosines = _cosines(int8, "minilm_reference.npz")
    assert cosines.min() >= INT8_WORST and cosines.mean() >= INT8_MEAN
    assert cosines.min() < EXACT  # quantized indeed: not the float32 graph under another name


def test_an_int8_vector_does_not_depend_on_the_texts_encoded_with_it(int8: encoder.Encoder) -> None:
    # Activations are quantized by blocks of one token's row: encoded together, texts do not
    # move each other's vectors, so a fact's vector does not depend on its batch.
    texts = ["The vault limit at the Vancouver branch is $300,000.", "short", "", "policy " * 300]
    together = int8.encode(texts, THREADS)
    for text, vector in zip(texts, together):
        assert np.array_equal(int8.encode([text], THREADS)[0], vector)


@needs_mpnet
def test_mpnet_in_float32_on_onnxruntime_gives_the_vectors_sentence_transformers_gives(cache: Path) -> None:
    model = encoder.Encoder(MPNET, encoder.ONNX, cache, THREADS)
    assert model.mpnet
    assert _cosines(model, "mpnet_reference.npz").min() >= EXACT


@needs_mpnet
def test_mpnet_in_int8_stays_near_every_reference_vector_from_a_graph_under_a_third_the_size(tmp_path: Path) -> None:
    float32 = encoder.Encoder(MPNET, encoder.ONNX, tmp_path / "float32", THREADS)
    int8 = encoder.Encoder(MPNET, encoder.ONNX_INT8, tmp_path / "int8", THREADS)
    cosines = _cosines(int8, "mpnet_reference.npz")
    assert cosines.min() >= INT8_WORST and cosines.mean() >= INT8_MEAN
    assert cosines.min() < EXACT
    size = {name: next((tmp_path / name).glob("*.onnx")).stat().st_size for name in ("float32", "int8")}
    assert size["int8"] < size["float32"] / 3
    assert float32.graph is not None  # both graphs built and loaded


def test_a_graph_is_built_once_then_loaded_from_its_cache_without_reading_the_layers_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graphs = tmp_path / "graphs"
    first = encoder.Encoder(encoder.minilm_dir(), encoder.ONNX_INT8, graphs, THREADS)
    built = sorted(graphs.iterdir())
    assert [p.suffix for p in built] == [".onnx"] and "int8" in built[0].name  # the build's folder is gone

    def no_build(model: encoder.Encoder, quantize: bool) -> None:
        raise AssertionError("built again")

    def no_reading(model: encoder.Encoder) -> None:
        raise AssertionError("the layers' weights read beside a cached graph")

    monkeypatch.setattr(onnx_graph, "build", no_build)
    monkeypatch.setattr(encoder.Encoder, "read_layers", no_reading)
    again = encoder.Encoder(encoder.minilm_dir(), encoder.ONNX_INT8, graphs, THREADS)
    text = "Who approves a refund above the agent's limit?"
    assert np.array_equal(again.encode([text], THREADS), first.encode([text], THREADS))
    assert sorted(graphs.iterdir()) == built
    with pytest.raises(AssertionError, match="built again"):  # float32 is another graph
        encoder.Encoder(encoder.minilm_dir(), encoder.ONNX, graphs, THREADS)


def test_a_changed_weights_file_is_another_graph(tmp_path: Path) -> None:
    model = encoder.Encoder(encoder.minilm_dir())  # a graph is built from its weights file's layers
    weights = tmp_path / "model" / "model.safetensors"
    weights.parent.mkdir()
    weights.write_bytes(b"weights")
    before = onnx_graph._cached(model, weights, False, tmp_path / "graphs")
    os.utime(weights, ns=(1, 1))
    after = onnx_graph._cached(model, weights, False, tmp_path / "graphs")
    assert before != after and before.exists() and after.exists()


def test_a_cache_folder_that_cannot_be_written_sends_the_graph_to_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(onnx_graph.tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    model = encoder.Encoder(encoder.minilm_dir(), encoder.ONNX, blocked / "onnx", THREADS)
    assert [p.suffix for p in (tmp_path / "tmp").glob("pam-onnx-*/*")] == [".onnx"]
    assert model.encode(["cheese"], THREADS).shape == (1, 384)


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_temporary_folder_of_that_name_another_user_made_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(onnx_graph.tempfile, "tempdir", str(tmp_path / "tmp"))
    planted = tmp_path / "tmp" / f"pam-onnx-{os.getuid()}"
    planted.mkdir(parents=True)
    os.chown(planted, 4321, 4321)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    encoder.Encoder(encoder.minilm_dir(), encoder.ONNX, blocked / "onnx", THREADS)
    assert list(planted.iterdir()) == []
    assert [p.parent.name.startswith("pam-onnx-") for p in (tmp_path / "tmp").glob("*/*.onnx")] == [True]


def test_an_onnx_encoder_needs_a_folder_for_its_graph() -> None:
    with pytest.raises(ValueError, match="needs a folder"):
        encoder.Encoder(encoder.minilm_dir(), encoder.ONNX_INT8)
