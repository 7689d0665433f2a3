"""`pamir serve`, `pamir scheduler` and `pamir pause`: the service's long-running parts;
`pamir games`: the service's games, and those that need their host (`--pending`: the
lobby's games, docs/lobby.md); `pamir prune`: the retention of what the service keeps."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from adjudicator.cli.refusal import EXIT_REFUSED, Refused
from adjudicator.games import needs_host
from adjudicator.games.deadlines import DeadlineError, PauseRefused, local_text, zone
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.registry import game_lock, survey
from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import backend, logs
from adjudicator.home.database import DatabaseError
from adjudicator.home.settings import Settings, SettingsError, load_settings
from adjudicator.mail.lobby import records
from adjudicator.mail.outcomes import push_to_forge
from adjudicator.schedule.clock import record_pause
from adjudicator.schedule.jobs import run_once, utc_now
from adjudicator.schedule.leader import SchedulerRunning, run_forever
from adjudicator.schedule.retention import prune
from adjudicator.web.serve import serve


def cmd_serve(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()  # refuse bad settings before anything starts
    except SettingsError as error:
        print(f"pamir serve: {error}", file=sys.stderr)
        raise SystemExit(EXIT_REFUSED) from None
    logs.configure(settings.log_level, settings.log_format)
    try:
        serve(args.host, args.port, scheduler=not args.no_scheduler, dev=args.dev)
    except DatabaseError as error:
        print(f"pamir serve: {error}", file=sys.stderr)
        raise SystemExit(EXIT_REFUSED) from None


def cmd_scheduler(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
    except SettingsError as error:
        raise Refused(str(error)) from None
    logs.configure(settings.log_level, settings.log_format)
    if args.once:
        done = run_once(settings)
        for game_id, results in done.adjudicated.items():
            for result in results:
                print(f"{game_id}: pushed move {result.number} adjudicated ({result.commit[:10]})")
        for game_id, results in done.timed_out.items():
            for result in results:
                print(f"{game_id}: move {result.number} played by default ({result.commit[:10]})")
        for game_id, players in done.reminded.items():
            print(f"{game_id}: reminded {', '.join(players)}")
        for game_id in done.made:
            print(f"{game_id}: made by the lobby, its players accepted (docs/lobby.md)")
        return
    serving = backend.of(settings)
    try:
        serving.start()
    except DatabaseError as error:
        raise Refused(str(error)) from None
    try:
        run_forever(settings)
    except SchedulerRunning as error:
        raise Refused(str(error)) from None
    finally:
        serving.stop()


def cmd_pause(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
        repo = GameRepo(Path(args.game_dir))
        game_id = snapshot(repo).game.id
        try:
            with game_lock(settings, game_id):
                push_to_forge(settings, repo, None)  # a forge-hosted game: its newest first
                _, pause, after = record_pause(
                    repo, args.player, args.hours, args.reason, utc_now()
                )
                push_to_forge(settings, repo, None)  # and the pause on the forge at once
            tz = zone(snapshot(repo).game.deadlines.timezone)
        finally:
            repo.repo.close()
    except (
        SettingsError,
        RepoError,
        GameError,
        GameFileError,
        DeadlineError,
        PauseRefused,
    ) as error:
        raise Refused(str(error)) from None
    print(
        f"{game_id}: clock paused for {pause.hours} hours from {local_text(pause.start, tz)} "
        f"({pause.player}); the deadline is now {local_text(after.deadline, tz)}"
    )


def cmd_games(args: argparse.Namespace) -> None:
    """One line per game in PAMIR_HOME/games: `ok`, or that it needs its host and why."""
    try:
        settings = load_settings()
    except SettingsError as error:
        raise Refused(str(error)) from None
    if args.pending:
        return _pending(settings)
    games = survey(settings)
    width = max((len(entry.id) for entry in games), default=0)
    for entry in games:
        entry.repo.repo.close()
        if entry.problem is None:
            print(f"{entry.id:<{width}}  ok")
            continue
        mark = needs_host.marked(settings.home, entry.id)
        since = f" (since {mark.first_seen})" if mark else ""
        print(f"{entry.id:<{width}}  needs the host: {entry.problem}{since}")


def cmd_prune(args: argparse.Namespace) -> None:
    """Prune now what the scheduler's daily job would, and say what was removed."""
    try:
        settings = load_settings()
        backend.of(settings).check()  # PostgreSQL mode: the schema this code needs
        done = prune(settings)
    except (SettingsError, DatabaseError) as error:
        raise Refused(str(error)) from None
    print(f"pruned {done.describe()}")


def _pending(settings: Settings) -> None:
    """`pamir games --pending`: the lobby's games, each with who has which seat since when."""
    for pending in records.every(settings):
        creator = pending.creator.address
        print(f"{pending.name}  {pending.status}  created {pending.created} by {creator}")
        for seat in pending.seats:
            since = "" if seat.status == "creator" else f" {seat.since}"
            print(f"  {seat.name or '?':<8} {seat.address:<24} {seat.status}{since}")
