"""The state's JSON form: exact round trips, hand-written positions, refused documents."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from walks import Start, Walk

import engine
from engine.game import legal_seat_actions, step
from engine.invariants import violations
from engine.rng import below, seed_state

Doc = dict[str, Any]


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_round_trip_is_byte_identical_throughout_games(num_players: int, walk: Walk) -> None:
    checked = 0
    for seed in range(3):
        for index, (state, _, _) in enumerate(walk(num_players, seed)):
            if index % 4 and state.phase != "over":
                continue
            text = engine.dumps(state)
            again = engine.loads(text)
            assert engine.dumps(again) == text
            assert engine.to_dict(engine.from_dict(json.loads(text))) == json.loads(text)
            assert engine.legal_actions(again) == engine.legal_actions(state)
            checked += 1
    assert checked > 30


def test_a_loaded_state_plays_on_exactly_like_the_original(walk: Walk) -> None:
    for index, (state, _, _) in enumerate(walk(3, 7)):
        if index == 40:
            original = state.copy()
            break
    loaded = engine.loads(engine.dumps(original))
    rng = seed_state(1)
    while original.phase != "over":
        choices = legal_seat_actions(original)
        assert choices == legal_seat_actions(loaded)
        rng, pick = below(rng, len(choices))
        step(original, *choices[pick])
        step(loaded, *choices[pick])
        assert engine.dumps(loaded) == engine.dumps(original)


def test_dumps_is_indented_json_with_one_trailing_newline() -> None:
    text = engine.dumps(engine.new_game(["alice", "bob"], 1))
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text.startswith('{\n  "format": "pamir-state/1",')
    assert json.loads(text)["players"][0]["name"] == "alice"


# --- hand-written positions ----------------------------------------------------------------


@pytest.fixture
def first_turn_doc(start: Start) -> Doc:
    return engine.to_dict(start(2, 5))


def take_card(doc: Doc, card: int) -> None:
    """Remove `card` from wherever it is in a state document."""
    for key in ("deck", "removed", "discard"):
        if card in doc[key]:
            doc[key].remove(card)
            return
    for row in doc["market"]["cards"]:
        if card in row:
            row[row.index(card)] = doc["deck"].pop()
            return
    for p in doc["players"]:
        for key in ("hand", "court", "prizes"):
            if card in p[key]:
                p[key].remove(card)
                return
    raise LookupError(card)


def test_a_hand_written_position_loads_and_plays_on(first_turn_doc: Doc) -> None:
    doc = first_turn_doc
    seat = doc["active"]
    me = doc["players"][seat]
    # Mohan Lal in hand, two more rupees from the bank, intelligence favored,
    # a tribe in kabul and a road on kabul-punjab of the player's coalition.
    take_card(doc, 1)
    me["hand"].append(1)
    me["rupees"] += 2
    doc["bank"] -= 2
    doc["favored"] = "intelligence"
    me["cylinders"] -= 1
    doc["tribes"]["kabul"][seat] += 1
    coalition = me["loyalty"]
    doc["block_supply"][coalition] -= 1
    doc["roads"]["kabul-punjab"][coalition] += 1
    text = json.dumps(doc, indent=1)
    state = engine.loads(text)
    assert state.players[seat].hand == [1]
    assert engine.view(state)["regions"]["kabul"]["ruler"] == me["name"]
    legal = [engine.format_action(a) for _, a in engine.legal_actions(state)]
    assert "play 1 left" in legal and "play 1 right" in legal
    state = engine.apply(state, seat, engine.parse_action("play mohan left", state, seat))
    assert 1 in state.players[seat].court
    rng = seed_state(3)
    while state.phase != "over":
        choices = legal_seat_actions(state)
        assert choices, "dead end"
        rng, pick = below(rng, len(choices))
        step(state, *choices[pick])
        assert not violations(state)
    assert state.winners


def test_a_hand_written_position_needs_no_log(first_turn_doc: Doc) -> None:
    del first_turn_doc["log"]
    assert engine.from_dict(first_turn_doc).log == []


def test_the_bank_may_go_below_zero(first_turn_doc: Doc) -> None:
    first_turn_doc["bank"] -= 30
    first_turn_doc["players"][0]["rupees"] += 30
    assert engine.from_dict(first_turn_doc).bank < 0


# --- refused documents ---------------------------------------------------------------------


def add_spy(doc: Doc, card: int) -> None:
    doc["spies"][str(card)] = [1] + [0] * (len(doc["players"]) - 1)
    doc["players"][0]["cylinders"] -= 1


REFUSALS: list[tuple[str, Callable[[Doc], object], list[str]]] = [
    (
        "duplicated card",
        lambda d: d["discard"].append(d["deck"][0]),
        ["is in 2 places", "deck", "discard"],
    ),
    (
        "duplicated card in two hands",
        lambda d: [p["hand"].append(d["deck"][-1]) for p in d["players"]],
        ["is in 3 places", "alice's hand", "bob's hand"],
    ),
    ("missing card", lambda d: d["deck"].pop(), ["cards missing"]),
    ("unknown card", lambda d: d["discard"].append(117), ["unknown cards: [117]"]),
    (
        "13 blocks of a coalition",
        lambda d: d["block_supply"].__setitem__("british", 13),
        ["british blocks: 13 accounted for, not 12"],
    ),
    (
        "an army out of nowhere",
        lambda d: d["armies"]["herat"].__setitem__("russian", 1),
        ["russian blocks: 13"],
    ),
    (
        "too few cylinders",
        lambda d: d["players"][0].__setitem__("cylinders", 9),
        ["alice's cylinders: 10 accounted for, not 11"],
    ),
    (
        "a tribe out of nowhere",
        lambda d: d["tribes"]["punjab"].__setitem__(1, 1),
        ["bob's cylinders: 12 accounted for"],
    ),
    ("37 rupees", lambda d: d.__setitem__("bank", d["bank"] + 1), ["rupees: 37", "not 36"]),
    (
        "35 rupees",
        lambda d: d["players"][1].__setitem__("rupees", d["players"][1]["rupees"] - 1),
        ["rupees: 35"],
    ),
    ("unknown field", lambda d: d.__setitem__("colour", "red"), ["colour", "Extra inputs"]),
    (
        "unknown player field",
        lambda d: d["players"][0].__setitem__("score", 3),
        ["players.0.score", "Extra inputs"],
    ),
    ("missing field", lambda d: d.pop("bank"), ["bank", "required"]),
    ("spies on a card in no court", lambda d: add_spy(d, 5), ["spies on card 5", "no court"]),
    ("a string for a number", lambda d: d.__setitem__("turn", "3"), ["turn", "integer"]),
    ("a float for a number", lambda d: d.__setitem__("seed", 5.0), ["seed", "integer"]),
    ("a number for a string", lambda d: d.__setitem__("phase", 1), ["phase"]),
    (
        "a card given as text",
        lambda d: d["players"][0]["hand"].append("1"),
        ["players.0.hand.0", "integer"],
    ),
    ("a bool for a number", lambda d: d.__setitem__("bank", True), ["bank", "integer"]),
    ("three gifts needed", lambda d: d["players"][0]["gifts"].pop(), ["gifts"]),
    ("an unknown loyalty", lambda d: d["players"][0].__setitem__("loyalty", "french"), ["loyalty"]),
    ("an unknown phase", lambda d: d.__setitem__("phase", "lunch"), ["phase"]),
    ("an unknown favored suit", lambda d: d.__setitem__("favored", "gold"), ["favored"]),
    ("another format", lambda d: d.__setitem__("format", "pamir-state/2"), ["format"]),
    ("one player", lambda d: d["players"].pop(), ["players"]),
    ("a bad generator state", lambda d: d.__setitem__("rng", "xyz"), ["rng"]),
    ("negative rupees", lambda d: d["players"][0].__setitem__("rupees", -1), ["rupees"]),
    ("a region missing", lambda d: d["armies"].pop("kabul"), ["armies"]),
    ("a border missing", lambda d: d["roads"].pop("kabul-punjab"), ["roads"]),
    ("a short tribe list", lambda d: d["tribes"]["kabul"].pop(), ["tribes"]),
    ("a short market row", lambda d: d["market"]["cards"][0].pop(), ["market"]),
    ("an active seat out of range", lambda d: d.__setitem__("active", 5), ["active"]),
    (
        "play without loyalty",
        lambda d: d["players"][0].__setitem__("loyalty", None),
        ["loyalty"],
    ),
]


@pytest.mark.parametrize(("label", "edit", "words"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_inconsistent_states_are_refused(
    first_turn_doc: Doc, label: str, edit: Callable[[Doc], object], words: list[str]
) -> None:
    doc = copy.deepcopy(first_turn_doc)
    engine.from_dict(doc)  # the unedited document is fine
    edit(doc)
    with pytest.raises(engine.StateError) as caught:
        engine.from_dict(doc)
    message = str(caught.value)
    assert message.startswith(("not a valid state: ", "inconsistent state: ")), message
    for word in words:
        assert word in message, (label, message)
    with pytest.raises(engine.StateError):
        engine.loads(json.dumps(doc))


def test_every_problem_is_named_at_once(first_turn_doc: Doc) -> None:
    first_turn_doc["bank"] += 1
    first_turn_doc["block_supply"]["afghan"] = 11
    first_turn_doc["deck"].pop()
    with pytest.raises(engine.StateError) as caught:
        engine.from_dict(first_turn_doc)
    message = str(caught.value)
    for word in ("rupees: 37", "afghan blocks: 11", "cards missing"):
        assert word in message


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '"state"', "{}", "12"])
def test_what_is_not_a_state_document(text: str) -> None:
    with pytest.raises(engine.StateError) as caught:
        engine.loads(text)
    assert str(caught.value).startswith(("not JSON", "not a valid state"))


def test_a_state_error_is_a_value_error() -> None:
    assert issubclass(engine.StateError, ValueError)


@pytest.mark.parametrize("where", ["spies", "policy"])
def test_non_numeric_keys_are_refused(first_turn_doc: Doc, where: str) -> None:
    if where == "spies":
        first_turn_doc["spies"]["abc"] = [0, 0]
    else:
        first_turn_doc["players"][0]["policy"]["demand"]["bob"] = 1
    with pytest.raises(engine.StateError):
        engine.from_dict(first_turn_doc)
