"""Adjudication latency: from a submission to its adjudicator commit, and `pamir verify`.

    python benchmarks/pipeline.py [--players N] [--seed S]

Plays one complete game through the real pipeline (a real Git repository in a temporary
PAMIR_HOME), each move file holding a single action so that the game has several hundred
moves, and times every `submit` (validation + state + report + commit): p50, p99 and max.
Then times `pamir verify` on the finished game. Target: p50 under 100 ms per move.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
from pathlib import Path

import engine
from adjudicator.games.pipeline import create_game, position, submit
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from engine.game import legal_seat_actions
from engine.playout import NAMES
from engine.rng import below, seed_state


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)  # the service's data folder: the secret, the private sections
        names = list(NAMES[: args.players])
        secret = hashlib.sha256(f"benchmark {args.seed}".encode()).hexdigest()
        players = [(n, f"{n}@example.org") for n in names]
        repo = create_game(home / "games" / "bench", players, home=home, secret=secret)
        rng = seed_state(args.seed)
        timings: list[float] = []
        state = position(snapshot(repo), home)
        while state.phase != "over":
            choices = legal_seat_actions(state)
            rng, pick = below(rng, len(choices))
            seat, action = choices[pick]
            started = time.perf_counter()
            submit(repo, state.name(seat), engine.format_action(action) + "\n", home=home)
            timings.append(time.perf_counter() - started)
            state = engine.apply(state, seat, action)
        started = time.perf_counter()
        result = verify(repo, home)
        verify_seconds = time.perf_counter() - started
    ms = [t * 1000 for t in timings]
    print(f"moves adjudicated: {len(ms)} ({args.players} players, seed {args.seed})")
    print(
        f"submit to commit: p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, "
        f"max {max(ms):.1f} ms, mean {statistics.mean(ms):.1f} ms"
    )
    print(
        f"pamir verify: {verify_seconds:.2f} s for {result.commits} commits "
        f"({'ok' if result.ok else result.divergence})"
    )
    target = percentile(ms, 0.5) < 100
    print(f"target: p50 under 100 ms per move: {'met' if target else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
