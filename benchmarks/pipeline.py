"""Adjudication latency: from a submission to its adjudicator commit, and `pamir verify`.

    python benchmarks/pipeline.py [--players N] [--seed S] [--json]

Plays one complete game through the real pipeline (a real Git repository in a temporary
PAMIR_HOME), each move file holding a single action so that the game has several hundred
moves, and times every `submit` (validation + state + report + commit): p50 of the first
20 moves and of the last 40 (a submission's cost must not grow with the game), p99, max,
and the git processes started per submission. Then times `pamir verify` on the game cut
after its first quarter of commits and on the whole game (verify must stay linear).
With `--json` the last line is one JSON object of these figures (keys `early_p50_ms`,
`late_p50_ms`, `p99_ms`, `git_processes_per_submit`, `verify_quarter_s`, `verify_whole_s`,
`moves`, `commits`, and the same in CPU time of this process: `early_cpu_p50_ms`,
`late_cpu_p50_ms`, `verify_quarter_cpu_s`, `verify_whole_cpu_s`). The default game (4
players, seed 14) has 341 moves.

Targets, on a quiet machine: late p50 at most 1.2x the early p50 and under 30 ms; verify of
the whole game at most 4.5x that of its first quarter, and under 0.5 s.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import engine
from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from engine.game import legal_seat_actions
from engine.playout import NAMES
from engine.rng import below, seed_state

EARLY, LATE = 20, 40


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class GitCounter:
    """Counts the git processes this process starts (GitPython and subprocess alike)."""

    def __init__(self) -> None:
        self.count = 0
        self._original = subprocess.Popen.__init__

    def __enter__(self) -> GitCounter:
        counter, original = self, self._original

        def counting(popen: Any, args: Any, *rest: Any, **options: Any) -> None:
            program = args[0] if isinstance(args, list | tuple) else str(args).split()[0]
            if Path(str(program)).name == "git":
                counter.count += 1
            original(popen, args, *rest, **options)

        subprocess.Popen.__init__ = counting  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *_: object) -> None:
        subprocess.Popen.__init__ = self._original  # type: ignore[method-assign]


def timed_verify(repo: GameRepo, home: Path) -> tuple[float, float, int, bool]:
    """Wall and CPU seconds of one verify, its commits and whether it passed."""
    started, cpu = time.perf_counter(), time.process_time()
    result = verify(repo, home)
    wall = time.perf_counter() - started
    return wall, time.process_time() - cpu, result.commits, result.ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)  # the service's data folder: the secret, the private sections
        names = list(NAMES[: args.players])
        secret = hashlib.sha256(f"benchmark {args.seed}".encode()).hexdigest()
        players = [(n, f"{n}@example.org") for n in names]
        repo = create_game(home / "games" / "bench", players, home=home, secret=secret)
        rng = seed_state(args.seed)
        timings: list[float] = []
        cpu_times: list[float] = []
        processes: list[int] = []
        state = position(snapshot(repo), home)
        while state.phase != "over":
            choices = legal_seat_actions(state)
            rng, pick = below(rng, len(choices))
            seat, action = choices[pick]
            with GitCounter() as counter:
                started, cpu = time.perf_counter(), time.process_time()
                submit(repo, state.name(seat), engine.format_action(action) + "\n", home=home)
                timings.append(time.perf_counter() - started)
                cpu_times.append(time.process_time() - cpu)
            processes.append(counter.count)
            state = engine.apply(state, seat, action)
        commits = repo.repo.git.rev_list("--first-parent", "--reverse", "HEAD").split()
        quarter = home / "games" / "quarter"
        subprocess.run(["git", "clone", "-q", str(repo.path), str(quarter)], check=True)
        cut = commits[len(commits) // 4 - 1]
        subprocess.run(["git", "-C", str(quarter), "reset", "-q", "--hard", cut], check=True)
        quarter_s, quarter_cpu, quarter_commits, quarter_ok = timed_verify(GameRepo(quarter), home)
        whole_s, whole_cpu, whole_commits, whole_ok = timed_verify(repo, home)
    ms = [t * 1000 for t in timings]
    cpu_ms = [t * 1000 for t in cpu_times]
    figures = {
        "moves": len(ms),
        "commits": whole_commits,
        "early_p50_ms": round(statistics.median(ms[:EARLY]), 1),
        "late_p50_ms": round(statistics.median(ms[-LATE:]), 1),
        "p99_ms": round(percentile(ms, 0.99), 1),
        "max_ms": round(max(ms), 1),
        "git_processes_per_submit": round(statistics.mean(processes), 1),
        "verify_quarter_s": round(quarter_s, 3),
        "verify_whole_s": round(whole_s, 3),
        "early_cpu_p50_ms": round(statistics.median(cpu_ms[:EARLY]), 1),
        "late_cpu_p50_ms": round(statistics.median(cpu_ms[-LATE:]), 1),
        "verify_quarter_cpu_s": round(quarter_cpu, 3),
        "verify_whole_cpu_s": round(whole_cpu, 3),
    }
    print(f"moves adjudicated: {len(ms)} ({args.players} players, seed {args.seed})")
    print(
        f"submit to commit: p50 of moves 1-{EARLY} {figures['early_p50_ms']} ms, of the last "
        f"{LATE} {figures['late_p50_ms']} ms; p99 {figures['p99_ms']} ms, max "
        f"{figures['max_ms']} ms; {figures['git_processes_per_submit']} git processes each"
    )
    print(
        f"  CPU of this process: p50 of moves 1-{EARLY} {figures['early_cpu_p50_ms']} ms, of "
        f"the last {LATE} {figures['late_cpu_p50_ms']} ms"
    )
    print(
        f"pamir verify: {quarter_s:.2f} s for the first {quarter_commits} commits "
        f"({'ok' if quarter_ok else 'DIVERGED'}), {whole_s:.2f} s for all {whole_commits} "
        f"({'ok' if whole_ok else 'DIVERGED'})"
    )
    print(f"  CPU: {quarter_cpu:.2f} s and {whole_cpu:.2f} s")
    growth = figures["late_p50_ms"] / figures["early_p50_ms"]
    print(f"late p50 / early p50: {growth:.2f} (target at most 1.2)")
    print(
        f"verify whole / quarter: {whole_s / quarter_s:.2f}, in CPU time "
        f"{whole_cpu / quarter_cpu:.2f} (target at most 4.5)"
    )
    if args.json:
        print(json.dumps(figures))
    return 0 if quarter_ok and whole_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
