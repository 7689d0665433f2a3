"""Fuzzing: many random games against Wakhan end normally with the invariants intact.

Random legal humans (one or two) play 1,000 games each against Wakhan. The conservation
laws are checked after every step (a step of a human may include a whole turn of Wakhan);
Wakhan is never left to decide; every game ends. Random humans pass often, so games are
short: more games are played by eager humans, who pass only one time in twenty when
something else is legal, and so make longer games with more for Wakhan to meet (bribes,
battles, events, checks); a few more are saved and read back as they go.
"""

from __future__ import annotations

import pytest

import engine
from engine.game import legal_seat_actions, step
from engine.invariants import violations
from engine.playout import MAX_STEPS, NAMES
from engine.rng import below, next_u64, seed_state

GAMES = 1000
EAGER = 150
CHECK_EVERY = 1


def play(humans: int, seed: int, *, reload_every: int = 0, eager: bool = False) -> engine.State:
    rng = seed_state(seed)
    rng, game_seed = next_u64(rng)
    state = engine.new_game(list(NAMES[:humans]), game_seed, {"wakhan": True})
    assert state.wakhan is not None
    wakhan = state.wakhan.seat
    for steps in range(1, MAX_STEPS):
        choices = legal_seat_actions(state)
        assert choices, f"dead end (seed {seed}, step {steps})"
        assert all(seat != wakhan for seat, _ in choices), "Wakhan was left to decide"
        if eager:
            rng, whim = below(rng, 20)
            choices = [c for c in choices if c[1].verb != "pass" or not whim] or choices
        rng, pick = below(rng, len(choices))
        step(state, *choices[pick])
        if steps % CHECK_EVERY == 0 or state.phase == "over":
            problems = violations(state)
            assert problems == [], f"seed {seed}, step {steps}: {problems}"
        if reload_every and steps % reload_every == 0 and state.phase != "over":
            state = engine.loads(engine.dumps(state))
        if state.phase == "over":
            return state
    raise AssertionError(f"seed {seed}: no end after {MAX_STEPS} steps")


@pytest.mark.parametrize("humans", [1, 2])
def test_random_games_against_wakhan_end_with_the_invariants_intact(humans: int) -> None:
    winners: dict[str, int] = {}
    for game in range(GAMES):
        state = play(humans, humans * 100_000 + game)
        assert state.winners and not state.stack
        for seat in state.winners:
            winners[state.name(seat)] = winners.get(state.name(seat), 0) + 1
    assert winners.get("wakhan", 0) > GAMES // 2  # random play rarely beats her


@pytest.mark.parametrize("humans", [1, 2])
def test_eager_random_games_against_wakhan_end_with_the_invariants_intact(humans: int) -> None:
    for game in range(EAGER):
        state = play(humans, 50_000 + game, eager=True)
        assert state.winners and not state.stack


def test_random_games_against_wakhan_survive_saving_and_reading_back() -> None:
    for game in range(20):
        state = play(1 + game % 2, 7_000 + game, reload_every=5)
        assert engine.loads(engine.dumps(state)).phase == "over"
