"""`pamir deadlines`, `pamir email`, `pamir signing-key` and `pamir require-signatures`:
the host changes a game's deadlines, a player's address or signing key, or whether moves
must be signed, with a commit made as the adjudicator (docs/cli.md). `pamir
allowed-signers` prints the game's keys for `git verify-commit` (docs/signing.md).
`pamir notify` sets how much mail a player gets, in PAMIR_HOME (no commit). `pamir
revoke` replaces a player's reply address and page link, as a new address does too
(mail/renewal.py; no commit)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from adjudicator.cli.refusal import Refused
from adjudicator.games.deadlines import DeadlineError
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.host import (
    HostRefused,
    change_deadlines,
    change_email,
    change_plays_by,
    change_require_signatures,
    change_signing_key,
)
from adjudicator.games.registry import game_lock
from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.signatures import allowed_signers
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home.settings import Settings, SettingsError, load_settings
from adjudicator.mail import outbox
from adjudicator.mail.preferences import (
    check_timezone,
    notify_preference,
    player_timezone,
    set_notify_preference,
    set_player_timezone,
)
from adjudicator.mail.renewal import renew

REFUSALS = (SettingsError, RepoError, GameError, GameFileError, DeadlineError, HostRefused)


def _open(game_dir: str) -> tuple[GameRepo, str]:
    repo = GameRepo(Path(game_dir))
    return repo, snapshot(repo).game.id


def cmd_deadlines(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            commit, table = change_deadlines(
                repo,
                timezone=args.timezone,
                turn_hours=args.turn_hours,
                reminder_hours=args.reminder_hours,
                on_timeout=args.on_timeout,
            )
    except REFUSALS as error:
        raise Refused(str(error)) from None
    print(
        f"{game_id}: deadlines now timezone {table.timezone}, {table.turn_hours} hours a "
        f"decision, reminders {table.reminder_hours} hours before, at a timeout "
        f"{table.on_timeout} ({commit[:10]}); the pending decision's clock restarts"
    )


def cmd_email(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            commit = change_email(repo, args.player, args.address)
            # Whoever held the old address may hold the old links: they stop working.
            renew(settings, repo, args.player)
    except REFUSALS as error:
        raise Refused(str(error)) from None
    _deliver(settings)
    print(
        f"{game_id}: {args.player} is now mailed at {args.address} ({commit[:10]}); their "
        "reply address and page link are new, and sent there"
    )


def cmd_revoke(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            entry = snapshot(repo).game.player(args.player)
            generation = renew(settings, repo, entry.name)
    except KeyError:
        raise Refused(f"no player is called {args.player!r}") from None
    except REFUSALS as error:
        raise Refused(str(error)) from None
    _deliver(settings)
    sent = "" if entry.resigned else f", and the new ones are sent to {entry.email}"
    print(
        f"{game_id}: {entry.name}'s reply address and page link are replaced (generation "
        f"{generation}): the old ones are refused{sent}"
    )


def _deliver(settings: Settings) -> None:
    """Send what was queued; the outbox keeps it if the mail server cannot take it now."""
    try:
        outbox.deliver(settings)
    except Exception as error:  # `pamir outbox --send` retries
        print(f"the message was not sent yet: {error}", file=sys.stderr)


def _key_file(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise Refused(f"cannot read the public key {path}: {error}") from None


def cmd_plays_by(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            commit = change_plays_by(repo, args.player, args.way)
    except REFUSALS as error:
        raise Refused(str(error)) from None
    print(f"{game_id}: {args.player} plays by {args.way} ({commit[:10]})")


def cmd_notify(args: argparse.Namespace) -> None:
    """Set (or, with neither a choice nor --timezone, show) a player's delivery choice and
    the time zone of their daily digest: the same settings as `settings notify` and
    `settings timezone` by mail."""
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            snap = snapshot(repo)
            name = snap.game.player(args.player).name
            if args.timezone is not None:
                check_timezone(args.timezone)  # before anything changes
            if args.choice is not None:
                set_notify_preference(settings, game_id, name, args.choice)
            if args.timezone is not None:
                set_player_timezone(settings, game_id, name, args.timezone)
    except KeyError:
        raise Refused(f"{args.player} is not a player of {args.game_dir}") from None
    except (*REFUSALS, ValueError) as error:
        raise Refused(str(error)) from None
    zone = player_timezone(settings, game_id, name)
    clock = zone or f"{snap.game.deadlines.timezone} (the game's)"
    print(
        f"{game_id}: {name} gets notify {notify_preference(settings, game_id, name)}; "
        f"digest at {settings.digest_hour:02d}:00 {clock}"
    )


def cmd_signing_key(args: argparse.Namespace) -> None:
    if (args.key_file is None) == (not args.remove):
        raise Refused("give the player's public key file, or --remove (not both)")
    key = None if args.remove else _key_file(args.key_file)
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            commit = change_signing_key(repo, args.player, key)
    except REFUSALS as error:
        raise Refused(str(error)) from None
    said = "has no signing key now" if key is None else "signs with the new key"
    print(f"{game_id}: {args.player} {said} ({commit[:10]})")


def cmd_require_signatures(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            commit = change_require_signatures(repo, args.setting == "on")
    except REFUSALS as error:
        raise Refused(str(error)) from None
    print(f"{game_id}: signed moves required: {args.setting} ({commit[:10]})")


def cmd_allowed_signers(args: argparse.Namespace) -> None:
    try:
        repo, _ = _open(args.game_dir)
        print(allowed_signers(snapshot(repo).game), end="")
    except REFUSALS as error:
        raise Refused(str(error)) from None
