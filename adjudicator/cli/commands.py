"""The `pamir` commands on game repositories and on state files (docs/cli.md); their
arguments are in `adjudicator.cli.parser`.

Each command imports what it needs when it runs, cheap checks first, so that a command
refused at once (no such game, no such file) answers without loading the engine.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from adjudicator.cli.refusal import EXIT_DIVERGED, Refused
from adjudicator.home.paths import HOME_VARIABLE, home_from

if TYPE_CHECKING:
    import engine
    from adjudicator.games.outputs import Adjudication
    from adjudicator.games.repo import GameRepo


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror}") from None


def _read_move(path: str, home: Path) -> str:
    """A move file's text: UTF-8 (a byte order mark is dropped), at most max_move_bytes."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except OSError as error:
        raise Refused(f"cannot read {path}: {error.strerror}") from None
    import engine  # only once there is a file to read
    from adjudicator.games.moves import move_limit, read_submission

    try:
        return read_submission(data, move_limit(home))
    except engine.MoveError as error:
        raise Refused(f"{path}: {error}") from None


def _load_state(path: str) -> engine.State:
    import engine

    try:
        return engine.loads(_read(path))
    except engine.StateError as error:
        raise Refused(f"{path}: {error}") from None


def cmd_engine_new(args: argparse.Namespace) -> None:
    import engine

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
    import engine

    state = _load_state(args.state)
    for player, action in engine.legal_actions(state):
        print(f"{player}: {engine.format_action(action)}")


def apply_moves(state: engine.State, text: str) -> engine.State:
    """Apply every line of a move file, or raise the first line's error (nothing applied)."""
    import engine

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
    import engine

    state = _load_state(args.state)
    if args.state == "-" and args.moves == "-":
        raise Refused("STATE and MOVES cannot both be standard input")
    try:
        state = apply_moves(state, _read_move(args.moves, _home()))
    except engine.MoveError as error:
        raise Refused(str(error)) from None
    sys.stdout.write(engine.dumps(state))


def cmd_view(args: argparse.Namespace) -> None:
    import engine

    state = _load_state(args.state)
    try:
        data = engine.view(state, args.player)
    except KeyError:
        raise Refused(f"no player is called {args.player!r}") from None
    print(json.dumps(data, indent=2, ensure_ascii=False))


def cmd_playout(args: argparse.Namespace) -> None:
    from engine.playout import PlayoutError, playout

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
    from adjudicator.cli import demo
    from adjudicator.home.settings import SettingsError, load_settings

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


def _mail(repo: GameRepo, results: list[Adjudication], home: Path) -> None:
    """Mail the players the new reports (sent by SMTP if configured, else written to the
    outbox as .eml files); a mail problem never undoes an adjudication."""
    from adjudicator.home.settings import load_settings
    from adjudicator.mail import report_mails

    try:
        report_mails.notify(load_settings({"home": home}), repo, results)
    except Exception as error:  # the move stands; `pamir outbox --send` retries
        print(f"the reports were not mailed: {error}", file=sys.stderr)


def _home(game_dir: str | None = None) -> Path:
    """The service's data folder for a command on the game at `game_dir`: PAMIR_HOME when
    it is set; else, for a game in a `games` folder whose parent holds `secrets/` (a
    service's home, as `pamir new` lays it out), that parent, whatever the current folder;
    else the current folder. The commands on game repositories need only the folder, so a
    bad setting in pamir.toml (checked by the service's commands) does not stop them."""
    if os.environ.get(HOME_VARIABLE) or game_dir is None:
        return home_from(os.environ)
    folder = Path(game_dir).resolve()
    if folder.parent.name == "games" and (folder.parent.parent / "secrets").is_dir():
        return folder.parent.parent
    return home_from(os.environ)


def _repo(path: str) -> GameRepo:
    if not os.path.exists(path):  # refused before Git's library is loaded (a tenth of a second)
        raise Refused(f"{path} is not a Git repository")
    from adjudicator.games.repo import GameRepo, RepoError

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


def _languages(specs: list[str], players: list[tuple[str, str]]) -> dict[str, str]:
    """The --language NAME=LANG options: each named player's language."""
    from adjudicator.home.translations import LANGUAGES

    names = {name.lower(): name for name, _ in players}
    found: dict[str, str] = {}
    for spec in specs:
        name, sep, code = spec.partition("=")
        if not sep or not name or not code:
            raise Refused(f"--language {spec!r}: write NAME=LANG, e.g. alice=pl")
        if name.lower() not in names:
            raise Refused(f"--language {spec!r}: no --player is called {name!r}")
        if code not in LANGUAGES:
            raise Refused(f"--language {spec!r}: the languages are {', '.join(LANGUAGES)}")
        if names[name.lower()] in found:
            raise Refused(f"--language: two languages for {name}")
        found[names[name.lower()]] = code
    return found


def cmd_new(args: argparse.Namespace) -> None:
    from adjudicator.games.gamefile import GameFileError
    from adjudicator.games.newgame import create_game
    from adjudicator.games.outputs import Adjudication
    from adjudicator.games.repo import RepoError
    from adjudicator.games.snapshot import snapshot

    players = [_player_spec(p) for p in args.player]
    keys = _signing_keys(args.signing_key or [])
    languages = _languages(args.language or [], players)
    secret = _read(args.seed_file).strip() if args.seed_file else None
    home = _home(args.game_dir)
    _refuse_in_database_mode(home)
    try:
        repo = create_game(
            Path(args.game_dir),
            players,
            home=home,
            secret=secret,
            bare=args.bare,
            game_id=args.id,
            turn_hours=args.turn_hours,
            wakhan=args.wakhan,
            signing_keys=keys,
            require_signatures=False if args.no_require_signatures else None,
            languages=languages,
            language=args.game_language,
        )
    except (ValueError, RepoError, FileExistsError, GameFileError) as error:
        raise Refused(str(error)) from None
    snap = snapshot(repo)
    assert snap.commit is not None
    _mail(repo, [Adjudication(0, snap.commit, repo.read("reports/0000.md") or "")], home)
    print(f"created game {snap.game.id} in {repo.path}")
    if snap.game.require_signatures:
        print("pushed moves must be signed by their player's key (docs/signing.md)")


def _refuse_in_database_mode(home: Path) -> None:
    """In PostgreSQL mode a game must live on a forge, where every node reaches it: a game
    made on one node's disk would be that node's alone (docs/cluster.md)."""
    from adjudicator.home.settings import SettingsError
    from adjudicator.home.store import DatabaseStore, store_for

    try:
        clustered = isinstance(store_for(home), DatabaseStore)
    except SettingsError as error:
        raise Refused(str(error)) from None
    if clustered:
        raise Refused(
            "in PostgreSQL mode (PAMIR_DATABASE_URL) games live on a forge, where every node "
            "reaches them: create the game with adjudicator.forge.newgames.create_remote_game, "
            "or adopt one (docs/cluster.md)"
        )


def cmd_move(args: argparse.Namespace) -> None:
    repo = _repo(args.game_dir)
    home = _home(args.game_dir)
    text = _read_move(args.file, home)
    from adjudicator.games.outputs import Refusal, and_followers
    from adjudicator.games.pipeline import submit
    from adjudicator.games.repo import StaleHead
    from adjudicator.games.snapshot import GameError

    if args.dry_run:
        return _dry_run(repo, home, args.player, text, args.expect)
    try:
        done = submit(repo, args.player, text, home=home, expected=args.expect)
    except Refusal as refusal:
        raise Refused(str(refusal)) from None
    except (GameError, StaleHead) as error:
        raise Refused(str(error)) from None
    _mail(repo, and_followers([done]), home)  # and the stand-in's moves for resigned seats
    print(f"move {done.number} adjudicated in commit {done.commit[:10]}")
    print(done.report, end="")


def _dry_run(repo: GameRepo, home: Path, player: str, text: str, expected: int | None) -> None:
    """`pamir move --dry-run`: the move's outcome and the position after, printed; nothing
    is committed, written or mailed. No lock is taken, as `pamir move` takes none: the
    preview reads one commit's objects, which no other process changes."""
    from adjudicator.games.preview import Refused as Refusing
    from adjudicator.games.preview import preview, preview_text
    from adjudicator.games.repo import StaleHead
    from adjudicator.games.snapshot import GameError
    from adjudicator.home.translations import Words

    try:
        found = preview(repo, home, player, text, expected=expected)
    except (GameError, StaleHead) as error:
        raise Refused(str(error)) from None
    if isinstance(found, Refusing):
        raise Refused(str(found.refusal))
    print(preview_text(found, Words()), end="")


def cmd_game_legal(args: argparse.Namespace) -> None:
    import engine
    from adjudicator.games.pipeline import position
    from adjudicator.games.snapshot import GameError, snapshot

    try:
        state = position(snapshot(_repo(args.game_dir)), _home(args.game_dir))
    except GameError as error:
        raise Refused(str(error)) from None
    legal = engine.legal_actions(state)
    shown = [(p, a) for p, a in legal if args.player is None or p.lower() == args.player.lower()]
    for player, action in shown:
        print(f"{player}: {engine.format_action(action)}")
    if args.player is not None and not shown:  # say why there is nothing, and who decides
        names = [state.name(seat) for seat in range(len(state.players))]
        if args.player.lower() not in (name.lower() for name in names):
            raise Refused(f"no player is called {args.player!r} in this game")
        awaited = sorted({player for player, _ in legal})
        if state.phase == "over":
            print("the game is over: nobody has anything to decide")
        else:
            print(f"{args.player} has nothing to decide now; waiting for {', '.join(awaited)}")


def cmd_log(args: argparse.Namespace) -> None:
    from adjudicator.games.history import format_entry, history
    from adjudicator.games.snapshot import GameError

    try:
        entries = history(_repo(args.game_dir))
    except GameError as error:
        raise Refused(str(error)) from None
    for entry in entries:
        print(format_entry(entry))


def cmd_verify(args: argparse.Namespace) -> None:
    from adjudicator.games.snapshot import GameError
    from adjudicator.games.verify import verify

    try:
        result = verify(_repo(args.game_dir), _home(args.game_dir))
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
    from adjudicator.games.rollback import RollbackRefused, rollback
    from adjudicator.games.snapshot import GameError

    try:
        commit = rollback(_repo(args.game_dir), args.to, args.reason, home=_home(args.game_dir))
    except (RollbackRefused, GameError) as error:
        raise Refused(str(error)) from None
    print(f"rolled back to move {args.to} in commit {commit[:10]}")


def cmd_hook(args: argparse.Namespace) -> None:
    from adjudicator.games.repo import GameRepo, RepoError
    from adjudicator.games.snapshot import GameError
    from adjudicator.hooks import receive

    if args.hook_command == "install":
        try:
            for path in receive.install(Path(args.bare_repo), _home(args.bare_repo)):
                print(f"installed {path}")
        except (GameError, RepoError) as error:
            raise Refused(str(error)) from None
        return
    repo = GameRepo(Path("."))  # git runs hooks inside the bare repository
    if args.hook_command == "pre-receive":
        status = receive.pre_receive(repo, _home("."), sys.stdin, sys.stderr)
    else:
        status = receive.post_receive(repo, _home("."), sys.stderr)
    raise SystemExit(status)
