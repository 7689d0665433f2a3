"""Measure complete random games: `python benchmarks/playout.py [--games N] [--seed S]`.

Prints, for 2 to 5 players, the games and steps per second of `engine.playout.playout`
without checks (the engine's own speed) and with the conservation laws checked after
every step; then the steps per second of the copying public API, `engine.apply`.
The target is 100 complete 4-player random games per second on one core (no checks).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.game import legal_seat_actions
from engine.playout import NAMES, playout
from engine.rng import below, next_u64, seed_state

TARGET_GAMES_PER_S = 100  # complete 4-player random games, one core, no checks


def apply_rate(num_players: int, games: int, seed: int) -> tuple[int, int, float]:
    """(games, steps, seconds) of random games played with the copying `engine.apply`."""
    steps = 0
    started = time.perf_counter()
    for index in range(games):
        rng = seed_state(seed * 1_000_003 + index)
        rng, game_seed = next_u64(rng)
        state = engine.new_game(list(NAMES[:num_players]), game_seed)
        while state.phase != "over":
            choices = legal_seat_actions(state)
            rng, pick = below(rng, len(choices))
            seat, action = choices[pick]
            state = engine.apply(state, seat, action)
            steps += 1
    return games, steps, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=100, help="games per row (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")

    python = sys.version.split()[0]
    print(f"Random playouts, {args.games} game(s) a row, seed {args.seed}, Python {python}")
    header = f"{'players':>7}  {'checks':>6}  {'games':>6}  {'steps':>8}  {'steps/game':>10}"
    header += f"  {'seconds':>8}  {'games/s':>9}  {'steps/s':>10}"
    print(header)
    print("-" * len(header))
    four_player_rate = 0.0
    for check in (False, True):
        for num_players in (2, 3, 4, 5):
            stats = playout(num_players, args.games, args.seed, check=check)
            figures = stats.as_dict()
            if num_players == 4 and not check:
                four_player_rate = float(str(figures["games_per_s"]))
            print(
                f"{num_players:>7}  {'yes' if check else 'no':>6}  {stats.games:>6}"
                f"  {stats.steps:>8}  {stats.steps / stats.games:>10.1f}"
                f"  {stats.seconds:>8.3f}  {figures['games_per_s']:>9}"
                f"  {figures['steps_per_s']:>10}"
            )
    games = max(1, args.games // 4)
    played, steps, seconds = apply_rate(4, games, args.seed)
    seconds = max(seconds, 1e-9)
    print(
        f"engine.apply (copies the state each step), 4 players: {played} games, {steps} steps"
        f" in {seconds:.3f} s: {played / seconds:.1f} games/s, {steps / seconds:.1f} steps/s"
    )
    verdict = "met" if four_player_rate >= TARGET_GAMES_PER_S else "NOT met"
    print(
        f"target: {TARGET_GAMES_PER_S} complete 4-player games/s without checks:"
        f" {four_player_rate:.1f} games/s, {verdict}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
