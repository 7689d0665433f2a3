"""How long a refused move's reason takes to say in Polish:
`python benchmarks/refusal_words.py [--repeat N]`.

A refusal is given by the engine as a phrase beside its English (engine/errors.py), and
said in the reader's language from that phrase: nothing reads the English back. For each
kind of line below (an ordinary unknown verb, an illegal purchase, a long hostile line of
300 characters and more written to trip a reader of the English), it prints the
milliseconds per refusal to read and refuse the line (`refuse`) and then to say it in
Polish (`say in pl`), the mean of `--repeat` runs (default 200).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from adjudicator.home.translations import Words
from engine.game import legal_seat_actions

HOSTILE = {
    "hostile, unknown verb": "x" + "%(a)s (a+)+$ " * 24,
    "hostile, card name": "purchase " + "(a|aa)*b '\\ %(x)s " * 16,
    "hostile, quote": 'purchase "' + "a+" * 150,
}


def position() -> engine.State:
    state = engine.new_game(["ala", "bob", "cyd"], 3)
    while (pending := engine.pending(state)) is not None and pending.kind != "turn":
        seat, action = legal_seat_actions(state)[0]
        state = engine.apply(state, seat, action)
    return state


def refusal(line: str, state: engine.State) -> engine.MoveError:
    try:
        parsed = engine.parse_line(f"{state.name(state.active)}: {line}", state)
        assert parsed is not None
        engine.apply(state, *parsed)
    except engine.MoveError as error:
        error.line = 1
        return error
    raise AssertionError(f"{line!r} was not refused")


def timed(work: Callable[[], object], repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        work()
    return (time.process_time() - start) / repeat * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=200, help="runs of each line (200)")
    args = parser.parse_args(argv)
    state = position()
    absent = next(n for n in range(1, 117) if all(n not in row for row in state.market))
    lines = {"unknown verb": "kupx 43", "not in the market": f"purchase {absent}", **HOSTILE}
    polish = Words("pl")
    polish.said(refusal("kupx 43", state).said())  # the catalogue is read once, first
    print(f"{'line':<24} {'characters':>10} {'refuse ms':>10} {'say in pl ms':>13}")
    for name, line in lines.items():
        error = refusal(line, state)
        refuse = timed(lambda line=line: refusal(line, state), args.repeat)  # type: ignore[misc]
        say = timed(lambda error=error: polish.said(error.said()), args.repeat)  # type: ignore[misc]
        print(f"{name:<24} {len(line):>10} {refuse:>10.3f} {say:>13.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
