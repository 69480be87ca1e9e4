"""The numpy encoders (memory/engine/encoder.py; issue 16 point 7): the same sentence vectors
as sentence-transformers on torch, without torch, for all-MiniLM-L6-v2 (BERT) and
all-mpnet-base-v2 (MPNet), and their ensemble.

The reference vectors in fixtures/{minilm,mpnet}_reference.npz were computed once with
sentence-transformers and torch by bench/encoder_reference.py. The mpnet tests need
all-mpnet-base-v2, which `make install` puts in PAM_MODEL_DIR, and skip, saying so, without it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memory.engine import dense, encoder
from tests.conftest import needs_mpnet

# One BLAS thread: the fast choice on a machine whose cores are busy (as under pytest -n).
THREADS = 1

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MIN_COSINE = 0.9999
MPNET = dense.mpnet_dir()


@pytest.fixture(scope="module")
def model() -> encoder.Encoder:
    return encoder.Encoder(encoder.minilm_dir())


@pytest.fixture(scope="module")
def mpnet() -> encoder.Encoder:
    return encoder.Encoder(MPNET)


def _holds_to_reference(model: encoder.Encoder, reference_file: str) -> None:
    reference = np.load(FIXTURES / reference_file)
    texts = [str(t) for t in reference["texts"]]
    vectors = model.encode(texts, THREADS)
    cosines = (vectors * reference["vectors"]).sum(axis=1)
    worst = int(np.argmin(cosines))
    assert cosines[worst] >= MIN_COSINE, (texts[worst][:80], float(cosines[worst]))
    assert len(texts) >= 50
    assert sum(bool(model.tokenizer.encode(t).overflowing) for t in texts) >= 2  # cut at max_seq_length


def test_every_reference_text_gets_the_vector_sentence_transformers_gives_it(model: encoder.Encoder) -> None:
    _holds_to_reference(model, "minilm_reference.npz")


@needs_mpnet
def test_every_reference_text_gets_the_vector_sentence_transformers_gives_it_from_mpnet(
    mpnet: encoder.Encoder,
) -> None:
    assert mpnet.mpnet and mpnet.hidden == 768 and mpnet.max_seq_length == 384
    _holds_to_reference(mpnet, "mpnet_reference.npz")


@needs_mpnet
def test_mpnet_s_relative_position_bias_is_what_makes_its_vectors(mpnet: encoder.Encoder) -> None:
    # Without the bias (or with BERT's position numbering) the vectors move far off the
    # reference: the test above would notice a regression in either.
    reference = np.load(FIXTURES / "mpnet_reference.npz")
    text = str(reference["texts"][0])
    relative = mpnet.relative
    try:
        mpnet.relative = np.zeros_like(relative)
        off = mpnet.encode([text], THREADS)[0]
    finally:
        mpnet.relative = relative
    assert float(off @ reference["vectors"][0]) < MIN_COSINE - 0.001
    bias = mpnet._position_bias(relative, 200)
    assert bias.shape == (1, mpnet.heads, 200, 200)
    assert np.array_equal(bias[0, :, 5, 3], relative[2]) and np.array_equal(bias[0, :, 3, 5], relative[16 + 2])
    assert np.array_equal(bias[0, :, 199, 0], relative[15])  # far away: the last bucket of its side


@needs_mpnet
def test_an_ensemble_s_cosine_is_the_mean_of_its_encoders_cosines(
    model: encoder.Encoder, mpnet: encoder.Encoder
) -> None:
    both = encoder.Ensemble([model, mpnet])
    texts = ["Remote employees get a home-office allowance.", "How much is the work-from-home budget?", "cheese"]
    joined = both.encode(texts, THREADS)
    assert joined.shape == (3, 384 + 768) and joined.dtype == np.float32 and both.hidden == 384 + 768
    assert np.allclose(np.linalg.norm(joined, axis=1), 1.0, atol=1e-5)
    a, b = model.encode(texts, THREADS), mpnet.encode(texts, THREADS)
    assert np.allclose(joined @ joined.T, ((a @ a.T) + (b @ b.T)) / 2, atol=1e-5)


def test_vectors_are_unit_length_float32_rows_in_the_order_of_the_texts(model: encoder.Encoder) -> None:
    texts = ["a much longer sentence about the quarterly revenue review in the boardroom", "short", ""]
    vectors = model.encode(texts, THREADS)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    for text, vector in zip(texts, vectors):
        assert np.allclose(model.encode([text], THREADS)[0], vector, atol=1e-5)  # padding changes nothing


@needs_mpnet
def test_mpnet_s_padding_changes_nothing_either(mpnet: encoder.Encoder) -> None:
    texts = ["a much longer sentence about the quarterly revenue review in the boardroom", "short", ""]
    vectors = mpnet.encode(texts, THREADS)
    for text, vector in zip(texts, vectors):
        assert np.allclose(mpnet.encode([text], THREADS)[0], vector, atol=1e-5)


def test_a_text_is_cut_at_the_models_max_seq_length(model: encoder.Encoder) -> None:
    assert model.max_seq_length == 256  # sentence_bert_config.json, not tokenizer.json's 128
    long = "policy " * 300
    first, longer = model.encode([long, long + "and a different ending about cheese"], THREADS)
    assert np.allclose(first, longer, atol=1e-6)
    shorter = model.encode(["policy " * 200], THREADS)[0]
    assert not np.allclose(first, shorter, atol=1e-4)


def test_no_texts_give_an_empty_matrix(model: encoder.Encoder) -> None:
    assert model.encode([], THREADS).shape == (0, 384)


def test_texts_in_several_batches_come_back_in_their_order(model: encoder.Encoder) -> None:
    texts = [("word " * (n % 7 + 1)) + str(n) for n in range(encoder.BATCH_SIZE * 2 + 3)]
    assert len(encoder._batches(list(range(len(texts))), [[0] * 5] * len(texts))) == 3
    together = model.encode(texts, THREADS)
    for i in (0, encoder.BATCH_SIZE, len(texts) - 1):
        assert np.allclose(together[i], model.encode([texts[i]], THREADS)[0], atol=1e-5)
