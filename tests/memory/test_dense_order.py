"""The selection order beside the dense stage's (SPEC §2.3 ranking, issue 16 point 3:
paraphrase): the engine's first places kept, the rest fused with the order by cosine (fewer
kept, and the cosine order weighing more, when the first places hold little of the prompt),
and the engine's order alone for a conversation's messages or with the dense stage off."""

from __future__ import annotations

from typing import Any

from memory.engine.rank import ENGINE_PLACES_KEPT, WEAK_MATCH, WEAK_PLACES_KEPT, Scored, Similarity, fuse_dense_order

CANDIDATES = ENGINE_PLACES_KEPT + 40  # as many as a prompt's candidates often are


def candidates(message: bool = False, relevance: float = 0.5) -> list[Scored]:
    """The engine's order: fact 0 first. A message's facts carry its id in `message`."""
    return [(1.0 - i / 100, relevance, _doc(i, message)) for i in range(CANDIDATES)]


def _doc(fact_id: int, message: bool) -> dict[str, Any]:
    return {"fact_id": [fact_id], "message": [f"m{fact_id}"] if message else []}


def ids(order: list[Scored]) -> list[int]:
    return [doc["fact_id"][0] for _, _, doc in order]


def nearest_last() -> Similarity:
    """Cosines falling down the engine's order, but its last candidate is the dense stage's
    nearest of all."""
    cosines = {i: 0.8 - i / 100 for i in range(CANDIDATES - 1)} | {CANDIDATES - 1: 0.9}
    return Similarity(prompt=cosines, content=cosines)


def nearest_after_the_first() -> Similarity:
    """The engine's first places the dense stage's farthest, every later candidate nearer."""
    cosines = {i: 0.1 + i / 1000 if i < ENGINE_PLACES_KEPT else 0.9 - i / 100 for i in range(CANDIDATES)}
    return Similarity(prompt=cosines, content=cosines)


def test_the_engine_s_first_places_are_kept_whatever_the_dense_stage_holds() -> None:
    order = ids(fuse_dense_order(candidates(), nearest_after_the_first()))

    assert order[:ENGINE_PLACES_KEPT] == list(range(ENGINE_PLACES_KEPT))


def test_after_them_a_candidate_the_dense_stage_holds_nearest_moves_up() -> None:
    order = ids(fuse_dense_order(candidates(), nearest_last()))

    assert order.index(CANDIDATES - 1) < CANDIDATES - 1 - 10  # ten places up at least
    assert sorted(order) == list(range(CANDIDATES))  # every candidate once


def test_a_candidate_the_dense_stage_gave_no_cosine_yields_to_those_it_did() -> None:
    cosines = {i: c for i, c in nearest_last().content.items() if i != ENGINE_PLACES_KEPT}
    order = ids(fuse_dense_order(candidates(), Similarity(prompt=cosines, content=cosines)))

    assert order[ENGINE_PLACES_KEPT] == ENGINE_PLACES_KEPT + 1  # the engine's next, which has one
    assert ENGINE_PLACES_KEPT in order


def test_the_engine_s_order_stands_with_the_dense_stage_off() -> None:
    assert ids(fuse_dense_order(candidates(), Similarity())) == list(range(CANDIDATES))


def test_the_engine_s_order_stands_when_most_candidates_are_messages() -> None:
    assert ids(fuse_dense_order(candidates(message=True), nearest_last())) == list(range(CANDIDATES))


def test_when_the_first_places_hold_little_of_the_prompt_fewer_of_them_are_kept() -> None:
    # Said in other words: the engine's fourth to sixth places, far by meaning, give way.
    weak = candidates(relevance=WEAK_MATCH - 0.1)

    order = ids(fuse_dense_order(weak, nearest_after_the_first()))

    assert order[:WEAK_PLACES_KEPT] == list(range(WEAK_PLACES_KEPT))
    assert ENGINE_PLACES_KEPT - 1 not in order[:ENGINE_PLACES_KEPT]  # the engine's sixth is not among the first six
    assert sorted(order) == list(range(CANDIDATES))


def test_when_the_first_places_hold_little_of_the_prompt_the_dense_order_weighs_more() -> None:
    strong = ids(fuse_dense_order(candidates(), nearest_last()))
    weak = ids(fuse_dense_order(candidates(relevance=WEAK_MATCH - 0.1), nearest_last()))

    assert weak.index(CANDIDATES - 1) < strong.index(CANDIDATES - 1)
