"""Measure Wakhan: `python benchmarks/wakhan.py [--games N] [--seed S]`.

Plays N complete games (default 500) for each line: one and two humans against Wakhan, the
humans either random legal players (as `engine.playout`), the stand-in policy of
`engine.standin`, or (`mixed`, two humans) one stand-in and one player who passes whenever
they may, so that fewer cards are bought and the game lasts longer. Prints, for each line,
how often Wakhan and the humans won (a shared win counts for each winner), the game length,
how many games reached the final Dominance Check and how many reshuffled the AI deck, and
the time Wakhan's turns took: the wall time of the steps in which she played a turn (the
human's step that ends their turn, cleanup, then Wakhan's whole turn and cleanup), per
turn, as mean, median, p99 and maximum.
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
from engine.rules.market import count_dominance_checks_left

Chooser = Callable[[engine.State, int], tuple[int, engine.Action]]
LINES = (("random", 1), ("random", 2), ("standin", 1), ("standin", 2), ("mixed", 2))
RESHUFFLED = "Wakhan's AI deck ran out"  # the note of engine/rules/wakhan_deck.py


def random_player(rng: list[int]) -> Chooser:
    def choose(state: engine.State, _: int) -> tuple[int, engine.Action]:
        choices = legal_seat_actions(state)
        rng[0], pick = below(rng[0], len(choices))
        return choices[pick]

    return choose


def standin_player(state: engine.State, _: int) -> tuple[int, engine.Action]:
    seat = legal_seat_actions(state)[0][0]
    return seat, standin.choose(state, seat)


def passing_player(state: engine.State, _: int) -> tuple[int, engine.Action]:
    """Pass whenever passing is legal; otherwise decide as the stand-in would."""
    seat = legal_seat_actions(state)[0][0]
    mine = [action for s, action in legal_seat_actions(state) if s == seat]
    passing = [action for action in mine if action.verb == "pass"]
    return seat, passing[0] if passing else standin.choose(state, seat)


def mixed_players(state: engine.State, _: int) -> tuple[int, engine.Action]:
    """The first human is the stand-in, the second passes whenever they may."""
    seat = legal_seat_actions(state)[0][0]
    first = seat == min(s for s in range(state.num_players) if not state.is_wakhan(s))
    return standin_player(state, 0) if first else passing_player(state, 0)


def chooser_for(kind: str, rng: int) -> Chooser:
    if kind == "random":
        return random_player([rng])
    return standin_player if kind == "standin" else mixed_players


class Game:
    """One game played to its end, with what it reached."""

    def __init__(self, humans: int, seed: int, kind: str, turn_times: list[float]) -> None:
        self.reshuffled = False
        self.state = self.play(humans, seed, kind, turn_times)
        # The final check is the one that leaves no Dominance Check card to come.
        self.final_check = count_dominance_checks_left(self.state) == 0

    def play(self, humans: int, seed: int, kind: str, turn_times: list[float]) -> engine.State:
        """The time of every step in which Wakhan played a turn goes to `turn_times`."""
        rng = seed_state(seed)
        rng, game_seed = next_u64(rng)
        state = engine.new_game(list(NAMES[:humans]), game_seed, {"wakhan": True})
        chooser = chooser_for(kind, rng)
        while state.phase != "over":
            seat, action = chooser(state, 0)
            started = time.perf_counter()
            step(state, seat, action)
            elapsed = time.perf_counter() - started
            turns = sum(1 for line in state.log if line.startswith("Wakhan drew AI card"))
            if turns:
                turn_times.extend([elapsed / turns] * turns)
            self.reshuffled |= any(line.startswith(RESHUFFLED) for line in state.log)
        return state


def measure(humans: int, kind: str, games: int, seed: int) -> str:
    wins: Counter[str] = Counter()
    turns: list[int] = []
    turn_times: list[float] = []
    reached: Counter[str] = Counter()
    started = time.perf_counter()
    for index in range(games):
        game = Game(humans, seed * 1_000_003 + index, kind, turn_times)
        state = game.state
        wins.update("wakhan" if state.is_wakhan(s) else "humans" for s in state.winners)
        turns.append(state.turn)
        reached.update(final=game.final_check, reshuffled=game.reshuffled)
    seconds = time.perf_counter() - started
    ms = sorted(t * 1000 for t in turn_times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (
        f"{humans:>6}  {kind:>8}  {games:>5}  {100 * wins['wakhan'] / games:>7.1f}%"
        f"  {100 * wins['humans'] / games:>7.1f}%  {statistics.mean(turns):>6.1f}"
        f"  {reached['final']:>5}  {reached['reshuffled']:>6}"
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
        f"  {'turns':>6}  {'final':>5}  {'AI shf':>6}  {'W turns':>7}  {'mean':>6}"
        f"  {'p50':>6}  {'p99':>6}  {'max':>6}"
        f"  {'seconds':>7}"
    )
    print("wins: share of games won (shared wins count for each); final: games that reached")
    print("the final Dominance Check; AI shf: games that reshuffled the AI deck;")
    print("W turn times in ms")
    print(header)
    print("-" * len(header))
    for kind, humans in LINES:
        print(measure(humans, kind, args.games, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
