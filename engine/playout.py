"""Random playouts: complete games of uniformly random legal actions.

Used by the `pamir engine playout` command, the fuzz tests and the benchmark. With
`check=True` the conservation laws are checked after every step and a dead end (no legal
action while the game is not over) is an error. With `wakhan=True`, `num_players` random
humans (1 or 2) play against Wakhan, whose turns the engine plays by itself.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from engine.coverage import observe
from engine.game import legal_seat_actions, step
from engine.invariants import violations
from engine.rng import below, next_u64, seed_state
from engine.rules.setup import new_game
from engine.state import State

NAMES: Final = ("alice", "bob", "carol", "dave", "erin")
MAX_STEPS: Final = 20_000


class PlayoutError(Exception):
    """A random game broke an invariant or reached a dead end.

    An Exception, not an AssertionError: mypyc compiles no subclass of the latter."""


@dataclass
class PlayoutStats:
    games: int = 0
    finished: int = 0
    steps: int = 0
    seconds: float = 0.0
    verbs: dict[str, int] = field(default_factory=dict)
    coverage: Counter[str] | None = None  # filled when coverage is measured
    wins: Counter[str] = field(default_factory=Counter)  # winners by name (shared wins too)

    def as_dict(self) -> dict[str, object]:
        seconds = max(self.seconds, 1e-9)
        return {
            "games": self.games,
            "finished": self.finished,
            "steps": self.steps,
            "seconds": round(self.seconds, 3),
            "games_per_s": round(self.games / seconds, 1),
            "steps_per_s": round(self.steps / seconds, 1),
        }


def play_random_game(
    num_players: int,
    seed: int,
    *,
    check: bool = False,
    stats: PlayoutStats | None = None,
    wakhan: bool = False,
) -> State:
    """Play one game to the end with random legal actions drawn from `seed`."""
    rng = seed_state(seed)
    rng, game_seed = next_u64(rng)
    options = {"wakhan": True} if wakhan else None
    state = new_game(list(NAMES[:num_players]), game_seed, options)
    steps = 0
    while state.phase != "over":
        choices = legal_seat_actions(state)
        if not choices:
            raise PlayoutError(f"dead end at step {steps} (seed {seed}): nothing to decide")
        rng, pick = below(rng, len(choices))
        seat, action = choices[pick]
        before = state.copy() if stats is not None and stats.coverage is not None else None
        step(state, seat, action)
        if before is not None and stats is not None and stats.coverage is not None:
            observe(before, seat, action, state, stats.coverage)
        steps += 1
        if stats is not None:
            stats.verbs[action.verb] = stats.verbs.get(action.verb, 0) + 1
        if check:
            problems = violations(state)
            if problems:
                raise PlayoutError(
                    f"seed {seed}, step {steps}, after {seat}: {action}: {'; '.join(problems)}"
                )
        if steps >= MAX_STEPS:
            break
    if stats is not None:
        stats.games += 1
        stats.steps += steps
        stats.finished += state.phase == "over"
        stats.wins.update(state.name(seat) for seat in state.winners)
    return state


def playout(
    num_players: int,
    games: int,
    seed: int = 0,
    *,
    check: bool = False,
    coverage: bool = False,
    wakhan: bool = False,
) -> PlayoutStats:
    """Play `games` random games and measure them (and what they used, with `coverage`).

    With `wakhan`, `num_players` is the number of human players (1 or 2) against Wakhan.
    """
    stats = PlayoutStats(coverage=Counter() if coverage else None)
    started = time.perf_counter()
    for index in range(games):
        play_random_game(
            num_players, seed * 1_000_003 + index, check=check, stats=stats, wakhan=wakhan
        )
    stats.seconds = time.perf_counter() - started
    return stats
