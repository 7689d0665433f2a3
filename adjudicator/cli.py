"""The `pamir` command line (docs/cli.md).

    pamir engine new --players alice,bob,carol [--seed N]   full state JSON
    pamir engine legal STATE                                  one `PLAYER: ACTION` a line
    pamir engine apply STATE MOVES                            new state JSON, or exit 2
    pamir engine view STATE [--player NAME]                   view JSON
    pamir engine playout --players N --games G [--seed S]     one JSON line of figures
    pamir demo                                                a random game, as a log

STATE and MOVES may be `-` for standard input. Exit status: 0 success, 2 refused input
(a bad move or state; nothing is applied), 1 unexpected failure.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Sequence

import engine
from adjudicator import demo
from engine.playout import PlayoutError, playout

EXIT_REFUSED = 2


class Refused(Exception):
    """Input the command refuses; the message goes to standard error, exit status 2."""


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror}") from None


def _load_state(path: str) -> engine.State:
    try:
        return engine.loads(_read(path))
    except engine.StateError as error:
        raise Refused(f"{path}: {error}") from None


def cmd_new(args: argparse.Namespace) -> None:
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    try:
        state = engine.new_game(players, seed)
    except ValueError as error:
        raise Refused(str(error)) from None
    sys.stdout.write(engine.dumps(state))


def cmd_legal(args: argparse.Namespace) -> None:
    state = _load_state(args.state)
    for player, action in engine.legal_actions(state):
        print(f"{player}: {engine.format_action(action)}")


def apply_moves(state: engine.State, text: str) -> engine.State:
    """Apply every line of a move file, or raise the first line's error (nothing applied)."""
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            parsed = engine.parse_line(line, state)
            if parsed is None:
                continue
            seat, action = parsed
            state = engine.apply(state, seat, action)
        except engine.MoveError as error:
            error.line = number
            raise
    return state


def cmd_apply(args: argparse.Namespace) -> None:
    state = _load_state(args.state)
    if args.state == "-" and args.moves == "-":
        raise Refused("STATE and MOVES cannot both be standard input")
    try:
        state = apply_moves(state, _read(args.moves))
    except engine.MoveError as error:
        raise Refused(str(error)) from None
    sys.stdout.write(engine.dumps(state))


def cmd_view(args: argparse.Namespace) -> None:
    state = _load_state(args.state)
    try:
        data = engine.view(state, args.player)
    except KeyError:
        raise Refused(f"no player is called {args.player!r}") from None
    print(json.dumps(data, indent=2, ensure_ascii=False))


def cmd_playout(args: argparse.Namespace) -> None:
    if not 2 <= args.players <= 5:
        raise Refused("--players must be 2 to 5")
    if args.games < 1:
        raise Refused("--games must be at least 1")
    try:
        stats = playout(args.players, args.games, args.seed, check=not args.fast)
    except PlayoutError as error:
        print(f"invariant broken: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    print(json.dumps(stats.as_dict()))


def cmd_demo(args: argparse.Namespace) -> None:
    if not 2 <= args.players <= 5:
        raise Refused("--players must be 2 to 5")
    demo.run(players=args.players, seed=args.seed)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pamir", description="Adjudicator for Pax Pamir: Second Edition (docs/cli.md)."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo_cmd = commands.add_parser("demo", help="play a complete random game and print it")
    demo_cmd.add_argument("--players", type=int, default=3, help="2 to 5 (default 3)")
    demo_cmd.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    demo_cmd.set_defaults(func=cmd_demo)

    eng = commands.add_parser("engine", help="the rules engine on state files")
    sub = eng.add_subparsers(dest="engine_command", required=True)

    new = sub.add_parser("new", help="set up a game and print its full state JSON")
    new.add_argument("--players", required=True, help="comma-separated names, 2 to 5")
    new.add_argument("--seed", type=int, help="random seed (default: a fresh random one)")
    new.set_defaults(func=cmd_new)

    legal = sub.add_parser("legal", help="list the legal actions as PLAYER: ACTION")
    legal.add_argument("state", help="state JSON file, or - for standard input")
    legal.set_defaults(func=cmd_legal)

    app = sub.add_parser("apply", help="apply a move file and print the new state JSON")
    app.add_argument("state", help="state JSON file, or -")
    app.add_argument("moves", help="move file (one action a line), or -")
    app.set_defaults(func=cmd_apply)

    view = sub.add_parser("view", help="print what a player (or the public) may see")
    view.add_argument("state", help="state JSON file, or -")
    view.add_argument("--player", help="the viewing player (default: the public view)")
    view.set_defaults(func=cmd_view)

    play = sub.add_parser("playout", help="play random games to the end and measure them")
    play.add_argument("--players", type=int, required=True, help="2 to 5")
    play.add_argument("--games", type=int, required=True, help="how many games")
    play.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    play.add_argument(
        "--fast", action="store_true", help="skip the invariant checks after every step"
    )
    play.set_defaults(func=cmd_playout)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except Refused as error:
        print(error, file=sys.stderr)
        return EXIT_REFUSED
    except BrokenPipeError:  # e.g. `pamir engine legal s.json | head`
        return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
