"""The `pamir` command line's arguments, and `main`, which runs one command (docs/cli.md).

Game repositories:
    pamir new GAME_DIR --player NAME:EMAIL ... [--signing-key NAME=PUBKEY_FILE ...]
              [--language NAME=LANG ...] [--game-language LANG]
              [--no-require-signatures] [--seed-file F] [--bare]
    pamir move GAME_DIR --as PLAYER FILE [--expect N] [--dry-run]
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
    pamir plays-by GAME_DIR PLAYER email|git|both   what each player's messages explain
    pamir notify GAME_DIR PLAYER [per-turn|every|turns|digest] [--timezone TZ]   how much mail
    pamir signing-key GAME_DIR PLAYER PUBKEY_FILE | --remove
    pamir require-signatures GAME_DIR on|off
    pamir allowed-signers GAME_DIR          the game's keys, for git verify-commit
    pamir games                             every game, and those that need their host
    pamir prune                             the mail and deliveries older than retention_days
    pamir db upgrade                        create or migrate the PostgreSQL schema
    pamir db rekey                          seal the database's secrets under a new key
    pamir db import-home PATH               a PAMIR_HOME's files into the database
    pamir nodes                             nodes, scheduler leader, outbox (PostgreSQL)
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

Only the standard library is imported here: each command names its handler as
`module:function` in `adjudicator.cli`, imported when that command runs. `pamir --help`,
and a command that refuses its arguments, so start without loading the engine, Git or the
web service (a third of a second before), and the Git hooks that run `python -m
adjudicator.cli` load only what a push needs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from adjudicator.cli.refusal import EXIT_REFUSED, Refused
from adjudicator.home import logs

if TYPE_CHECKING:  # argparse's class is generic only to type checkers
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]
Handler = Callable[[argparse.Namespace], None]

# `pamir serve`'s defaults, as adjudicator.web.serve has them (a test keeps them equal).
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class handler:
    """The command `module:function` of adjudicator.cli, imported when it is called."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __call__(self, args: argparse.Namespace) -> None:
        module, _, name = self.target.partition(":")
        function: Handler = getattr(importlib.import_module(f"adjudicator.cli.{module}"), name)
        function(args)


class _Version(argparse.Action):
    """`--version`: the package's and the engine's versions, read only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the versions and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from adjudicator.version import __version__  # read only when asked for

        version, build = engine_version()
        print(f"pamir {__version__} (engine {version}, {build})")
        parser.exit()


def engine_version() -> tuple[str, str]:
    """`engine.__version__`, read from engine/version.py without importing the engine,
    whose package loads the card data and the rules; and whether its rules are compiled
    with mypyc (a wheel's, setup.py) or pure Python (an editable install's)."""
    import os  # (with importlib: what `pamir --version` needs, and nothing more)
    from importlib.machinery import EXTENSION_SUFFIXES
    from importlib.util import find_spec, module_from_spec, spec_from_file_location

    package = find_spec("engine")  # finds the package; does not run its __init__
    assert package is not None and package.origin is not None
    folder = os.path.dirname(package.origin)
    where = spec_from_file_location("engine.version", os.path.join(folder, "version.py"))
    assert where is not None and where.loader is not None
    module = module_from_spec(where)
    where.loader.exec_module(module)
    compiled = any(os.path.exists(os.path.join(folder, "game" + s)) for s in EXTENSION_SUFFIXES)
    return str(module.__version__), "compiled" if compiled else "pure Python"


def register_games(commands: Subcommands) -> None:
    """Game repositories: new, move, legal, log, verify, rollback, hook; and the demo."""
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
    demo_cmd.set_defaults(func=handler("commands:cmd_demo"))

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
        "--language",
        action="append",
        metavar="NAME=LANG",
        help="the language a player reads, en or pl (once per player; default en)",
    )
    new_game.add_argument(
        "--game-language",
        default="en",
        metavar="LANG",
        help="the language of the reports in the repository: en or pl (default en)",
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
    new_game.set_defaults(func=handler("commands:cmd_new"))

    move = commands.add_parser("move", help="submit a move file and adjudicate it")
    move.add_argument("game_dir")
    move.add_argument("--as", dest="player", required=True, help="the submitting player")
    move.add_argument("file", help="the move file (one action a line), or -")
    move.add_argument("--expect", type=int, help="the move number this submission expects")
    move.add_argument(
        "--dry-run",
        action="store_true",
        help="print what the move would do and the position after; commit nothing "
        "(exit 2 when it would be refused)",
    )
    move.set_defaults(func=handler("commands:cmd_move"))

    game_legal = commands.add_parser("legal", help="the legal actions now, as PLAYER: ACTION")
    game_legal.add_argument("game_dir")
    game_legal.add_argument("--as", dest="player", help="only this player's actions")
    game_legal.set_defaults(func=handler("commands:cmd_game_legal"))

    log = commands.add_parser("log", help="the history of moves")
    log.add_argument("game_dir")
    log.set_defaults(func=handler("commands:cmd_log"))

    ver = commands.add_parser("verify", help="replay the game and check every commit")
    ver.add_argument("game_dir")
    ver.add_argument("--signers", action="store_true", help="list every commit with who signed it")
    ver.set_defaults(func=handler("commands:cmd_verify"))

    back = commands.add_parser("rollback", help="return to the position after a move")
    back.add_argument("game_dir")
    back.add_argument("--to", type=int, required=True, help="the move to return to")
    back.add_argument("--reason", required=True, help="why (recorded in the game)")
    back.set_defaults(func=handler("commands:cmd_rollback"))

    hook = commands.add_parser("hook", help="Git hooks for bare game repositories")
    hook_sub = hook.add_subparsers(dest="hook_command", required=True)
    install = hook_sub.add_parser("install", help="install the hooks into a bare repository")
    install.add_argument("bare_repo")
    hook_sub.add_parser("pre-receive", help="(run by git) check a push")
    hook_sub.add_parser("post-receive", help="(run by git) adjudicate a push")
    hook.set_defaults(func=handler("commands:cmd_hook"))


def register_mail(commands: Subcommands) -> None:
    """`pamir outbox [--send]` and `pamir inbound-email`."""
    outbox = commands.add_parser(
        "outbox",
        help="show the mail outbox (pending, sent, written, failed); --send delivers now",
    )
    outbox.add_argument(
        "--send", action="store_true", help="deliver the pending messages now (retries too)"
    )
    outbox.set_defaults(func=handler("mail:cmd_outbox"))

    inbound = commands.add_parser(
        "inbound-email",
        help="handle one inbound email on standard input (for an MTA pipe)",
        description="Read one RFC 5322 message on standard input and play the move in it. "
        "Exit status: 0 handled (accepted, or refused with a reply), 2 ignored as invalid "
        "(the reason on standard error), 75 a temporary failure (the MTA retries later).",
    )
    inbound.set_defaults(func=handler("mail:cmd_inbound_email"))


def register_service(commands: Subcommands) -> None:
    """`pamir serve`, `pamir scheduler`, `pamir pause`, `pamir games`, and in PostgreSQL
    mode `pamir db upgrade` and `pamir nodes`."""
    serve_cmd = commands.add_parser(
        "serve", help="run the web service (pages, webhooks, inbound email) and the scheduler"
    )
    serve_cmd.add_argument("--host", default=DEFAULT_HOST, help=f"default {DEFAULT_HOST}")
    serve_cmd.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}; 0: any free"
    )
    serve_cmd.add_argument(
        "--no-scheduler", action="store_true", help="do not run the scheduler in this process"
    )
    serve_cmd.add_argument(
        "--dev",
        action="store_true",
        help="Werkzeug's development server instead of waitress (never for players)",
    )
    serve_cmd.set_defaults(func=handler("service:cmd_serve"))

    run = commands.add_parser(
        "scheduler", help="run deadlines, reminders, polls and mail retries (docs/scheduler.md)"
    )
    run.add_argument(
        "--once", action="store_true", help="do what is due now, once, and exit (for cron)"
    )
    run.set_defaults(func=handler("service:cmd_scheduler"))

    pause = commands.add_parser("pause", help="pause a game's clock (holidays), as a commit")
    pause.add_argument("game_dir")
    pause.add_argument("--as", dest="player", required=True, help="the player who pauses")
    pause.add_argument("--hours", type=int, required=True, help="how long (whole hours)")
    pause.add_argument("--reason", required=True, help="why (recorded in the game)")
    pause.set_defaults(func=handler("service:cmd_pause"))

    games = commands.add_parser(
        "games", help="list the service's games, and those that need their host"
    )
    games.add_argument(
        "--pending",
        action="store_true",
        help="the lobby's games: who created, who was invited, who accepted when (lobby.md)",
    )
    games.set_defaults(func=handler("service:cmd_games"))

    pruned = commands.add_parser(
        "prune",
        help="empty the mail sent and forget the deliveries older than retention_days",
    )
    pruned.set_defaults(func=handler("service:cmd_prune"))

    db = commands.add_parser("db", help="the PostgreSQL database of several nodes (cluster.md)")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("upgrade", help="create or migrate the schema (PAMIR_DATABASE_URL)")
    db_sub.add_parser(
        "rekey",
        help="encrypt the database's secrets again under PAMIR_NEW_SECRET_KEY (cluster.md)",
    )
    imported = db_sub.add_parser(
        "import-home",
        help="copy the records of a PAMIR_HOME kept as files into the database (cluster.md)",
    )
    imported.add_argument("home", metavar="PATH", help="the PAMIR_HOME to copy from")
    db.set_defaults(func=handler("cluster:cmd_db"))

    nodes = commands.add_parser(
        "nodes", help="the nodes, the scheduler's leader and the outbox (PostgreSQL mode)"
    )
    nodes.set_defaults(func=handler("cluster:cmd_nodes"))


def register_host(commands: Subcommands) -> None:
    """The host's changes to a game: `pamir deadlines`, `pamir email`, `pamir signing-key`,
    `pamir require-signatures`; and `pamir allowed-signers`."""
    deadlines = commands.add_parser(
        "deadlines", help="change a game's deadlines (a commit; restarts the pending clock)"
    )
    deadlines.add_argument("game_dir")
    deadlines.add_argument("--timezone", help="IANA time zone, e.g. Europe/Warsaw")
    deadlines.add_argument("--turn-hours", type=int, help="hours per decision (at least 1)")
    deadlines.add_argument(
        "--reminder-hours", type=int, help="hours before the deadline to remind (0: none)"
    )
    deadlines.add_argument(
        "--on-timeout",
        choices=("default", "standin"),
        help="at a deadline: each decision's default, or the stand-in plays the seat",
    )
    deadlines.set_defaults(func=handler("host:cmd_deadlines"))

    email = commands.add_parser("email", help="change a player's address (a commit)")
    email.add_argument("game_dir")
    email.add_argument("--as", dest="player", required=True, help="the player")
    email.add_argument("address", help="the new address")
    email.set_defaults(func=handler("host:cmd_email"))

    revoke = commands.add_parser(
        "revoke", help="replace a player's reply address and page link (the old ones stop)"
    )
    revoke.add_argument("game_dir")
    revoke.add_argument("--as", dest="player", required=True, help="the player")
    revoke.set_defaults(func=handler("host:cmd_revoke"))

    plays_by = commands.add_parser(
        "plays-by", help="how a player sends moves: email, git or both (a commit)"
    )
    plays_by.add_argument("game_dir")
    plays_by.add_argument("player", help="the player")
    plays_by.add_argument("way", choices=("email", "git", "both"))
    plays_by.set_defaults(func=handler("host:cmd_plays_by"))

    notify = commands.add_parser(
        "notify",
        help="how much mail a player gets: per-turn, every, turns or digest (no commit)",
    )
    notify.add_argument("game_dir")
    notify.add_argument("player", help="the player")
    notify.add_argument(
        "choice",
        nargs="?",
        choices=("per-turn", "every", "turns", "digest"),
        help="one mail a turn (the default); every report at once; or a daily digest of "
        "those the player need not act on",
    )
    notify.add_argument(
        "--timezone", help="the IANA time zone of the player's digest (default: the game's)"
    )
    notify.set_defaults(func=handler("host:cmd_notify"))

    key = commands.add_parser(
        "signing-key", help="set or replace a player's SSH signing key (a commit)"
    )
    key.add_argument("game_dir")
    key.add_argument("player", help="the player")
    key.add_argument(
        "key_file", nargs="?", help="the player's public key file, e.g. id_ed25519.pub"
    )
    key.add_argument("--remove", action="store_true", help="remove the player's key instead")
    key.set_defaults(func=handler("host:cmd_signing_key"))

    required = commands.add_parser(
        "require-signatures", help="whether pushed moves must be signed (a commit)"
    )
    required.add_argument("game_dir")
    required.add_argument("setting", choices=("on", "off"))
    required.set_defaults(func=handler("host:cmd_require_signatures"))

    signers = commands.add_parser(
        "allowed-signers", help="print the game's keys as a Git allowed-signers file"
    )
    signers.add_argument("game_dir")
    signers.set_defaults(func=handler("host:cmd_allowed_signers"))


def register_engine(commands: Subcommands) -> None:
    """`pamir engine ...`: the rules engine on state files."""
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
    new.set_defaults(func=handler("commands:cmd_engine_new"))

    legal = sub.add_parser("legal", help="list the legal actions as PLAYER: ACTION")
    legal.add_argument("state", help="state JSON file, or - for standard input")
    legal.set_defaults(func=handler("commands:cmd_legal"))

    app = sub.add_parser("apply", help="apply a move file and print the new state JSON")
    app.add_argument("state", help="state JSON file, or -")
    app.add_argument("moves", help="move file (one action a line), or -")
    app.set_defaults(func=handler("commands:cmd_apply"))

    view = sub.add_parser("view", help="print what a player (or the public) may see")
    view.add_argument("state", help="state JSON file, or -")
    view.add_argument("--player", help="the viewing player (default: the public view)")
    view.set_defaults(func=handler("commands:cmd_view"))

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
    play.set_defaults(func=handler("commands:cmd_playout"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pamir", description="Adjudicator for Pax Pamir: Second Edition (docs/cli.md)."
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True)
    register_games(commands)
    register_mail(commands)
    register_service(commands)
    register_host(commands)
    register_engine(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Every command logs the same way (docs/operations.md#logging); the service's commands
    # set it up again from their settings once they have read them.
    logs.configure(*logs.from_environment())
    try:
        args.func(args)
    except Refused as error:
        print(error, file=sys.stderr)
        return EXIT_REFUSED
    except BrokenPipeError:  # e.g. `pamir engine legal s.json | head`
        return 0
    return 0
