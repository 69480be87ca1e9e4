"""The numpy MiniLM (memory/engine/minilm.py; issue 16 point 7): the same sentence vectors as
the package's sentence-transformers pipeline on torch, without torch.

The reference vectors in fixtures/minilm_reference.npz were computed once with
sentence-transformers and torch by bench/minilm_reference.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memory.engine import minilm

# One BLAS thread: the fast choice on a machine whose cores are busy (as under pytest -n).
THREADS = 1

REFERENCE = Path(__file__).resolve().parent / "fixtures" / "minilm_reference.npz"
MIN_COSINE = 0.9999


@pytest.fixture(scope="module")
def model() -> minilm.MiniLM:
    return minilm.load()


def test_every_reference_text_gets_the_vector_sentence_transformers_gives_it(model: minilm.MiniLM) -> None:
    reference = np.load(REFERENCE)
    texts = [str(t) for t in reference["texts"]]
    vectors = model.encode(texts, THREADS)
    cosines = (vectors * reference["vectors"]).sum(axis=1)
    worst = int(np.argmin(cosines))
    assert cosines[worst] >= MIN_COSINE, (texts[worst][:80], float(cosines[worst]))
    assert len(texts) >= 50
    assert sum(bool(model.tokenizer.encode(t).overflowing) for t in texts) >= 3  # cut at max_seq_length


def test_vectors_are_unit_length_float32_rows_in_the_order_of_the_texts(model: minilm.MiniLM) -> None:
    texts = ["a much longer sentence about the quarterly revenue review in the boardroom", "short", ""]
    vectors = model.encode(texts, THREADS)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    for text, vector in zip(texts, vectors):
        assert np.allclose(model.encode([text], THREADS)[0], vector, atol=1e-5)  # padding changes nothing


def test_a_text_is_cut_at_the_models_max_seq_length(model: minilm.MiniLM) -> None:
    assert model.max_seq_length == 256  # sentence_bert_config.json, not tokenizer.json's 128
    long = "policy " * 300
    first, longer = model.encode([long, long + "and a different ending about cheese"], THREADS)
    assert np.allclose(first, longer, atol=1e-6)
    shorter = model.encode(["policy " * 200], THREADS)[0]
    assert not np.allclose(first, shorter, atol=1e-4)


def test_no_texts_give_an_empty_matrix(model: minilm.MiniLM) -> None:
    assert model.encode([], THREADS).shape == (0, 384)


def test_texts_in_several_batches_come_back_in_their_order(model: minilm.MiniLM) -> None:
    texts = [("word " * (n % 7 + 1)) + str(n) for n in range(minilm.BATCH_SIZE * 2 + 3)]
    assert len(minilm._batches(list(range(len(texts))), [[0] * 5] * len(texts))) == 3
    together = model.encode(texts, THREADS)
    for i in (0, minilm.BATCH_SIZE, len(texts) - 1):
        assert np.allclose(together[i], model.encode([texts[i]], THREADS)[0], atol=1e-5)
