"""The dense stage (PAM_DENSE, on by default; MiniLM run with numpy, memory/engine/encoder.py):
vectors published with the index, reused for unchanged facts, and fused with BM25 so a
paraphrase finds its fact; PAM_DENSE_MODEL chooses the model, and a version's vectors are
re-encoded when another model wrote them (the mpnet tests need the model `make install` puts
in PAM_MODEL_DIR); the suite runs with MiniLM alone (tests/conftest.py), the default is the pair;
PAM_DENSE_RUNTIME chooses how the model runs, and a publish re-encodes what a runtime of the
other precision wrote.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError, SystemCheckError

from memory.engine import dense
from memory.engine.index import index_for, index_publish
from memory.engine.search import retrieve
from memory.models import Fact, Workspace
from memory.pipelines.sync import source_sync
from tests.conftest import needs_mpnet, run_create
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
    assert vectors.shape == (len(ids), dense.dim())
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
    assert one.shape == (len(FACTS), dense.dim()) and one.dtype == np.float32
    assert np.allclose(one, default, atol=1e-5)


def _version_path(settings: Any, workspace: Workspace, version: int) -> Path:
    return Path(settings.PAM_DATA_DIR) / "indexes" / f"ws_{workspace.pk}" / f"v{version}"


@needs_mpnet
def test_after_a_model_change_a_version_is_served_lexically_until_publish_indexes_re_encodes_it(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    _import(workspace, FACTS)
    dense_encoded.clear()
    settings.PAM_DENSE_MODEL = dense.MINILM_MPNET
    # MiniLM's vectors are not comparable with the ensemble's: lexical retrieval, no error.
    served = index_for(workspace)
    assert served is not None and served.vectors is None
    assert retrieve(workspace, "Who must approve invoices above $10,000?").facts[0].statement == FACTS[2]
    assert dense_encoded == []  # nothing encoded while serving

    out = io.StringIO()
    call_command("publish_indexes", workspace.slug, stdout=out)
    assert f"{workspace.slug}: version {served.version + 1} published" in out.getvalue()
    assert sorted(dense_encoded) == sorted(FACTS)  # every fact, with the new model
    served = index_for(workspace)
    assert served is not None and served.vectors is not None
    assert served.vectors.matrix.shape == (len(FACTS), 384 + 768)
    meta = json.loads((_version_path(settings, workspace, served.version) / "pam_meta.json").read_text())
    assert meta["vector_model"] == dense.MINILM_MPNET
    assert retrieve(workspace, "Can we fly premium on lengthy journeys?").facts[0].statement == TRAVEL

    dense_encoded.clear()
    call_command("publish_indexes", stdout=io.StringIO())  # every indexed workspace; nothing changed
    assert dense_encoded == []  # the ensemble's own vectors are reused
    settings.PAM_DENSE_MODEL = dense.MINILM
    index_publish(workspace=workspace)  # back to MiniLM: none of them is
    assert sorted(dense_encoded) == sorted(FACTS)
    assert index_for(workspace).vectors.matrix.shape == (len(FACTS), 384)  # type: ignore[union-attr]


def test_publish_indexes_names_a_workspace_that_does_not_exist(workspace: Workspace) -> None:
    with pytest.raises(CommandError, match="no workspace nope"):
        call_command("publish_indexes", workspace.slug, "nope")


def test_a_version_written_before_the_model_was_recorded_is_minilm_s(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    _import(workspace, FACTS)
    _forget(settings, workspace, "vector_model")
    dense_encoded.clear()
    index_publish(workspace=workspace)
    assert dense_encoded == []  # an older release's MiniLM vectors are reused, not re-encoded


def _served_meta(settings: Any, workspace: Workspace) -> Path:
    served = index_for(workspace)
    assert served is not None
    return _version_path(settings, workspace, served.version) / "pam_meta.json"


def _forget(settings: Any, workspace: Workspace, key: str) -> None:
    """The served version's meta as an older release wrote it: without `key`."""
    meta_path = _served_meta(settings, workspace)
    meta = json.loads(meta_path.read_text())
    del meta[key]
    meta_path.write_text(json.dumps(meta))


def test_the_float32_runtimes_write_the_same_vectors_and_reuse_each_other_s(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    settings.PAM_DENSE_RUNTIME = dense.NUMPY
    _import(workspace, FACTS)
    by_numpy = dense.encode(FACTS)
    settings.PAM_DENSE_RUNTIME = dense.ONNX
    assert np.allclose(dense.encode(FACTS), by_numpy, atol=1e-5)
    dense_encoded.clear()
    index_publish(workspace=workspace)
    assert dense_encoded == []


def test_a_version_of_the_other_precision_is_served_and_its_facts_re_encoded_at_the_next_publish(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    settings.PAM_DENSE_RUNTIME = dense.ONNX
    _import(workspace, FACTS)
    float32 = index_for(workspace)
    assert float32 is not None and float32.vectors is not None
    meta = json.loads((_version_path(settings, workspace, float32.version) / "pam_meta.json").read_text())
    assert meta["vector_precision"] == dense.FLOAT32
    written = np.array(float32.vectors.matrix)

    dense_encoded.clear()
    settings.PAM_DENSE_RUNTIME = dense.ONNX_INT8
    # The same model's vectors, within cosine 0.998 of int8's: served as they are.
    served = index_for(workspace)
    assert served is not None and served.vectors is not None
    assert retrieve(workspace, "Can we fly premium on lengthy journeys?").facts[0].statement == TRAVEL
    assert not set(dense_encoded) & set(FACTS)  # no fact re-encoded while serving

    dense_encoded.clear()
    index_publish(workspace=workspace)  # one precision per version: every fact again
    assert sorted(dense_encoded) == sorted(FACTS)
    int8 = index_for(workspace)
    assert int8 is not None and int8.vectors is not None
    rewritten = np.array(int8.vectors.matrix)
    assert not np.allclose(rewritten, written, atol=1e-4) and ((rewritten * written).sum(axis=1) >= 0.995).all()
    dense_encoded.clear()
    index_publish(workspace=workspace)
    assert dense_encoded == []  # its own vectors are reused


def test_a_version_written_before_the_precision_was_recorded_is_float32(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    _import(workspace, FACTS)
    _forget(settings, workspace, "vector_precision")
    dense_encoded.clear()
    index_publish(workspace=workspace)
    assert dense_encoded == []  # an older release's vectors are reused
    settings.PAM_DENSE_RUNTIME = dense.ONNX_INT8
    _forget(settings, workspace, "vector_precision")
    index_publish(workspace=workspace)
    assert sorted(dense_encoded) == sorted(FACTS)  # but not by the int8 runtime


def test_vectors_of_the_int8_runtime_before_it_quantized_by_blocks_are_encoded_again(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    settings.PAM_DENSE_RUNTIME = dense.ONNX_INT8
    _import(workspace, FACTS)
    meta_path = _served_meta(settings, workspace)  # as the dynamic quantization's release wrote it:
    meta_path.write_text(json.dumps({**json.loads(meta_path.read_text()), "vector_precision": "int8"}))
    dense_encoded.clear()

    index_publish(workspace=workspace)

    assert sorted(dense_encoded) == sorted(FACTS)


def test_an_unknown_runtime_stops_the_settings_with_the_names_allowed() -> None:
    env = {**os.environ, "PAM_DENSE_RUNTIME": "torch", "DJANGO_SETTINGS_MODULE": "pam.settings"}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert "PAM_DENSE_RUNTIME must be onnx, numpy or onnx-int8, not 'torch'" in done.stderr


def test_the_mpnet_model_missing_is_a_system_check_error_naming_the_install_command(
    settings: Any, tmp_path: Path
) -> None:
    settings.PAM_DENSE_MODEL = dense.MINILM_MPNET
    settings.PAM_MODEL_DIR = tmp_path
    with pytest.raises(SystemCheckError, match=r"memory.E001.*make install-mpnet"):
        call_command("check")
    settings.PAM_DENSE = False  # the stage off: no model needed
    call_command("check")
    settings.PAM_DENSE = True
    settings.PAM_DENSE_MODEL = dense.MINILM
    call_command("check")


def test_an_unknown_model_name_stops_the_settings_with_the_names_allowed() -> None:
    env = {**os.environ, "PAM_DENSE_MODEL": "bert-large", "DJANGO_SETTINGS_MODULE": "pam.settings"}
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert "PAM_DENSE_MODEL must be minilm or minilm+mpnet, not 'bert-large'" in done.stderr


def test_without_PAM_DENSE_MODEL_the_dense_stage_is_minilm_and_mpnet_side_by_side() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PAM_DENSE_MODEL"}
    env["DJANGO_SETTINGS_MODULE"] = "pam.settings"
    code = "import django; django.setup(); from memory.engine import dense; print(dense.model_name(), dense.dim())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [dense.MINILM_MPNET, "1152"]
