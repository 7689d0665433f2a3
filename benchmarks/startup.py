"""Start-up time of the command line: `python benchmarks/startup.py [--runs N] [--against DIR]`.

Prints the median wall time, over N runs (default 15), of `pamir --help`, `pamir --version`,
a `pamir move` refused at once (no such game) and `python -c "import engine"`, each in a
fresh interpreter. With `--against DIR` (another checkout, e.g. a worktree of an earlier
commit) the same commands run from DIR too, alternating with this checkout's, and a ratio
is printed: both measured in the same run, as a loaded machine demands.
Target: `pamir --help` and a `pamir move` refused at once under 150 ms on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMANDS: dict[str, list[str]] = {
    "pamir --help": ["-m", "adjudicator.cli", "--help"],
    "pamir --version": ["-m", "adjudicator.cli", "--version"],
    "pamir move (no such game)": [
        "-m",
        "adjudicator.cli",
        "move",
        "/nonexistent/game",
        "--as",
        "alice",
        "move.txt",
    ],
    "import engine": ["-c", "import engine"],
}


def once(checkout: Path, arguments: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *arguments],
        cwd=checkout,  # the checkout's own packages come first on sys.path
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - started


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=15)
    options.add_argument("--against", type=Path, help="another checkout to compare with")
    args = options.parse_args()
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    print(f"{'command':<28}" + "".join(f"{'ms ' + str(c.name):>22}" for c in checkouts))
    for label, arguments in COMMANDS.items():
        times: dict[Path, list[float]] = {checkout: [] for checkout in checkouts}
        for _ in range(args.runs):
            for checkout in checkouts:  # alternate, so load falls on both alike
                times[checkout].append(once(checkout, arguments))
        medians = [statistics.median(times[checkout]) * 1000 for checkout in checkouts]
        line = f"{label:<28}" + "".join(f"{m:>22.0f}" for m in medians)
        if len(medians) == 2:
            line += f"   {medians[1] / medians[0]:.1f}x faster here"
        print(line)


if __name__ == "__main__":
    main()
