"""Determinism and purity: seeds and actions fix a game; apply and view change nothing."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from walks import Walk

import engine
from engine import Action
from engine.game import options_for
from engine.playout import NAMES, play_random_game


def test_same_seed_same_setup() -> None:
    for n in range(2, 6):
        names = list(NAMES[:n])
        assert engine.dumps(engine.new_game(names, 42)) == engine.dumps(engine.new_game(names, 42))


def test_different_seeds_differ() -> None:
    decks = {tuple(engine.new_game(["alice", "bob"], seed).deck) for seed in range(20)}
    assert len(decks) == 20


def test_huge_and_negative_seeds_are_accepted() -> None:
    for seed in (0, -1, 2**63, 2**64 + 5):
        state = engine.new_game(["alice", "bob"], seed)
        assert engine.loads(engine.dumps(state)).seed == seed


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_same_seed_and_actions_give_identical_json(num_players: int, walk: Walk) -> None:
    first = [engine.dumps(state) for state, _, _ in walk(num_players, 17)]
    second = [engine.dumps(state) for state, _, _ in walk(num_players, 17)]
    assert first == second
    assert len(first) > 20


def test_random_playouts_are_reproducible() -> None:
    a = play_random_game(3, 99)
    b = play_random_game(3, 99)
    assert engine.dumps(a) == engine.dumps(b)
    assert engine.dumps(a) != engine.dumps(play_random_game(3, 100))


@pytest.mark.parametrize("num_players", [2, 4])
def test_replaying_with_apply_matches_stepping_in_place(num_players: int, walk: Walk) -> None:
    """The copying public API and the in-place step reach byte-identical states."""
    recorded: list[tuple[str, Action]] = []
    final = ""
    for state, choices, pick in walk(num_players, 8):
        if pick < 0:
            final = engine.dumps(state)
            break
        seat, action = choices[pick]
        recorded.append((state.name(seat), action))
    names = list(NAMES[:num_players])
    first = next(walk(num_players, 8))[0]
    state = engine.new_game(names, first.seed)
    for player, action in recorded:
        state = engine.apply(state, player, action)
    assert engine.dumps(state) == final
    assert state.phase == "over"


def test_apply_never_mutates_its_input(walk: Walk) -> None:
    checked = 0
    for num_players, seed in ((2, 1), (3, 2), (5, 3)):
        for state, choices, pick in walk(num_players, seed):
            if pick < 0:
                break
            before = engine.dumps(state)
            seat, action = choices[pick]
            after = engine.apply(state, seat, action)
            assert engine.dumps(state) == before, f"apply changed its input: {action}"
            assert after is not state
            # An illegal action is refused and changes nothing either.
            with pytest.raises(engine.MoveError):
                engine.apply(state, seat, Action("play", (999, "left")))
            assert engine.dumps(state) == before
            checked += 1
    assert checked > 100


def scribble(state: engine.State, *, nested: bool = False) -> None:
    """Change everything mutable in a state; with `nested`, also containers inside frames."""
    for p in state.players:
        p.hand.append(1)
        p.court.clear()
        p.gifts[0] = not p.gifts[0]
        p.policy_demand[0] = 9
    state.deck.reverse()
    state.market[0][0] = None
    state.market_rupees[1][1] += 5
    for counts in state.armies.values():
        counts["british"] += 1
    for counts in state.roads.values():
        counts["russian"] += 1
    for tribes in state.tribes.values():
        tribes[0] += 1
    for spies in state.spies.values():
        spies[0] += 1
    for frame in [*state.stack, *state.effects]:
        loose = cast(dict[str, Any], frame)  # scribbled on deliberately, outside the schema
        for value in loose.values():
            if nested and isinstance(value, list):
                value.append(0)
            elif nested and isinstance(value, dict):
                value["scribbled"] = True
        loose["scribbled"] = True
    state.block_supply["afghan"] = 0
    state.placed["x"] = 1
    state.log.append("scribble")


def has_nested(state: engine.State) -> bool:
    return any(isinstance(v, list | dict) for f in state.stack for v in f.values())


def test_the_new_state_shares_nothing_that_changes_the_old(walk: Walk) -> None:
    """Changing the result of apply (or of copy) never reaches back into the input."""
    checked = 0
    for seed in range(4):
        for index, (state, choices, pick) in enumerate(walk(3, seed)):
            if pick < 0 or index % 5:
                continue
            before = engine.dumps(state)
            seat, action = choices[pick]
            scribble(engine.apply(state, seat, action))
            scribble(state.copy())
            assert engine.dumps(state) == before, f"{action} shared state with its input"
            checked += 1
    assert checked > 50


def test_lists_inside_pending_frames_are_not_shared(walk: Walk) -> None:
    for state, choices, pick in walk(3, 0):
        if pick < 0 or not has_nested(state):
            continue
        before = engine.dumps(state)
        seat, action = choices[pick]
        scribble(engine.apply(state, seat, action), nested=True)
        scribble(state.copy(), nested=True)
        assert engine.dumps(state) == before, f"{action} shared state with its input"


def test_policies_do_not_mutate_their_input() -> None:
    state = engine.new_game(["alice", "bob"], 3)
    before = engine.dumps(state)
    after = engine.apply(state, "alice", Action("policy", ("pay", 2)))
    assert engine.dumps(state) == before
    assert after.players[0].policy_pay == 2
    assert state.players[0].policy_pay is None


# --- views ---------------------------------------------------------------------------------


def visible_cards(view: engine.View) -> set[int]:
    """Every card number a view shows: market, courts, prizes, hands shown, discard, effects."""
    cards: set[int] = set()
    for row in view["market"]:
        cards |= {slot["card"] for slot in row if slot is not None and slot["card"] is not None}
    for p in view["players"]:
        cards |= {c["card"] for c in p["court"]}
        cards |= set(p["prizes"])
        cards |= set(p["hand"] or [])
    cards |= set(view["discard"])
    cards |= {e["card"] for e in view["effects"]}
    return cards


def check_view(state: engine.State, player: str | None) -> None:
    data = engine.view(state, player)
    text = json.dumps(data)
    assert json.loads(text) == data, "a view is plain JSON data"
    for key in ("deck", "removed", "rng", "seed", "stack"):
        assert key not in data
    assert data["viewer"] == player
    assert data["deck_size"] == len(state.deck)
    me = state.seat(player) if player is not None else None
    hidden = set(state.deck) | set(state.removed)
    for seat, shown in enumerate(data["players"]):
        assert shown["hand_size"] == len(state.players[seat].hand)
        if seat == me:
            assert shown["hand"] == state.players[seat].hand
        else:
            assert shown["hand"] is None
            hidden |= set(state.players[seat].hand)
    assert not visible_cards(data) & hidden
    if me is None:
        assert data["options"] == []
    else:
        assert data["options"] == [engine.format_action(a) for a in options_for(state, me)]


def test_views_hide_secrets_and_never_mutate(walk: Walk) -> None:
    checked = 0
    for num_players, seed in ((2, 5), (4, 6)):
        for index, (state, _, _) in enumerate(walk(num_players, seed)):
            if index % 3:
                continue
            before = engine.dumps(state)
            check_view(state, None)
            for p in state.players:
                check_view(state, p.name)
            assert engine.dumps(state) == before, "a view changed the state"
            checked += 1
    assert checked > 30


def test_a_player_sees_their_own_hand_and_options(walk: Walk) -> None:
    for state, choices, _ in walk(3, 12):
        if state.phase != "play" or not choices:
            continue
        seat = choices[0][0]
        if not state.players[seat].hand:
            continue
        mine = engine.view(state, state.name(seat))
        shown = mine["players"][seat]
        assert shown["hand"] == state.players[seat].hand
        assert mine["options"] == [engine.format_action(a) for s, a in choices if s == seat]
        other = engine.view(state, state.name((seat + 1) % 3))
        assert other["players"][seat]["hand"] is None
        assert other["players"][seat]["hand_size"] == len(state.players[seat].hand)
        assert other["options"] == [
            engine.format_action(a) for s, a in choices if s == (seat + 1) % 3
        ]
        return
    pytest.fail("no decision with a hand in this game")


def test_views_are_case_insensitive_and_refuse_strangers() -> None:
    state = engine.new_game(["alice", "bob"], 1)
    assert engine.view(state, "ALICE")["players"][0]["hand"] == []
    with pytest.raises(KeyError):
        engine.view(state, "zed")


def test_views_are_deterministic(walk: Walk) -> None:
    *_, (state, _, _) = walk(2, 21)
    assert state.phase == "over"
    assert json.dumps(engine.view(state)) == json.dumps(engine.view(state.copy()))
