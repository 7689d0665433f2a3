"""Fuzzing: many random games with every invariant checked, odd inputs to the public API."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from walks import Start, Walk

import engine
from engine import Action
from engine.coverage import expected, table
from engine.game import legal_seat_actions, options_for
from engine.invariants import violations
from engine.playout import NAMES, playout

GAMES = 150


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_playouts_keep_the_invariants_and_finish(num_players: int) -> None:
    stats = playout(num_players, GAMES, seed=num_players, check=True)
    assert stats.games == GAMES
    assert stats.finished == GAMES, f"{GAMES - stats.finished} game(s) did not end"
    assert stats.steps >= GAMES * 10
    for verb in ("loyalty", "purchase", "play", "pass"):
        assert stats.verbs.get(verb, 0) > 0, (verb, stats.verbs)


def random_policy(rng: random.Random, state: engine.State) -> Action:
    kind = rng.choice(["pay", "demand", "waive", "clear"])
    if kind == "pay":
        return Action("policy", ("pay", rng.randrange(0, 4)))
    if kind == "clear":
        return Action("policy", ("clear",))
    other = rng.choice(state.players).name
    return Action("policy", ("demand", other, 0 if kind == "waive" else rng.randrange(0, 4)))


def test_games_with_standing_policies_and_reloads() -> None:
    """Players set policies at random moments; every few steps the state is saved and reloaded."""
    rng = random.Random(7)
    for game in range(12):
        num_players = 2 + game % 4
        state = engine.new_game(list(NAMES[:num_players]), rng.randrange(2**32))
        steps = 0
        while state.phase != "over":
            if rng.random() < 0.05:
                player = rng.choice(state.players).name
                policy = random_policy(rng, state)
                state = engine.apply(state, player, engine.read_action(str(policy))[0])
            else:
                choices = legal_seat_actions(state)
                assert choices, "dead end"
                seat, action = rng.choice(choices)
                state = engine.apply(state, seat, action)
            assert not violations(state)
            steps += 1
            if steps % 7 == 0:
                state = engine.loads(engine.dumps(state))
            assert steps < 5000, "the game does not end"


VERBS = [
    *("purchase", "play", "pass", "loyalty", "demand", "waive", "pay", "refuse", "road"),
    *("spy", "take", "discard", "choose", "tax", "gift", "build", "move", "betray", "battle"),
    *("collect", "army", "march", "remove", "accept", "decline", "done"),
]
WORDS = [
    *("left", "right", "army", "spy", "road", "british", "russian", "afghan", "tribe"),
    *("kabul", "herat", "punjab", "kabul-punjab", "herat-persia", "alice", "bob"),
    *("military", "political", "0", "1", "2", "4", "7", "12", "23", "48", "60", "77"),
    *("99", "100", "101", "105", "111", "116"),
]


def test_illegal_submissions_raise_move_errors_and_change_nothing(walk: Walk) -> None:
    """Whatever a readable line means, apply either accepts it (it was legal) or refuses it."""
    rng = random.Random(11)
    tried = accepted = 0
    for seed in range(4):
        for index, (state, _, _) in enumerate(walk(3, seed)):
            if index % 6:
                continue
            before = engine.dumps(state)
            for _ in range(40):
                words = [rng.choice(WORDS) for _ in range(rng.randrange(0, 4))]
                text = " ".join([rng.choice(VERBS), *words])
                try:
                    actions = engine.read_action(text)
                except engine.MoveError:
                    continue
                for action in actions:
                    if action.verb == "policy":
                        continue
                    seat = rng.randrange(state.num_players)
                    tried += 1
                    try:
                        engine.apply(state, seat, action)
                    except engine.MoveError as error:
                        assert action not in options_for(state, seat)
                        assert error.code and error.message
                    else:
                        assert action in options_for(state, seat)
                        accepted += 1
            assert engine.dumps(state) == before
    assert tried > 500
    assert accepted > 0


@pytest.mark.parametrize(
    "action",
    [
        Action("purchase", ()),
        Action("purchase", ("x",)),
        Action("policy", ("pay",)),
        Action("policy", ("demand", "bob")),
    ],
    ids=str,
)
def test_malformed_actions_are_refused(start: Start, action: Action) -> None:
    state = start(2, 5)
    with pytest.raises(engine.MoveError):
        engine.apply(state, state.active, action)


def test_random_play_uses_every_action_event_effect_and_ability() -> None:
    """Across 2,000 random games (500 each for 2 to 5 players) every card-based action,
    every event effect and every special ability is used at least once, and every game
    ends. The table is printed when something was never used."""
    seen: Counter[str] = Counter()
    for players in (2, 3, 4, 5):
        stats = playout(players, 500, seed=players, coverage=True)
        assert stats.finished == stats.games == 500
        assert stats.coverage is not None
        seen.update(stats.coverage)
    missing = [item for item in expected() if not seen[item]]
    assert not missing, "\n" + table(seen)
