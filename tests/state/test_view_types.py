"""Every view of random games has exactly the shape engine/view_types.py declares.

The TypedDicts are only checked by mypy where a view is built or read; these tests hold
them to what `engine.view` really produces: every declared key is there (or may be left
out, for a `NotRequired` one), nothing undeclared is, and every value has its declared type
(`bool` is not taken for `int`). The check reads the annotations itself rather than going
through pydantic, which on Python 3.11 refuses `typing.TypedDict`; and on 3.11 a TypedDict's
`__required_keys__` is wrong under `from __future__ import annotations`, so `NotRequired` is
read from the annotations too.
"""

from __future__ import annotations

import itertools
import types
import typing
from collections.abc import Iterator
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

import pytest

import engine
from engine.game import legal_seat_actions, step
from engine.playout import NAMES
from engine.rng import below, next_u64, seed_state
from engine.view_types import PlayerView, PublicView, View

EVERY = 5  # steps between the positions looked at


def mismatches(value: object, expected: Any, where: str = "view") -> Iterator[str]:
    """Where `value` does not have the type `expected`, as `where.key[index]: why`."""
    origin = get_origin(expected)
    if expected is Any:
        return
    if expected is None or expected is type(None):
        if value is not None:
            yield f"{where}: {value!r} is not None"
    elif typing.is_typeddict(expected):
        yield from _record_mismatches(value, expected, where)
    elif origin is Literal:
        if value not in get_args(expected) or isinstance(value, bool):
            yield f"{where}: {value!r} is not one of {get_args(expected)}"
    elif origin in (Union, types.UnionType):
        options = get_args(expected)
        if all(any(mismatches(value, option, where)) for option in options):
            yield f"{where}: {value!r} is none of {options}"
    elif origin is list:
        if not isinstance(value, list):
            yield f"{where}: {value!r} is not a list"
            return
        (item,) = get_args(expected)
        for index, entry in enumerate(value):
            yield from mismatches(entry, item, f"{where}[{index}]")
    elif origin is dict:
        if not isinstance(value, dict):
            yield f"{where}: {value!r} is not a dict"
            return
        key_type, value_type = get_args(expected)
        for key, entry in value.items():
            yield from mismatches(key, key_type, f"{where} key {key!r}")
            yield from mismatches(entry, value_type, f"{where}[{key!r}]")
    elif expected in (int, str, bool):
        if type(value) is not expected:
            yield f"{where}: {value!r} is not {expected.__name__}"
    else:
        raise TypeError(f"{where}: the checker does not know {expected!r}")


def _record_mismatches(value: object, record: Any, where: str) -> Iterator[str]:
    if not isinstance(value, dict):
        yield f"{where}: {value!r} is not a dict"
        return
    fields = get_type_hints(record, include_extras=True)
    optional = {key for key, hint in fields.items() if get_origin(hint) is NotRequired}
    missing = fields.keys() - optional - value.keys()
    extra = value.keys() - fields.keys()
    if missing:
        yield f"{where}: missing {sorted(missing)}"
    if extra:
        yield f"{where}: undeclared {sorted(extra)}"
    for key in fields.keys() & value.keys():
        hint = fields[key]
        if get_origin(hint) is NotRequired:
            (hint,) = get_args(hint)
        yield from mismatches(value[key], hint, f"{where}[{key!r}]")


def positions(num_players: int, seed: int, wakhan: bool = False) -> Iterator[engine.State]:
    """Every `EVERY`-th position of a random game, and its end."""
    rng = seed_state(seed)
    rng, game_seed = next_u64(rng)
    state = engine.new_game(list(NAMES[:num_players]), game_seed, {"wakhan": wakhan})
    steps = 0
    while state.phase != "over":
        if steps % EVERY == 0:
            yield state
        choices = legal_seat_actions(state)
        rng, pick = below(rng, len(choices))
        step(state, *choices[pick])
        steps += 1
    yield state


def views_of(state: engine.State) -> Iterator[tuple[View, Any]]:
    """The public view and every player's, each with the type it should have."""
    yield engine.view(state), PublicView
    for player in state.players:
        yield engine.view(state, player.name), PlayerView


TABLES = [(2, False), (3, False), (4, False), (5, False), (1, True), (2, True)]  # with Wakhan?
SEEDS = range(3)


@pytest.mark.parametrize(("num_players", "wakhan"), TABLES)
def test_every_view_of_random_games_has_its_declared_shape(num_players: int, wakhan: bool) -> None:
    checked = 0
    for seed in SEEDS:
        for state in positions(num_players, seed, wakhan):
            for shown, declared in views_of(state):
                assert list(mismatches(shown, declared)) == [], (seed, state.turn)
                checked += 1
    assert checked >= 60


def test_the_optional_parts_appear_in_random_games() -> None:
    """The games above show Wakhan's cards, lasting effects, rupees on an empty slot, the
    Public Withdrawal's missing cost and a player's standing policy, so each of those
    records is checked against real data and not only declared."""
    seen: set[str] = set()
    for (num_players, wakhan), seed in itertools.product(TABLES, SEEDS):
        for live in positions(num_players, seed, wakhan):
            state = live.copy()
            state.players[0].policy_pay = 2
            state.players[0].policy_demand = {state.num_players - 1: 1}
            shown = engine.view(state, state.players[0].name)
            assert list(mismatches(shown, PlayerView)) == []
            if shown.get("wakhan", {}).get("ai_card"):
                seen.add("ai card")
            if shown["effects"]:
                seen.add("effect")
            slots = [slot for row in shown["market"] for slot in row if slot is not None]
            if any(slot["card"] is None for slot in slots):
                seen.add("rupees on an empty slot")
            if any(slot.get("cost", 0) is None for slot in slots):
                seen.add("no cost")
            if shown["players"][0]["policy"] is not None:
                seen.add("policy")
    assert seen == {"ai card", "effect", "rupees on an empty slot", "no cost", "policy"}


@pytest.mark.parametrize(
    ("value", "declared"),
    [
        ({"format": "pamir-view/1"}, PublicView),
        ({**engine.view(engine.new_game(["a", "b"], 1)), "extra": 1}, PublicView),
        (engine.view(engine.new_game(["a", "b"], 1), "a"), PublicView),
        (engine.view(engine.new_game(["a", "b"], 1)), PlayerView),
        ({**engine.view(engine.new_game(["a", "b"], 1)), "turn": True}, PublicView),
    ],
    ids=["missing keys", "an undeclared key", "a player's view", "the public view", "a bool"],
)
def test_the_checker_finds_what_does_not_fit(value: object, declared: Any) -> None:
    assert list(mismatches(value, declared)) != []
