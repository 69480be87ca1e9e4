"""The dense stage (PAM_DENSE, on by default; MiniLM run with numpy, memory/engine/minilm.py):
vectors published with the index, reused for unchanged facts, and fused with BM25 so a
paraphrase finds its fact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from memory.engine import dense
from memory.engine.index import index_for, index_publish
from memory.engine.search import retrieve
from memory.models import Fact, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import run_create
from memory.services import source_create_for_items
from memory.sources.push import item_write

TRAVEL = "Staff members can travel business class on flights longer than eight hours."
FACTS = [
    TRAVEL,
    "The quarterly revenue review takes place in the boardroom on the second floor.",
    "Invoices above $10,000 need the CFO's approval before payment.",
    "The Lyon team organises a cheese tasting for new starters.",
]


def _import(workspace: Workspace, texts: list[str]) -> None:
    source = source_create_for_items(workspace=workspace, name="Notes")
    for n, text in enumerate(texts):
        item_write(Path(source.location), {"external_id": f"note-{n}", "title": f"Note {n}", "text": text})
    run = source_sync(run_id=run_create(source=source).pk)
    assert run is not None and run.status == "completed", run and run.errors


def test_a_paraphrase_with_no_shared_word_is_found_only_with_the_dense_stage(
    workspace: Workspace, settings: Any
) -> None:
    question = "Can we fly premium on lengthy journeys?"  # not one word, stem or synonym in common
    settings.PAM_DENSE = False
    _import(workspace, FACTS)
    lexical = retrieve(workspace, question)
    assert TRAVEL not in [f.statement for f in lexical.facts]

    settings.PAM_DENSE = True
    version = index_publish(workspace=workspace)
    path = Path(settings.PAM_DATA_DIR) / "indexes" / f"ws_{workspace.pk}" / f"v{version.version}"
    ids = np.load(path / "vector_ids.npy")
    vectors = np.load(path / "vectors.npy")
    assert list(ids) == sorted(Fact.objects.filter(workspace=workspace).values_list("id", flat=True))
    assert vectors.shape == (len(ids), dense.DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    loaded = index_for(workspace)
    assert loaded is not None and loaded.vectors is not None

    hybrid = retrieve(workspace, question)
    assert hybrid.facts and hybrid.facts[0].statement == TRAVEL
    assert hybrid.facts[0].relevance_score < 0.9  # cosine alone never claims a full match


def test_unchanged_facts_keep_their_vectors_and_only_new_ones_are_encoded(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    encoded = dense_encoded
    _import(workspace, FACTS[:2])
    assert len(encoded) == 2
    encoded.clear()
    index_publish(workspace=workspace)  # nothing changed
    assert encoded == []
    _import(workspace, FACTS[2:3])  # one new fact in a new source
    assert encoded == [FACTS[2]]


def test_an_unanswerable_question_stays_unanswered_with_the_dense_stage(workspace: Workspace, settings: Any) -> None:
    settings.PAM_DENSE = True
    _import(workspace, FACTS)
    result = retrieve(workspace, "What is the strike price of the employee stock options?")
    assert result.coverage_assessment in ("none", "minimal")


def test_the_thread_setting_changes_how_fast_not_what_is_encoded(settings: Any) -> None:
    settings.PAM_DENSE_THREADS = 1
    one = dense.encode(FACTS)
    settings.PAM_DENSE_THREADS = 0
    default = dense.encode(FACTS)
    assert one.shape == (len(FACTS), dense.DIM) and one.dtype == np.float32
    assert np.allclose(one, default, atol=1e-5)
