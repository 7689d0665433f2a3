"""Fuzz the state reader: `python benchmarks/state_fuzz.py [--states N] [--seed S]`.

Takes states from random playouts (2 to 5 players, and against Wakhan), mutates each with
`engine.mutate` and loads it. Every accepted state is played on: every legal action is
applied and every player's view (and the public one) is made. Any exception other than the
engine's own errors is a crash. Prints the first crashes found, then, as its last line, one
JSON object with the figures; exits with status 1 if anything crashed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.mutate import exercise, mutate, sample_states

SHOWN = 20  # crashes printed in full


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=10_000, help="mutated states to try")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games and mutations")
    parser.add_argument("--games", type=int, default=24, help="random games to take states from")
    args = parser.parse_args()
    started = time.perf_counter()
    bases = sample_states(args.games, args.seed)
    rng = random.Random(args.seed)
    figures: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for index in range(args.states):
        doc, what = mutate(bases[index % len(bases)], rng)
        outcome = exercise(doc)
        figures["accepted" if outcome.accepted else "refused"] += 1
        figures["actions"] += outcome.actions
        figures["crashes"] += bool(outcome.crashes)
        for crash in outcome.crashes:
            kinds[crash.split("(")[0].split(": ", 1)[-1]] += 1
        if outcome.crashes and figures["crashes"] <= SHOWN:
            print(f"state {index} ({what}): {outcome.crashes[0]}", file=sys.stderr)
    for kind, count in kinds.most_common(10):
        print(f"{count:6}  {kind}", file=sys.stderr)
    result = {
        "states": args.states,
        "accepted": figures["accepted"],
        "refused": figures["refused"],
        "crashes": figures["crashes"],
        "actions_applied": figures["actions"],
        "base_states": len(bases),
        "seed": args.seed,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(result))
    return 1 if figures["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
