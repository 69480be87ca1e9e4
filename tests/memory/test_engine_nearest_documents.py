"""A question asked in other words (issue 16 point 3, paraphrase): when the facts the rank
chose answer weakly by their words, the documents' facts the dense stage holds nearest the
prompt take their last places (`search._with_nearest_documents`, `rank.NEAREST_WHEN_BELOW`,
`rank.NEAREST_DOCUMENT_FACTS`); a chat message never does, and facts that answer by their
words are left as they are."""

from __future__ import annotations

import shutil
from pathlib import Path

from memory.engine import retrieve
from memory.engine.index import LoadedIndex, index_for
from memory.engine.rank import NEAREST_WHEN_BELOW, Scored, Similarity
from memory.engine.search import _docs_by_fact_id, _fact_hit, _with_nearest_documents
from memory.engine.types import FactHit
from memory.models import Fact, Workspace
from memory.pipelines.sync import source_sync
from memory.services import source_create_for_items
from memory.sources.push import item_write
from tests.conftest import folder_import, run_create

OAKMERE = Path(__file__).resolve().parents[2] / "eval" / "oakmere" / "corpus"

NOTES = [
    "USB storage is blocked on all company laptops.",
    "The canteen serves breakfast from 7:30 until 9:30.",
    "Parking permits are renewed every January.",
    "Visitors sign in at the front desk.",
    "Fire drills are held every spring.",
    "Printers on the third floor take A3 paper.",
]
MESSAGES = ["Has anyone seen my blue umbrella?", "It is in the lobby, by the plants."]


def _import_items(workspace: Workspace) -> None:
    source = source_create_for_items(workspace=workspace, name="Notes and chat")
    folder = Path(source.location)
    for n, text in enumerate(NOTES):
        item_write(folder, {"external_id": f"note-{n}", "title": f"Note {n}", "text": text})
    item_write(
        folder,
        {
            "external_id": "chat-1",
            "title": "Office chat",
            "messages": [{"id": f"m{n}", "author": "Ana Ruiz", "text": text} for n, text in enumerate(MESSAGES)],
        },
    )
    run = source_sync(run_id=run_create(source=source).pk)
    assert run is not None and run.status == "completed", run and run.errors


def _fact_id(workspace: Workspace, text: str) -> int:
    """The fact stating the text (after its author or title, where the pipeline writes one)."""
    return Fact.objects.get(workspace=workspace, statement__endswith=text).pk


def _notes_ranked_weakly(workspace: Workspace) -> tuple[LoadedIndex, list[int], list[Scored], list[FactHit]]:
    """The notes' facts ranked in their order at relevance 0.2, and the first of them chosen."""
    _import_items(workspace)
    index = index_for(workspace)
    assert index is not None
    ids = [_fact_id(workspace, s) for s in NOTES]
    docs = {int(doc["fact_id"][0]): doc for doc in _docs_by_fact_id(index, ids)}
    scored: list[Scored] = [(0.5 - n / 10, 0.2, docs[i]) for n, i in enumerate(ids)]
    return index, ids, scored, [_fact_hit(index, docs[ids[0]], 0.2)]


def test_a_policy_sentence_asked_for_in_other_words_is_returned(workspace: Workspace, tmp_path: Path) -> None:
    # Oakmere's tune half. The prompt shares only "drive" (of "drive-up ATM") with the facts the
    # rank puts first; the policy's sentence is the nearest fact of all by cosine, yet its
    # relevance (0.096) kept it out, under the fact floor.
    shutil.copytree(OAKMERE, tmp_path / "oakmere")
    folder_import(workspace, tmp_path / "oakmere")
    result = retrieve(workspace, "Can I plug a flash drive into my work computer to move some files?", limit=10)

    assert any(f.statement.startswith("USB storage is blocked") for f in result.facts)


def test_a_document_s_fact_takes_the_last_place_and_a_chat_message_none(workspace: Workspace) -> None:
    _import_items(workspace)
    index = index_for(workspace)
    assert index is not None
    weak, document, message = (_fact_id(workspace, s) for s in (NOTES[1], NOTES[0], MESSAGES[0]))
    docs = {int(doc["fact_id"][0]): doc for doc in _docs_by_fact_id(index, [weak, document, message])}
    scored = [(0.5, 0.3, docs[weak]), (0.2, 0.05, docs[document]), (0.1, 0.04, docs[message])]
    facts = [_fact_hit(index, docs[weak], 0.3)]
    # The message is held nearest, the document's fact next.
    similarity = Similarity(prompt={message: 0.6, document: 0.5, weak: 0.1})

    placed = _with_nearest_documents(index, scored, similarity, facts, set(), limit=4)

    assert [f.fact_id for f in placed] == [weak, document]
    assert placed[1].relevance_score == 0.05  # its own relevance: the cosine vouches for no more


def test_facts_that_answer_by_their_words_are_left_as_they_are(workspace: Workspace) -> None:
    _import_items(workspace)
    index = index_for(workspace)
    assert index is not None
    strong, document = _fact_id(workspace, NOTES[1]), _fact_id(workspace, NOTES[0])
    docs = {int(doc["fact_id"][0]): doc for doc in _docs_by_fact_id(index, [strong, document])}
    scored = [(0.9, NEAREST_WHEN_BELOW, docs[strong]), (0.2, 0.05, docs[document])]
    facts = [_fact_hit(index, docs[strong], NEAREST_WHEN_BELOW)]
    similarity = Similarity(prompt={document: 0.6, strong: 0.1})

    assert _with_nearest_documents(index, scored, similarity, facts, set(), limit=4) == facts


def test_the_four_documents_facts_held_nearest_take_the_last_places_and_the_fifth_none(workspace: Workspace) -> None:
    # A question in other words: on questions nobody tuned on, the dense order's nearest facts
    # held their answers more often than the rank's weak ones (bench/README.md: four places,
    # not two, judged on the sixth held-out set).
    index, ids, scored, facts = _notes_ranked_weakly(workspace)
    nearest_first = ids[1:]
    similarity = Similarity(prompt={fact_id: 0.8 - n / 10 for n, fact_id in enumerate(nearest_first)})

    placed = _with_nearest_documents(index, scored, similarity, facts, set(), limit=10)

    assert [f.fact_id for f in placed] == [ids[0], *nearest_first[:4]]


def test_the_nearest_documents_take_at_most_half_of_the_places(workspace: Workspace) -> None:
    index, ids, scored, facts = _notes_ranked_weakly(workspace)
    similarity = Similarity(prompt={ids[2]: 0.6, ids[1]: 0.5, ids[0]: 0.4})

    # Two places: the nearest document's fact takes the second; the rank's fact keeps the first.
    assert [f.fact_id for f in _with_nearest_documents(index, scored, similarity, facts, set(), limit=2)] == [
        ids[0],
        ids[2],
    ]


def test_a_nearest_document_s_fact_already_in_a_last_place_keeps_it_when_room_is_made(workspace: Workspace) -> None:
    # Corvane's tuning probe: the £400 home-office allowance, the second nearest fact by
    # meaning, was chosen by the rank in the tenth place, then cut with the other last places
    # to make room for the nearest facts it is one of.
    index, ids, scored, _ = _notes_ranked_weakly(workspace)
    facts = [_fact_hit(index, doc, 0.2) for _, _, doc in scored[:4]]  # notes 0-3; note 3 last
    similarity = Similarity(prompt={ids[5]: 0.8, ids[3]: 0.7, ids[4]: 0.6})

    placed = _with_nearest_documents(index, scored, similarity, facts, set(), limit=4)

    # Two places (half of four) for the two nearest: note 5 joins, and note 2 makes room, not
    # note 3, the second nearest, already taken.
    assert [f.fact_id for f in placed] == [ids[0], ids[1], ids[3], ids[5]]
