"""Conversations in the engine (SPEC §2.3; issue 16): a message's vector also encodes the
message it replies to, a message's neighbouring words reach two statements on each side, the
facts of one long message give the other messages their turn before taking a second place
among the results, and the names nearly every message carries do not steer the dense stage's
ranking."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memory.engine import retrieve
from memory.engine import index as engine_index
from memory.engine.index import MESSAGE_CONTEXT_CHARS, _version_dir, index_for, index_publish
from memory.engine.rank import (
    DENSE_CEILING,
    DENSE_RELEVANCE,
    SPEAKER_BONUS,
    QueryTerm,
    Similarity,
    asked_terms,
    focus_terms,
    rank_candidates,
)
from memory.engine.search import _docs_by_fact_id, dense_query
from memory.engine.text import terms
from memory.models import Fact, Workspace
from tests.conftest import items_import

CONCERT = [
    ("m1", "Mel", "We celebrated my daughter's birthday with a concert in the garden last night!"),
    ("m2", "Caro", "Sounds wonderful, your kids must have loved it. Who was playing at the concert?"),
    ("m3", "Mel", "It was Matt Patterson, he is so talented."),
]
NOTE = "The garden shed is painted green every spring."
# One long message (over 300 characters: split into sentences), every sentence about the
# freezer, and three short ones that mention it once.
LONG = (
    "The freezer alarm went off at midnight in chamber two. "
    "The freezer door seal was torn and the freezer lost four degrees. "
    "The freezer engineer replaced the freezer seal by six in the morning. "
    "The freezer log now shows the freezer back at minus twenty-two. "
    "The freezer stock was checked and nothing was thrown away by the freezer team."
)
SHORT = [
    "Ana: the freezer report is in the shared drive.",
    "Please book the freezer engineer's next visit for March.",
    "The freezer in chamber four is due a service too.",
]


def _conversation(external_id: str, messages: list[tuple[str, str, str]]) -> dict[str, Any]:
    return {
        "external_id": external_id,
        "title": f"Chat {external_id}",
        "messages": [{"id": ref, "author": author, "text": text} for ref, author, text in messages],
    }


def test_a_reply_s_vector_encodes_the_message_before_it(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    encoded = dense_encoded
    items_import(workspace, [_conversation("party", CONCERT), {"external_id": "shed", "title": "Shed", "text": NOTE}])

    first, question, reply = (f"{author}: {text}" for _, author, text in CONCERT)
    assert first in encoded  # the first message of the conversation: alone
    assert f"{first} {question}" in encoded
    assert f"{question} {reply}" in encoded
    assert NOTE in encoded  # a document's fact: alone
    assert reply not in encoded and question not in encoded


def test_only_the_end_of_a_long_message_before_is_encoded_in_whole_words(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    encoded = dense_encoded
    long_text = " ".join(f"Crate {n} is packed and labelled." for n in range(40))  # split into sentences
    items_import(workspace, [_conversation("long", [("a", "Ann", long_text), ("b", "Bo", "Noted, thanks for the list.")])])

    reply = next(text for text in encoded if text.endswith("Bo: Noted, thanks for the list."))
    before = reply[: -len(" Bo: Noted, thanks for the list.")]
    said = " ".join(Fact.objects.filter(workspace=workspace, locator="a").order_by("position").values_list("statement", flat=True))
    assert 0 < len(before) <= MESSAGE_CONTEXT_CHARS
    assert said.endswith(f" {before}")  # its end, from the start of a word
    assert before.endswith("Ann: Crate 39 is packed and labelled.")


def test_vectors_of_an_older_layout_are_encoded_again_not_reused(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    encoded = dense_encoded
    items_import(workspace, [_conversation("party", CONCERT)])
    assert len(encoded) == 3
    encoded.clear()
    version = index_publish(workspace=workspace).version
    assert encoded == []  # the same layout: every vector reused
    meta_path = _version_dir(workspace.pk, version) / "pam_meta.json"
    meta = json.loads(meta_path.read_text())
    del meta["vector_schema"]
    meta_path.write_text(json.dumps({**meta, "schema": 3}))  # as a release whose vectors encoded less wrote it

    index_publish(workspace=workspace)

    assert len(encoded) == 3


def test_a_new_layout_of_the_index_alone_keeps_the_vectors_it_had(
    workspace: Workspace, settings: Any, dense_encoded: list[str]
) -> None:
    settings.PAM_DENSE = True
    items_import(workspace, [_conversation("party", CONCERT)])
    version = index_publish(workspace=workspace).version
    meta_path = _version_dir(workspace.pk, version) / "pam_meta.json"
    meta = json.loads(meta_path.read_text())
    del meta["vector_schema"]
    meta_path.write_text(json.dumps({**meta, "schema": 4}))  # as the release before wrote it
    dense_encoded.clear()
    engine_index._loaded.clear()  # as a restarted server finds it

    index = index_for(workspace)

    assert index is not None and dense_encoded == []  # rebuilt in place, not one vector encoded
    assert json.loads(meta_path.read_text())["schema"] == engine_index._SCHEMA_VERSION
    assert index.vectors is not None and len(index.vectors.ids) == 3
    assert retrieve(workspace, "Who played at the concert?").facts


def _nearby(workspace: Workspace, statement: str) -> set[str]:
    index = index_for(workspace)
    assert index is not None
    fact = Fact.objects.get(workspace=workspace, statement=statement)
    (doc,) = _docs_by_fact_id(index, [fact.pk])
    return set(doc["nearby"][0].split())


def test_a_reply_holds_the_words_of_the_message_two_statements_before_it(workspace: Workspace) -> None:
    messages = [
        ("n1", "Nate", "I made coconut milk ice cream for the first time."),
        ("j1", "Jo", "Wow! How did it turn out?"),
        ("n2", "Nate", "Super good, rich and creamy."),
        ("j2", "Jo", "I only had plain vanilla today."),
        ("n3", "Nate", "The turtles are asleep in their tank."),
    ]
    items_import(workspace, [_conversation("chat", messages)])

    assert set(terms("coconut milk ice cream")) <= _nearby(workspace, "Nate: Super good, rich and creamy.")
    assert "turtl" in _nearby(workspace, "Nate: Super good, rich and creamy.")
    assert not set(terms("coconut milk")) & _nearby(workspace, "Jo: I only had plain vanilla today.")


def test_a_document_s_statement_holds_the_words_of_one_statement_on_each_side(workspace: Workspace) -> None:
    text = "The vault opens at nine. The alarm code is private. Keys stay in the safe. Visitors sign in."
    items_import(workspace, [{"external_id": "rules", "title": "Rules", "text": text}])

    nearby = _nearby(workspace, "Rules: Keys stay in the safe.")
    assert set(terms("alarm code private visitors sign")) <= nearby
    assert not set(terms("vault nine")) & nearby


def test_a_message_s_author_counts_when_what_they_said_is_asked_not_their_role() -> None:
    said = {"fact_id": [1], "terms": ["tomasz kowalczyk audit"], "statement": ["Tomasz Kowalczyk: the audit is done."]}
    record = {"fact_id": [2], "terms": ["tomasz kowalczyk audit"], "statement": ["Tomasz Kowalczyk ran the audit."]}

    def ranks(prompt: str) -> tuple[float, float]:
        query = [QueryTerm(t, 1.0, 2.0) for t in asked_terms(prompt)]
        scored = rank_candidates([(1.0, said), (1.0, record)], query, {q.term for q in query}, prompt, Similarity())
        return scored[0][0], scored[1][0]

    message, other = ranks("What did Tomasz Kowalczyk say about the audit?")
    assert message == pytest.approx(other + SPEAKER_BONUS)
    message, other = ranks("What is Tomasz Kowalczyk's role in the audit?")
    assert message == pytest.approx(other)


def test_one_long_message_takes_one_place_until_the_other_messages_have_theirs(workspace: Workspace) -> None:
    messages = [("long", "Dee", LONG)] + [(f"s{n}", "Eli", text) for n, text in enumerate(SHORT)]
    items_import(workspace, [_conversation("ops", messages)])
    long_facts = set(Fact.objects.filter(workspace=workspace, locator="long").values_list("statement", flat=True))
    assert len(long_facts) == 5  # split into its sentences

    result = retrieve(workspace, "What happened with the freezer?", limit=4)

    found = [f.statement for f in result.facts]
    assert len([s for s in found if s in long_facts]) == 1
    assert {s for s in found if s not in long_facts} == {f"Eli: {text}" for text in SHORT}
    # With room for all of them, the rest of the long message follows.
    assert long_facts <= {f.statement for f in retrieve(workspace, "What happened with the freezer?", limit=8).facts}


def test_a_name_most_facts_hold_is_someone_to_the_dense_stage(workspace: Workspace) -> None:
    # Mel wrote 2 of the 7 facts; Caro and Matt Patterson are in one each.
    notes = [NOTE, "The hedge is cut in May.", "The gate code changes every quarter.", "Bins go out on Tuesdays."]
    items_import(
        workspace,
        [_conversation("party", CONCERT)]
        + [{"external_id": f"note-{n}", "title": f"Note {n}", "text": text} for n, text in enumerate(notes)],
    )
    index = index_for(workspace)
    assert index is not None

    assert dense_query(index, "Who did Mel hear at the concert?") == "Who did someone hear at the concert?"
    assert dense_query(index, "What did Mel say to Caro?") == "What did someone say to Caro?"
    assert dense_query(index, "When did Matt Patterson play?") == "When did Matt Patterson play?"


def test_relevance_credits_the_prompt_s_cosine_and_the_rank_the_name_blind_one() -> None:
    doc = {"fact_id": [1], "terms": ["shed"], "statement": ["Mel: the shed is green."]}
    query = [QueryTerm("paint", 1.0, 2.0)]

    def scored(content: float) -> tuple[float, float]:
        similarity = Similarity(prompt={1: DENSE_CEILING}, content={1: content})
        ((rank, relevance, _),) = rank_candidates([(1.0, doc)], query, {"paint"}, "What did Mel paint?", similarity)
        return rank, relevance

    (near_rank, near_relevance), (far_rank, far_relevance) = scored(0.8), scored(0.2)
    assert near_relevance == far_relevance == pytest.approx(DENSE_RELEVANCE)
    assert near_rank > far_rank


def test_what_kind_of_asks_for_the_noun_after_it_not_for_kindness(workspace: Workspace) -> None:
    messages = [
        ("k1", "Caroline", "Thanks Mel, your kind words mean a lot."),
        ("k2", "Caroline", "You are so kind, thank you for the lovely card."),
        ("a1", "Caroline", "My art is mostly big landscape paintings."),
        ("a2", "Mel", "I saw an art fair in the park on Sunday."),
    ]
    items_import(workspace, [_conversation("chat", messages)])

    result = retrieve(workspace, "What kind of art does Caroline make?", limit=2)
    assert {f.statement for f in result.facts} == {
        "Caroline: My art is mostly big landscape paintings.",
        "Mel: I saw an art fair in the park on Sunday.",
    }


def test_the_frame_of_a_what_kind_of_question_is_not_a_word_of_it() -> None:
    assert asked_terms("What kind of art does Caroline make?") == ["art", "carolin", "make"]
    assert focus_terms("What kinds of art does Caroline make?") == {"art"}
    assert focus_terms("Which type of client is Dunbell?") == {"client"}
    assert "type" in asked_terms("Which type of client is Dunbell?")  # a table's `type` column
    assert "kind" in asked_terms("Was Caroline kind to Mel?")  # not a question's frame
