"""`manage.py setup_demo` (`make run`'s set-up step) after `PAM_DENSE_MODEL` changed: the demo's
memory is encoded again with the model now chosen, once, instead of being served by lexical
retrieval alone (memory/management/commands/setup_demo.py; docs/configuration.md)."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command

from memory.engine import dense
from memory.engine.index import encoded_by_another_model, index_for
from memory.models import Workspace
from tests.conftest import items_import, needs_mpnet

NOTES = [
    {"external_id": "travel", "title": "Travel", "text": "Staff fly business class on flights over eight hours."},
    {"external_id": "review", "title": "Review", "text": "The revenue review is held in the boardroom."},
]


def _setup_demo() -> str:
    out = io.StringIO()
    call_command("setup_demo", "--no-import", stdout=out)
    return out.getvalue()


@needs_mpnet
@pytest.mark.django_db
def test_the_demo_encoded_by_another_model_is_encoded_again_with_the_one_chosen_once(
    settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    settings.PAM_DENSE_MODEL = dense.MINILM
    _setup_demo()
    demo = Workspace.objects.get(slug="demo")
    items_import(demo, NOTES, name="Notes")
    before = index_for(demo)
    assert before is not None and before.vectors is not None and before.vectors.matrix.shape[1] == 384
    assert "Encoded the demo's memory again" not in _setup_demo()  # the same model: nothing to do

    settings.PAM_DENSE_MODEL = dense.MINILM_MPNET
    assert encoded_by_another_model(demo)
    dense_encoded.clear()
    assert "Encoded the demo's memory again with PAM_DENSE_MODEL=minilm+mpnet." in _setup_demo()
    after = index_for(demo)
    assert after is not None and after.version == before.version + 1
    assert after.vectors is not None and after.vectors.matrix.shape == (len(NOTES), 384 + 768)
    assert sorted(dense_encoded) == sorted(note["text"] for note in NOTES)
    assert not encoded_by_another_model(demo)
    assert "Encoded the demo's memory again" not in _setup_demo()


@pytest.mark.django_db
def test_a_demo_with_nothing_published_or_the_dense_stage_off_is_not_encoded(settings: Any) -> None:
    settings.PAM_DENSE = True
    settings.PAM_DENSE_MODEL = dense.MINILM
    _setup_demo()
    demo = Workspace.objects.get(slug="demo")
    assert not encoded_by_another_model(demo)  # no version published yet
    items_import(demo, NOTES, name="Notes")
    settings.PAM_DENSE_MODEL = dense.MINILM_MPNET
    settings.PAM_DENSE = False
    assert not encoded_by_another_model(demo)
    assert "Encoded the demo's memory again" not in _setup_demo()
