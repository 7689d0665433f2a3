"""Coverage of random play: which action kinds, event effects and abilities were used.

    python benchmarks/coverage.py [--games N]

Plays N random games for each of 2, 3, 4 and 5 players (default 500, so 2,000 in all) and
prints how often each card-based action, event effect and special ability was used. An
ability counts only when it changed something (engine/coverage.py says how each is seen).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from engine.coverage import expected, table
from engine.playout import playout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per player count")
    args = parser.parse_args()
    seen: Counter[str] = Counter()
    started = time.perf_counter()
    games = 0
    for players in (2, 3, 4, 5):
        stats = playout(players, args.games, seed=players, check=True, coverage=True)
        assert stats.coverage is not None
        seen.update(stats.coverage)
        games += stats.finished
    print(table(seen))
    missing = [item for item in expected() if not seen[item]]
    seconds = time.perf_counter() - started
    print(f"\n{games} games finished in {seconds:.1f} s; {len(missing)} item(s) never used")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
