"""The `pamir` command line (docs/cli.md).

Game repositories:
    pamir new GAME_DIR --player NAME:EMAIL ... [--signing-key NAME=PUBKEY_FILE ...]
              [--no-require-signatures] [--seed-file F] [--bare]
    pamir move GAME_DIR --as PLAYER FILE [--expect N]
    pamir legal GAME_DIR [--as PLAYER]
    pamir log GAME_DIR
    pamir verify GAME_DIR [--signers]
    pamir rollback GAME_DIR --to N --reason TEXT
    pamir hook install GAME_BARE_REPO
The service:
    pamir serve --host HOST --port PORT     web pages, webhooks, inbound email, scheduler
    pamir scheduler                         deadlines, reminders, polling, mail retries
    pamir pause GAME_DIR --as P --hours H --reason T
    pamir deadlines GAME_DIR [--timezone TZ] [--turn-hours H] ...   the host's changes
    pamir email GAME_DIR --as P ADDRESS
    pamir signing-key GAME_DIR PLAYER PUBKEY_FILE | --remove
    pamir require-signatures GAME_DIR on|off
    pamir allowed-signers GAME_DIR          the game's keys, for git verify-commit
    pamir games                             every game, and those that need their host
Play by email:
    pamir inbound-email < MESSAGE          a move by email (for the mail server's pipe)
    pamir outbox [--send]                   messages waiting, sent; send now
The engine on state files:
    pamir engine new --players alice,bob,carol [--seed N] [--wakhan]  full state JSON
    pamir engine legal STATE                                  one `PLAYER: ACTION` a line
    pamir engine apply STATE MOVES                            new state JSON, or exit 2
    pamir engine view STATE [--player NAME]                   view JSON
    pamir engine playout --players N --games G [--seed S] [--wakhan]  one JSON line
    pamir demo                                                a complete game through Git

STATE, MOVES and FILE may be `-` for standard input. Exit status: 0 success, 2 refused
input (a bad move, state or request; nothing is applied), 3 `verify` found a divergence,
1 unexpected failure.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import engine
from adjudicator.cli import demo, host, mail, service
from adjudicator.cli.refusal import EXIT_DIVERGED, EXIT_REFUSED, Refused
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.history import format_entry, history
from adjudicator.games.moves import move_limit, read_submission
from adjudicator.games.outputs import Adjudication, Refusal
from adjudicator.games.pipeline import create_game, position, submit
from adjudicator.games.repo import GameRepo, RepoError, StaleHead
from adjudicator.games.rollback import RollbackRefused, rollback
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.games.verify import verify
from adjudicator.home.paths import home_from
from adjudicator.home.settings import SettingsError, load_settings
from adjudicator.hooks import receive
from adjudicator.mail import outgoing
from engine.playout import PlayoutError, playout


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror}") from None


def _read_move(path: str) -> str:
    """A move file's text: UTF-8 (a byte order mark is dropped), at most max_move_bytes."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror}") from None
    try:
        return read_submission(data, move_limit(_home()))
    except engine.MoveError as error:
        raise Refused(f"{path}: {error}") from None


def _load_state(path: str) -> engine.State:
    try:
        return engine.loads(_read(path))
    except engine.StateError as error:
        raise Refused(f"{path}: {error}") from None


def cmd_engine_new(args: argparse.Namespace) -> None:
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    options: dict[str, object] = {}
    if args.wakhan:
        options["wakhan"] = True
    if args.wakhan_backs is not None:
        options["wakhan_backs"] = args.wakhan_backs
    try:
        state = engine.new_game(players, seed, options)
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
        state = apply_moves(state, _read_move(args.moves))
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
    if args.wakhan and not 1 <= args.players <= 2:
        raise Refused("--players must be 1 or 2 with --wakhan (the human players)")
    if not args.wakhan and not 2 <= args.players <= 5:
        raise Refused("--players must be 2 to 5")
    if args.games < 1:
        raise Refused("--games must be at least 1")
    try:
        stats = playout(
            args.players, args.games, args.seed, check=not args.fast, wakhan=args.wakhan
        )
    except PlayoutError as error:
        print(f"invariant broken: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    print(json.dumps(stats.as_dict()))


def cmd_demo(args: argparse.Namespace) -> None:
    if args.players is None:
        args.players = 2 if args.wakhan else 3
    try:
        settings = load_settings()
    except SettingsError as error:
        raise Refused(str(error)) from None
    if args.wakhan and not 1 <= args.players <= 2:
        raise Refused("--players must be 1 or 2 with --wakhan (the bots Wakhan plays)")
    if not args.wakhan and not 2 <= args.players <= 5:
        raise Refused("--players must be 2 to 5")
    if args.log_only:
        if args.wakhan:
            raise Refused("--log-only does not play Wakhan; leave one of them out")
        demo.run(players=args.players, seed=args.seed)
    else:
        demo.run_pipeline(settings, players=args.players, seed=args.seed, wakhan=args.wakhan)


def _mail(repo: GameRepo, results: list[Adjudication]) -> None:
    """Mail the players the new reports (sent by SMTP if configured, else written to the
    outbox as .eml files); a mail problem never undoes an adjudication."""
    try:
        outgoing.notify(load_settings(), repo, results)
    except Exception as error:  # the move stands; `pamir outbox --send` retries
        print(f"the reports were not mailed: {error}", file=sys.stderr)


def _home() -> Path:
    """The data folder PAMIR_HOME names, as `load_settings` finds it. The commands on
    game repositories need only the folder, so a bad setting in pamir.toml (checked by
    the service's commands) does not stop them."""
    return home_from(os.environ)


def _repo(path: str) -> GameRepo:
    try:
        return GameRepo(Path(path))
    except RepoError as error:
        raise Refused(str(error)) from None


def _player_spec(text: str) -> tuple[str, str]:
    name, sep, email = text.partition(":")
    if not sep or not name or "@" not in email:
        raise Refused(f"--player {text!r}: write NAME:EMAIL, e.g. alice:alice@example.org")
    return name, email


def _signing_keys(specs: list[str]) -> dict[str, str]:
    """The --signing-key NAME=PUBKEY_FILE options: each player's public key line."""
    keys: dict[str, str] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise Refused(f"--signing-key {spec!r}: write NAME=PUBKEY_FILE, e.g. alice=alice.pub")
        if name.lower() in (k.lower() for k in keys):
            raise Refused(f"--signing-key: two keys for {name}")
        keys[name] = _read(path)
    return keys


def cmd_new(args: argparse.Namespace) -> None:
    players = [_player_spec(p) for p in args.player]
    keys = _signing_keys(args.signing_key or [])
    secret = _read(args.seed_file).strip() if args.seed_file else None
    try:
        repo = create_game(
            Path(args.game_dir),
            players,
            home=_home(),
            secret=secret,
            bare=args.bare,
            game_id=args.id,
            turn_hours=args.turn_hours,
            wakhan=args.wakhan,
            signing_keys=keys,
            require_signatures=False if args.no_require_signatures else None,
        )
    except (ValueError, RepoError, FileExistsError, GameFileError) as error:
        raise Refused(str(error)) from None
    snap = snapshot(repo)
    assert snap.commit is not None
    _mail(repo, [Adjudication(0, snap.commit, repo.read("reports/0000.md") or "")])
    print(f"created game {snap.game.id} in {repo.path}")
    if snap.game.require_signatures:
        print("pushed moves must be signed by their player's key (docs/signing.md)")


def cmd_move(args: argparse.Namespace) -> None:
    repo = _repo(args.game_dir)
    try:
        text = _read_move(args.file)
        done = submit(repo, args.player, text, home=_home(), expected=args.expect)
    except Refusal as refusal:
        raise Refused(str(refusal)) from None
    except (GameError, StaleHead) as error:
        raise Refused(str(error)) from None
    _mail(repo, [done])
    print(f"move {done.number} adjudicated in commit {done.commit[:10]}")
    print(done.report, end="")


def cmd_game_legal(args: argparse.Namespace) -> None:
    try:
        state = position(snapshot(_repo(args.game_dir)), _home())
    except GameError as error:
        raise Refused(str(error)) from None
    for player, action in engine.legal_actions(state):
        if args.player is None or player.lower() == args.player.lower():
            print(f"{player}: {engine.format_action(action)}")


def cmd_log(args: argparse.Namespace) -> None:
    try:
        entries = history(_repo(args.game_dir))
    except GameError as error:
        raise Refused(str(error)) from None
    for entry in entries:
        print(format_entry(entry))


def cmd_verify(args: argparse.Namespace) -> None:
    try:
        result = verify(_repo(args.game_dir), _home())
    except GameError as error:
        raise Refused(str(error)) from None
    if not result.ok:
        if args.signers:
            for line in result.signers:
                print(f"{line.commit[:10]}  {line.signer:<40}  {line.summary}")
        print(f"divergence: {result.divergence}", file=sys.stderr)
        raise SystemExit(EXIT_DIVERGED)
    for refused in result.refused:  # tampering the service put back: not a divergence
        print(f"refused: {refused}")
    if args.signers:
        for line in result.signers:
            print(f"{line.commit[:10]}  {line.signer:<40}  {line.summary}")
    seed = "secret checked against its commitment" if result.revealed else "seed not revealed yet"
    print(f"ok: {result.commits} commits, moves up to {result.moves} replayed and match ({seed})")


def cmd_rollback(args: argparse.Namespace) -> None:
    try:
        commit = rollback(_repo(args.game_dir), args.to, args.reason, home=_home())
    except (RollbackRefused, GameError) as error:
        raise Refused(str(error)) from None
    print(f"rolled back to move {args.to} in commit {commit[:10]}")


def cmd_hook(args: argparse.Namespace) -> None:
    if args.hook_command == "install":
        try:
            for path in receive.install(Path(args.bare_repo), _home()):
                print(f"installed {path}")
        except (GameError, RepoError) as error:
            raise Refused(str(error)) from None
        return
    repo = GameRepo(Path("."))  # git runs hooks inside the bare repository
    if args.hook_command == "pre-receive":
        status = receive.pre_receive(repo, _home(), sys.stdin, sys.stderr)
    else:
        status = receive.post_receive(repo, _home(), sys.stderr)
    raise SystemExit(status)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pamir", description="Adjudicator for Pax Pamir: Second Edition (docs/cli.md)."
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"pamir {metadata.version('pamir')} (engine {engine.__version__})",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo_cmd = commands.add_parser(
        "demo", help="play a complete game of random legal moves through the Git pipeline"
    )
    demo_cmd.add_argument(
        "--players", type=int, help="2 to 5 (default 3); with --wakhan 1 or 2 (default 2)"
    )
    demo_cmd.add_argument("--seed", type=int, default=2026, help="random seed (default 2026)")
    demo_cmd.add_argument(
        "--log-only", action="store_true", help="print the engine's log only, no repository"
    )
    demo_cmd.add_argument(
        "--wakhan", action="store_true", help="the bots (1 or 2) play against Wakhan"
    )
    demo_cmd.set_defaults(func=cmd_demo)

    new_game = commands.add_parser("new", help="create a game repository")
    new_game.add_argument("game_dir", help="folder to create (must not exist or be empty)")
    new_game.add_argument(
        "--player", action="append", required=True, help="NAME:EMAIL, once per player (2 to 5)"
    )
    new_game.add_argument(
        "--signing-key",
        action="append",
        metavar="NAME=PUBKEY_FILE",
        help="a player's SSH public key for signed commits (once per player)",
    )
    new_game.add_argument(
        "--no-require-signatures",
        action="store_true",
        help="accept unsigned pushed moves even when every player has a key",
    )
    new_game.add_argument("--seed-file", help="file holding the secret (default: a fresh one)")
    new_game.add_argument("--bare", action="store_true", help="create a bare repository")
    new_game.add_argument("--id", help="game id (default: the folder's name)")
    new_game.add_argument("--turn-hours", type=int, default=48, help="hours per decision")
    new_game.add_argument(
        "--wakhan", action="store_true", help="Wakhan, the automated opponent, joins 1-2 players"
    )
    new_game.set_defaults(func=cmd_new)

    move = commands.add_parser("move", help="submit a move file and adjudicate it")
    move.add_argument("game_dir")
    move.add_argument("--as", dest="player", required=True, help="the submitting player")
    move.add_argument("file", help="the move file (one action a line), or -")
    move.add_argument("--expect", type=int, help="the move number this submission expects")
    move.set_defaults(func=cmd_move)

    game_legal = commands.add_parser("legal", help="the legal actions now, as PLAYER: ACTION")
    game_legal.add_argument("game_dir")
    game_legal.add_argument("--as", dest="player", help="only this player's actions")
    game_legal.set_defaults(func=cmd_game_legal)

    log = commands.add_parser("log", help="the history of moves")
    log.add_argument("game_dir")
    log.set_defaults(func=cmd_log)

    ver = commands.add_parser("verify", help="replay the game and check every commit")
    ver.add_argument("game_dir")
    ver.add_argument("--signers", action="store_true", help="list every commit with who signed it")
    ver.set_defaults(func=cmd_verify)

    back = commands.add_parser("rollback", help="return to the position after a move")
    back.add_argument("game_dir")
    back.add_argument("--to", type=int, required=True, help="the move to return to")
    back.add_argument("--reason", required=True, help="why (recorded in the game)")
    back.set_defaults(func=cmd_rollback)

    hook = commands.add_parser("hook", help="Git hooks for bare game repositories")
    hook_sub = hook.add_subparsers(dest="hook_command", required=True)
    install = hook_sub.add_parser("install", help="install the hooks into a bare repository")
    install.add_argument("bare_repo")
    hook_sub.add_parser("pre-receive", help="(run by git) check a push")
    hook_sub.add_parser("post-receive", help="(run by git) adjudicate a push")
    hook.set_defaults(func=cmd_hook)

    mail.register(commands)
    service.register(commands)
    host.register(commands)

    eng = commands.add_parser("engine", help="the rules engine on state files")
    sub = eng.add_subparsers(dest="engine_command", required=True)

    new = sub.add_parser("new", help="set up a game and print its full state JSON")
    new.add_argument("--players", required=True, help="comma-separated names, 2 to 5")
    new.add_argument("--seed", type=int, help="random seed (default: a fresh random one)")
    new.add_argument(
        "--wakhan", action="store_true", help="add Wakhan, the automated opponent (1-2 humans)"
    )
    new.add_argument(
        "--wakhan-backs",
        choices=("standard", "alternative"),
        help="pairing of the AI cards' fronts and backs (with --wakhan; default standard)",
    )
    new.set_defaults(func=cmd_engine_new)

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
    play.add_argument(
        "--players", type=int, required=True, help="2 to 5; with --wakhan, 1 or 2 humans"
    )
    play.add_argument("--games", type=int, required=True, help="how many games")
    play.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    play.add_argument(
        "--fast", action="store_true", help="skip the invariant checks after every step"
    )
    play.add_argument(
        "--wakhan", action="store_true", help="random humans against Wakhan, the automated opponent"
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
