"""Measure Wakhan: `python benchmarks/wakhan.py [--games N] [--seed S]`.

Plays N complete games (default 500) for each line: one and two humans against Wakhan, the
humans either random legal players (as `engine.playout`) or the stand-in policy of
`engine.standin`. Prints, for each line, how often Wakhan and the humans won (a shared win
counts for each winner), the game length, and the time Wakhan's turns took: the wall time
of the steps in which she played a turn (the human's step that ends their turn, cleanup,
then Wakhan's whole turn and cleanup), per turn, as mean, median, p99 and maximum.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine import standin
from engine.game import legal_seat_actions, step
from engine.playout import NAMES
from engine.rng import below, next_u64, seed_state

Chooser = Callable[[engine.State, int], tuple[int, engine.Action]]


def random_player(rng: list[int]) -> Chooser:
    def choose(state: engine.State, _: int) -> tuple[int, engine.Action]:
        choices = legal_seat_actions(state)
        rng[0], pick = below(rng[0], len(choices))
        return choices[pick]

    return choose


def standin_player(state: engine.State, _: int) -> tuple[int, engine.Action]:
    seat = legal_seat_actions(state)[0][0]
    return seat, standin.choose(state, seat)


def play(humans: int, seed: int, kind: str, turn_times: list[float]) -> engine.State:
    """One game; the time of every step in which Wakhan played a turn goes to `turn_times`."""
    rng = seed_state(seed)
    rng, game_seed = next_u64(rng)
    state = engine.new_game(list(NAMES[:humans]), game_seed, {"wakhan": True})
    chooser = random_player([rng]) if kind == "random" else standin_player
    while state.phase != "over":
        seat, action = chooser(state, 0)
        started = time.perf_counter()
        step(state, seat, action)
        elapsed = time.perf_counter() - started
        turns = sum(1 for line in state.log if line.startswith("Wakhan drew AI card"))
        if turns:
            turn_times.extend([elapsed / turns] * turns)
    return state


def measure(humans: int, kind: str, games: int, seed: int) -> str:
    wins: Counter[str] = Counter()
    turns: list[int] = []
    turn_times: list[float] = []
    started = time.perf_counter()
    for index in range(games):
        state = play(humans, seed * 1_000_003 + index, kind, turn_times)
        wins.update("wakhan" if state.is_wakhan(s) else "humans" for s in state.winners)
        turns.append(state.turn)
    seconds = time.perf_counter() - started
    ms = sorted(t * 1000 for t in turn_times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (
        f"{humans:>6}  {kind:>8}  {games:>5}  {100 * wins['wakhan'] / games:>7.1f}%"
        f"  {100 * wins['humans'] / games:>7.1f}%  {statistics.mean(turns):>6.1f}"
        f"  {len(ms):>7}  {statistics.mean(ms):>6.2f}  {statistics.median(ms):>6.2f}"
        f"  {p99:>6.2f}  {ms[-1]:>6.2f}  {seconds:>7.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=500, help="games per line (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    python = sys.version.split()[0]
    print(f"Wakhan against {args.games} game(s) a line, seed {args.seed}, Python {python}")
    header = (
        f"{'humans':>6}  {'players':>8}  {'games':>5}  {'Wakhan':>8}  {'humans':>8}"
        f"  {'turns':>6}  {'W turns':>7}  {'mean':>6}  {'p50':>6}  {'p99':>6}  {'max':>6}"
        f"  {'seconds':>7}"
    )
    print("wins: share of games won (shared wins count for each); W turn times in ms")
    print(header)
    print("-" * len(header))
    for kind in ("random", "standin"):
        for humans in (1, 2):
            print(measure(humans, kind, args.games, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
