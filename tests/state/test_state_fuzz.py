"""Reading a state checks all of it: a state that loads can be played on without a crash.

Mutated states from random games (`engine.mutate`, as `benchmarks/state_fuzz.py` does on a
larger scale) are either refused with a `StateError` or played on: every legal action and
every view, with no other exception. Then the attacks that once got through, one by one.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable

import pytest
from walks import Start, Walk

import engine
from engine.game import KNOWN_FRAMES
from engine.mutate import Doc, exercise, mutate, sample_states
from engine.state_checks import FRAME_SHAPES

MUTATED = 300


@pytest.fixture(scope="module")
def base_states() -> list[Doc]:
    return sample_states(6, seed=11, every=25)


def test_mutated_states_are_refused_or_played_on_without_a_crash(base_states: list[Doc]) -> None:
    rng = random.Random(5)
    accepted = 0
    crashes: list[str] = []
    for index in range(MUTATED):
        doc, what = mutate(base_states[index % len(base_states)], rng)
        outcome = exercise(doc)
        accepted += outcome.accepted
        crashes += [f"state {index} ({what}): {crash}" for crash in outcome.crashes]
    assert crashes == []
    assert accepted >= MUTATED // 20, "too few mutated states were accepted to test anything"


def test_the_unmutated_states_all_load_and_round_trip(base_states: list[Doc]) -> None:
    for doc in base_states:
        assert engine.to_dict(engine.from_dict(doc)) == doc


def test_every_frame_kind_is_checked() -> None:
    """The checks come from the TypedDicts of engine/frames.py: no kind is left out."""
    assert set(FRAME_SHAPES) == set(KNOWN_FRAMES)


# --- the attacks, one by one -----------------------------------------------------------------


def spy_under_icons(walk: Walk) -> Doc:
    """A position where a played card's spy icon asks for a card: icons below the spy."""
    for state, _, _ in walk(3, 0):
        if len(state.stack) >= 2 and [f["kind"] for f in state.stack[-2:]] == ["icons", "spy"]:
            doc: Doc = json.loads(engine.dumps(state))
            return doc
    raise LookupError("no spy decision in this game")


def refusal(doc: Doc) -> str:
    with pytest.raises(engine.StateError) as caught:
        engine.loads(json.dumps(doc))
    return str(caught.value)


def test_a_frame_below_the_top_with_card_minus_one_is_refused(walk: Walk) -> None:
    """The review's attack: a played card of -1 under the spy decision, then `spy 7`."""
    doc = spy_under_icons(walk)
    index = len(doc["stack"]) - 2
    doc["stack"][index]["card"] = -1
    assert f"stack[{index}].card: -1 is not a court card" in refusal(doc)


def test_winners_out_of_range_are_refused(walk: Walk) -> None:
    *_, (state, _, _) = walk(2, 1)
    doc = json.loads(engine.dumps(state))
    engine.from_dict(copy.deepcopy(doc))
    doc["winners"] = [7]
    assert "winners: [7] are not distinct seats" in refusal(doc)


def test_winners_before_the_end_are_refused(start: Start) -> None:
    doc = engine.to_dict(start())
    doc["winners"] = [0]
    assert "winners: there are winners exactly when the phase is over" in refusal(doc)


FrameEdit = Callable[[Doc], object]

# (label, edit of the spy-under-icons position, words of the message)
FRAME_REFUSALS: list[tuple[str, FrameEdit, str]] = [
    ("a missing field below the top", lambda d: d["stack"][-2].pop("index"), "stack[1]: needs"),
    ("an extra field", lambda d: d["stack"][0].__setitem__("x", 1), "stack[0]: needs exactly"),
    ("a seat as text", lambda d: d["stack"][0].__setitem__("player", "2"), "stack[0].player"),
    ("a seat out of range", lambda d: d["stack"][-2].__setitem__("player", 9), "9 is not a seat"),
    ("an unknown region", lambda d: d["stack"][-1].__setitem__("region", "oz"), ".region: 'oz'"),
    ("an icon past the end", lambda d: d["stack"][-2].__setitem__("index", 9), ".index: 9"),
    ("an unknown kind", lambda d: d["stack"][0].__setitem__("kind", "frob"), "unknown kind"),
    ("a turn not the active's", lambda d: d.__setitem__("active", 0), "not the active seat"),
]


@pytest.mark.parametrize(
    ("label", "edit", "words"), FRAME_REFUSALS, ids=[r[0] for r in FRAME_REFUSALS]
)
def test_every_frame_is_checked(walk: Walk, label: str, edit: FrameEdit, words: str) -> None:
    doc = spy_under_icons(walk)
    edit(doc)
    assert words in refusal(doc), label


def an_effect(doc: Doc, **fields: object) -> None:
    """Put Courtly Manners (card 107, bottom half) in force for seat 0."""
    for key in ("deck", "removed", "discard"):
        if 107 in doc[key]:
            doc[key].remove(107)
    for row in doc["market"]["cards"]:
        if 107 in row:
            row[row.index(107)] = doc["deck"].pop()
    effect = {"id": "courtly_manners", "card": 107, "player": 0, "until": "check"}
    doc["effects"].append({**effect, **fields})


EFFECT_REFUSALS: list[tuple[dict[str, object], str]] = [
    ({"id": "frob"}, "effects[0].id: 'frob' is not one of"),
    ({"id": "dominance_check"}, "effects[0].id: 'dominance_check' is not a lasting effect"),
    ({"id": "rumor"}, "effects[0].card: 107 is not the event card of rumor"),
    ({"player": 5}, "effects[0].player: 5 is not a seat"),
    ({"player": "0"}, "effects[0].player: '0' is not"),
    ({"id": "disregard_for_customs"}, "is on everyone, so player is null"),
    ({"until": "never"}, "effects[0].until"),
]


@pytest.mark.parametrize(("fields", "words"), EFFECT_REFUSALS)
def test_effects_are_checked(start: Start, fields: dict[str, object], words: str) -> None:
    doc = engine.to_dict(start())
    an_effect(doc)
    engine.from_dict(copy.deepcopy(doc))  # the effect as the engine writes it is fine
    doc["effects"] = []
    an_effect(doc, **fields)
    assert words in refusal(doc)


def test_a_spies_entry_of_zeros_is_refused_with_a_clear_message(start: Start) -> None:
    doc = engine.to_dict(start())
    doc["spies"]["5"] = [0, 0]
    assert "spies on card 5: every count is 0 (leave the card out)" in refusal(doc)


def test_removed_must_be_sorted(start: Start) -> None:
    doc = engine.to_dict(start())
    doc["removed"].reverse()
    assert "removed: not sorted" in refusal(doc)


def test_an_event_card_in_hand_is_refused(start: Start) -> None:
    doc = json.loads(engine.dumps(start()))
    event = next(c for c in doc["deck"] if c > 100)
    doc["deck"].remove(event)
    doc["players"][0]["hand"].append(event)
    assert f"players[0].hand: [{event}] are not court cards" in refusal(doc)


@pytest.mark.parametrize("key", ["05", "٥"])
def test_spies_keys_are_written_as_the_engine_writes_them(start: Start, key: str) -> None:
    doc = engine.to_dict(start())
    doc["spies"][key] = [1, 0]
    assert "is not a card number" in refusal(doc)
