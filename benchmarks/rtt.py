"""pamir's engine against Rally the Troops' Pax Pamir module:
`python benchmarks/rtt.py --rtt PATH [--games 100] [--rounds 5] [--pamir EXE] [--seed S] [--json]`.

PATH is a checkout (or `git archive` export) of rally-the-troops/pax-pamir, whose `rules.js`
the script `require`s from a small Node driver it writes into a temporary folder; none of
that module's code is part of pamir. Each round runs, as separate processes, the driver
playing `--games` random 4-player games of RTT's rules and `EXE engine playout --players 4
--games G --fast --seed S` (EXE defaults to the `pamir` beside this interpreter; pass
another install's to measure it), alternating which goes first, and measures each
process's whole CPU time (user + system, start-up included). It prints games per CPU-second
for each side and their ratio per round, then the medians over the rounds, and the steps
(decisions) a game took on each side. With `--json` one last line holds the medians.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from engine.playout import MAX_STEPS

# The driver: uniformly random legal actions among those RTT's view offers the active role,
# the same way pamir's playout picks among its legal actions. It leaves out `ping` (asking
# another player to answer in the chat, which leads only back to the same decision), the
# actions a view lists as 0 (shown but disabled) and `undo` (taking back a step is not a
# move), except when undo is all there is: RTT lets a player select a piece that has
# nowhere to go (a tribe under Nationalism, for one), and only undo leads out of that.
# The picker's random numbers are its own (mulberry32), seeded per game; RTT's setup gets
# a seed drawn from them, so the same --seed plays the same games.
DRIVER = r"""
"use strict"
const rules = require(process.argv[2])
const games = Number(process.argv[3])
const seed = Number(process.argv[4])
const cap = Number(process.argv[5])
const SKIP = new Set(["undo", "ping"])

function mulberry32(a) {
	return function () {
		a = (a + 0x6d2b79f5) | 0
		let t = Math.imul(a ^ (a >>> 15), 1 | a)
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296
	}
}

function choices(actions) {
	let list = []
	for (let name in actions) {
		if (SKIP.has(name))
			continue
		let value = actions[name]
		if (Array.isArray(value)) {
			for (let arg of value)
				list.push([name, arg])
		} else if (value) {
			list.push([name, undefined])
		}
	}
	return list
}

let result = {
	games: 0, finished: 0, capped: 0, threw: 0, undos: 0, steps: 0, most_steps: 0, errors: [],
}
let started = process.hrtime.bigint()
for (let i = 0; i < games; ++i) {
	let random = mulberry32((seed * 1000003 + i) | 0)
	// RTT's generator works modulo 34359738337: a seed in 1 .. 34359738336.
	let game_seed = 1 + ((random() * 4294967296) * 8 + Math.floor(random() * 8)) % 34359738336
	let steps = 0
	try {
		let state = rules.setup(game_seed, "4P", {})
		while (state.state !== "game_over" && steps < cap) {
			let view = rules.view(state, state.active)
			let list = choices(view.actions || {})
			if (list.length === 0 && view.actions && view.actions.undo) {
				list = [["undo", undefined]]
				++result.undos
			}
			if (list.length === 0)
				throw new Error("nothing to do in state " + state.state)
			let [action, arg] = list[Math.floor(random() * list.length)]
			state = rules.action(state, state.active, action, arg)
			++steps
		}
		if (state.state === "game_over")
			++result.finished
		else
			++result.capped
	} catch (error) {
		++result.threw
		if (result.errors.length < 3)
			result.errors.push(`game ${i} (seed ${game_seed}), step ${steps}: ${error.message}`)
	}
	++result.games
	result.steps += steps
	result.most_steps = Math.max(result.most_steps, steps)
}
result.seconds = Number(process.hrtime.bigint() - started) / 1e9
console.log(JSON.stringify(result))
"""


@dataclass
class Run:
    """One side's process in one round."""

    games: int
    finished: int
    steps: int
    cpu_seconds: float
    detail: dict[str, object]

    @property
    def games_per_cpu_s(self) -> float:
        return self.games / max(self.cpu_seconds, 1e-9)


def children_cpu() -> float:
    """User + system CPU seconds of all the waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_measured(command: list[str]) -> tuple[dict[str, object], float]:
    """Run `command` to its end; its last stdout line as JSON, and the CPU it used."""
    before = children_cpu()
    done = subprocess.run(command, capture_output=True, text=True)
    cpu = children_cpu() - before
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    output: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return output, cpu


def as_int(value: object) -> int:
    assert isinstance(value, int), value
    return value


def run_rtt(node: str, driver: Path, rules: Path, games: int, seed: int) -> Run:
    command = [node, str(driver), str(rules), str(games), str(seed), str(MAX_STEPS)]
    out, cpu = run_measured(command)
    return Run(as_int(out["games"]), as_int(out["finished"]), as_int(out["steps"]), cpu, out)


def run_pamir(exe: str, games: int, seed: int) -> Run:
    command = [exe, "engine", "playout", "--players", "4", "--games", str(games), "--fast"]
    out, cpu = run_measured([*command, "--seed", str(seed)])
    return Run(as_int(out["games"]), as_int(out["finished"]), as_int(out["steps"]), cpu, out)


def describe(run: Run) -> str:
    return (
        f"{run.games_per_cpu_s:8.1f} games/CPU-s ({run.games} games, {run.steps} steps,"
        f" {run.cpu_seconds:.2f} CPU-s)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--rtt", type=Path, required=True, help="a checkout of rally-the-troops/pax-pamir"
    )
    parser.add_argument("--games", type=int, default=100, help="games a round (default 100)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument(
        "--pamir",
        default=str(Path(sys.executable).parent / "pamir"),
        help="the pamir to measure (default: the one beside this Python)",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds must be at least 1")
    rules = (args.rtt / "rules.js").resolve()
    if not rules.is_file():
        parser.error(f"no rules.js in {args.rtt}")
    node = shutil.which("node")
    if node is None:
        parser.error("node (Node.js) is not on the PATH")
    if shutil.which(args.pamir) is None:
        parser.error(f"{args.pamir} is not an executable")

    node_version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    digest = hashlib.sha256(rules.read_bytes()).hexdigest()[:12]
    print(f"RTT: {rules} (sha256 {digest}), Node.js {node_version.strip()}")
    print(f"pamir: {args.pamir}")
    print(f"{args.games} random 4-player games a side a round, seed {args.seed}")

    rtt_runs: list[Run] = []
    pamir_runs: list[Run] = []
    ratios: list[float] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pamir-rtt-") as folder:
        driver = Path(folder) / "driver.js"
        driver.write_text(DRIVER, encoding="utf-8")
        for index in range(args.rounds):
            # Alternate which side goes first, so that a drift in the machine's load
            # falls on both.
            if index % 2 == 0:
                rtt = run_rtt(node, driver, rules, args.games, args.seed)
                ours = run_pamir(args.pamir, args.games, args.seed)
            else:
                ours = run_pamir(args.pamir, args.games, args.seed)
                rtt = run_rtt(node, driver, rules, args.games, args.seed)
            rtt_runs.append(rtt)
            pamir_runs.append(ours)
            ratios.append(ours.games_per_cpu_s / rtt.games_per_cpu_s)
            first = "RTT" if index % 2 == 0 else "pamir"
            print(f"round {index + 1} ({first} first)")
            print(f"  RTT   {describe(rtt)}")
            print(f"  pamir {describe(ours)}")
            print(f"  ratio pamir/RTT {ratios[-1]:.2f}")

    rtt_median = statistics.median(r.games_per_cpu_s for r in rtt_runs)
    pamir_median = statistics.median(r.games_per_cpu_s for r in pamir_runs)
    ratio_median = statistics.median(ratios)
    rounds = args.rounds
    print(f"median over {rounds} round(s): RTT {rtt_median:.1f} games/CPU-s,", end=" ")
    print(f"pamir {pamir_median:.1f} games/CPU-s, ratio pamir/RTT {ratio_median:.2f}")

    last_rtt, last_pamir = rtt_runs[-1], pamir_runs[-1]
    rtt_steps = last_rtt.steps / last_rtt.games
    pamir_steps = last_pamir.steps / last_pamir.games
    detail = last_rtt.detail
    print(
        f"steps a game: RTT {rtt_steps:.1f} (at most {detail['most_steps']};"
        f" undos out of a dead end: {detail['undos']} in all), pamir {pamir_steps:.1f}"
    )
    print(
        f"finished: RTT {last_rtt.finished} of {last_rtt.games} (capped at {MAX_STEPS}"
        f" steps {detail['capped']}, threw {detail['threw']}),"
        f" pamir {last_pamir.finished} of {last_pamir.games}"
    )
    errors = detail["errors"]
    assert isinstance(errors, list)
    for error in errors:
        print(f"  RTT threw: {error}")
    print(f"total time: {time.perf_counter() - started:.0f} s")
    if args.json:
        summary = {
            "rtt_games_per_cpu_s": round(rtt_median, 2),
            "pamir_games_per_cpu_s": round(pamir_median, 2),
            "ratio_median": round(ratio_median, 3),
            "rounds": rounds,
            "games": args.games,
            "pamir": args.pamir,
            "rtt_steps_per_game": round(rtt_steps, 1),
            "pamir_steps_per_game": round(pamir_steps, 1),
        }
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
