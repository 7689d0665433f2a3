"""Compare two versions of the engine: `python benchmarks/engine_ratio.py --base PATH`.

Runs the engine of this working copy and the one of `--base` (another checkout, e.g. a
`git worktree` of an older commit), each in its own subprocess with its own `PYTHONPATH`,
on the same seeds. First it plays the same random games with both and compares a digest of
every step (the legal actions offered, the action picked and the state's JSON after it);
then, for several rounds alternating which engine goes first, it times 4-player random
playouts without and with the conservation laws checked, and prints games per second for
each engine, their ratio per round and the median ratio. Exits with status 1 if the games
differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
# (players, wakhan) lines of the digest: every player count, and Wakhan with 1 and 2 humans.
DIGEST_LINES = ((2, False), (3, False), (4, False), (5, False), (1, True), (2, True))


def worker_digest(games: int, seed: int) -> dict[str, object]:
    """A digest of every step of `games` random games on each line of DIGEST_LINES."""
    from engine.actions import format_action
    from engine.game import legal_seat_actions, step
    from engine.playout import NAMES
    from engine.rng import below, next_u64, seed_state
    from engine.rules.setup import new_game
    from engine.serialize import dumps

    digest = hashlib.sha256()
    steps = 0
    for num_players, wakhan in DIGEST_LINES:
        for index in range(games):
            rng = seed_state(seed * 1_000_003 + index)
            rng, game_seed = next_u64(rng)
            options = {"wakhan": True} if wakhan else None
            state = new_game(list(NAMES[:num_players]), game_seed, options)
            digest.update(dumps(state).encode())
            while state.phase != "over":
                choices = legal_seat_actions(state)
                for seat, action in choices:
                    digest.update(f"{seat} {format_action(action)}\n".encode())
                rng, pick = below(rng, len(choices))
                seat, action = choices[pick]
                step(state, seat, action)
                digest.update(dumps(state).encode())
                steps += 1
    return {"digest": digest.hexdigest(), "steps": steps}


def worker_time(games: int, seed: int, check: bool) -> dict[str, object]:
    """Seconds for `games` 4-player random games, and a digest of their final states."""
    from engine.playout import play_random_game
    from engine.serialize import dumps

    started = time.process_time()
    finals = [play_random_game(4, seed * 1_000_003 + i, check=check) for i in range(games)]
    seconds = time.process_time() - started
    digest = hashlib.sha256("".join(dumps(s) for s in finals).encode()).hexdigest()
    return {"seconds": seconds, "digest": digest}


def run_worker(root: Path, mode: str, games: int, seed: int) -> dict[str, object]:
    """Run this script as a worker on the engine found in `root`."""
    env = dict(os.environ, PYTHONPATH=str(root))
    command = [sys.executable, __file__, "--worker", mode, "--games", str(games)]
    command += ["--seed", str(seed), "--root", str(root)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def worker_main(mode: str, games: int, seed: int, root: str) -> int:
    import engine

    where = Path(engine.__file__).resolve().parent.parent
    if where != Path(root).resolve():
        raise SystemExit(f"imported the engine from {where}, not {root}")
    if mode == "digest":
        result = worker_digest(games, seed)
    else:
        result = worker_time(games, seed, check=mode == "checked")
    print(json.dumps(result))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--base", type=Path, required="--worker" not in (argv or sys.argv))
    parser.add_argument("--games", type=int, default=100, help="games a timed run (100)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument("--digest-games", type=int, default=20, help="games a digest line (20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worker", choices=("digest", "fast", "checked"), help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker, args.games, args.seed, args.root)

    engines = {"base": args.base.resolve(), "new": HERE}
    lines = ", ".join(f"{n}p{' Wakhan' if w else ''}" for n, w in DIGEST_LINES)
    print(f"base {engines['base']}\nnew  {engines['new']}")
    digests = {
        name: run_worker(root, "digest", args.digest_games, args.seed)
        for name, root in engines.items()
    }
    same = digests["base"]["digest"] == digests["new"]["digest"]
    print(
        f"digest of every step, {args.digest_games} games a line ({lines}),"
        f" {digests['new']['steps']} steps: {'identical' if same else 'DIFFERENT'}"
    )
    ratios: dict[str, list[float]] = {"fast": [], "checked": []}
    finals_same = True
    for round_ in range(args.rounds):
        order = ["base", "new"] if round_ % 2 == 0 else ["new", "base"]
        for mode in ("fast", "checked"):
            rate: dict[str, float] = {}
            final: dict[str, object] = {}
            for name in order:
                result = run_worker(engines[name], mode, args.games, args.seed)
                rate[name] = args.games / max(float(str(result["seconds"])), 1e-9)
                final[name] = result["digest"]
            finals_same = finals_same and final["base"] == final["new"]
            ratio = rate["new"] / rate["base"]
            ratios[mode].append(ratio)
            print(
                f"round {round_ + 1} {mode:>7}: base {rate['base']:7.1f} games/s,"
                f" new {rate['new']:7.1f} games/s, ratio {ratio:.2f}"
            )
    for mode, values in ratios.items():
        print(f"median ratio {mode:>7}: {statistics.median(values):.2f} over {len(values)} rounds")
    print(f"final states of the timed games: {'identical' if finals_same else 'DIFFERENT'}")
    return 0 if same and finals_same else 1


if __name__ == "__main__":
    raise SystemExit(main())
