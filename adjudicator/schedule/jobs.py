"""What the scheduler's jobs do (docs/scheduler.md), with no scheduler around them: a game's
deadline and reminder, the moves pushed to a game, the polls of forge-hosted games, the
outbox and the daily digests; and `run_once`, every job once (for cron).

Every function looks at the game's repository again, under the game's lock
(`service.game_lock`), so work made stale by a move adjudicated elsewhere finds nothing
to do. The mails they queue are delivered with no game locked.

One game never stops the others: a game that cannot be read is marked as needing its host
(`adjudicator.games.needs_host`, and one mail to the operator) and gets no jobs until it
reads again, while every other game's jobs, the polls and the outbox go on.
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from adjudicator.forge import remote
from adjudicator.games import needs_host
from adjudicator.games.deadlines import DeadlineError
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import adjudicate_pending
from adjudicator.games.refs import tip_of
from adjudicator.games.registry import (
    Listed,
    game_ids,
    game_lock,
    game_path,
    mark_needs_host,
    open_game,
    survey,
    survey_of,
)
from adjudicator.games.repo import REF, GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import metrics
from adjudicator.home.settings import Settings
from adjudicator.mail import digests, ledger, outbox
from adjudicator.mail.lobby.starting import run_pending
from adjudicator.mail.operator import alert_operator
from adjudicator.schedule.clock import Waiting, apply_timeouts, waiting
from adjudicator.schedule.reminders import send_reminders
from adjudicator.schedule.stalls import stalled
from adjudicator.schedule.turnmail import mail_clock

log = logging.getLogger(__name__)

GAME_ERRORS = (GameError, GameFileError, RepoError, DeadlineError, ValueError, OSError)


def utc_now() -> datetime:
    return datetime.now(UTC)


def schedulable(settings: Settings, game_id: str) -> Waiting | None:
    """The decision the game waits for, or None: when it is over, gone, or cannot be
    scheduled, in which case it is marked as needing its host with the reason (logged
    the first time; `log_needing_host` says it again on every tick)."""
    try:
        repo = open_game(settings, game_id)
    except GAME_ERRORS:
        return None  # gone meanwhile: its jobs go
    try:
        try:
            snap = snapshot(repo)
            pending = waiting(repo, snap.commit)
            problem = stalled(repo, snap, pending)
        except GAME_ERRORS as error:  # a game.toml or deadlines.toml no deadline comes from
            pending, problem = None, str(error)
        if problem is not None:
            mark_needs_host(settings, game_id, repo, problem)
            return None
        return pending
    finally:
        repo.repo.close()


def log_needing_host(settings: Settings) -> None:
    """Say on every tick which games the scheduler cannot schedule, and why: a stall is
    never silent, however long it lasts."""
    for mark in needs_host.every_mark(settings.home):
        if game_path(settings, mark.game) is not None:
            log.warning(
                "game %s cannot be scheduled, it needs its host: %s", mark.game, mark.reason
            )


def readable_games(settings: Settings) -> list[str]:
    """The ids of the games that can be read (the others are marked as needing their host,
    and logged the first time)."""
    games = survey(settings)
    for entry in games:
        entry.repo.repo.close()
    return [entry.id for entry in games if entry.problem is None]


def tell_operator(settings: Settings) -> None:
    """Mail the operator about games newly needing their host; a mail failure is logged."""
    try:
        alert_operator(settings)
    except Exception:
        log.exception("writing the mail about games that need their host failed")


# -- a game's deadline, reminder and pushed moves --------------------------------------------


def _remote_update(settings: Settings, repo: GameRepo) -> None:
    """For a forge-hosted game: fetch, adjudicate pushed moves, push ours (under the lock)."""
    if remote.is_remote(repo):
        ledger.announce(settings, repo, ledger.forge_update(settings, repo))


def report(
    settings: Settings, repo: GameRepo, results: list[Adjudication], how: str = "played by default"
) -> None:
    """Queue the players' mails about the adjudications: their commits say what to send
    (`ledger.reconcile`; the caller holds the game's lock). Nothing is sent here: a mail
    server that does not answer must not keep the game locked (docs/scheduler.md)."""
    for result in results:
        log.info(
            "%s: move %d %s, commit %s", repo.path.name, result.number, how, result.commit[:10]
        )
    if not results:
        return
    try:
        ledger.reconcile(settings, repo)
    except Exception:  # the moves are committed; a mail failure must not undo that
        log.exception("notifying the players of %s failed", repo.path.name)


def run_deadline(
    settings: Settings, game_id: str, now: datetime, *, deliver: bool = True
) -> list[Adjudication]:
    """Under the game's lock: if the pending decision's deadline has passed at `now`,
    submit its defaults (adjudicator commits) and queue their mails. For a forge-hosted
    game whose deadline has passed, the forge is fetched first (an answer pushed in time
    wins) and pushed to after. The mails are sent once the lock is released (`deliver`),
    or left to the outbox job."""
    results = _run_deadline(settings, game_id, now)
    if results and deliver:
        retry_outbox(settings)
    return results


def _run_deadline(settings: Settings, game_id: str, now: datetime) -> list[Adjudication]:
    with game_lock(settings, game_id):
        repo = open_game(settings, game_id)
        try:
            pending = waiting(repo)
            if pending is not None and pending.pushed and not remote.is_remote(repo):
                return _adjudicate_pushed(settings, repo)  # answers in time win
            if pending is not None:  # not due while the players' turn mail waits
                pending = mail_clock(settings, repo, pending, now)
            if pending is None or not pending.clock.is_due(now):
                return []  # by the service's copy; a forge only ever adds answers
            ledger.reconcile(settings, repo)  # starts the game's mail ledger before commits
            _remote_update(settings, repo)
            results = apply_timeouts(repo, settings.home, now)
            metrics.moves("deadline", adjudicated=len(results))
            if results:
                report(settings, repo, results)
                _remote_update(settings, repo)  # a forge that fails now gets them next poll
            return results
        finally:
            repo.repo.close()


def adjudicate_pushed(settings: Settings, game_id: str) -> list[Adjudication]:
    """Under the game's lock: adjudicate the move files pushed to a game that is not
    hosted on a forge and that no hook adjudicated (hooks missing, or a post-receive hook
    that died). A forge-hosted game's pushes come in with its polls instead."""
    with game_lock(settings, game_id):
        repo = open_game(settings, game_id)
        try:
            if remote.is_remote(repo):
                return []
            return _adjudicate_pushed(settings, repo)
        finally:
            repo.repo.close()


def _adjudicate_pushed(settings: Settings, repo: GameRepo) -> list[Adjudication]:
    snap = snapshot(repo)
    if not snap.pending() or any(m.player not in snap.game.names for m in snap.pending()):
        return []  # nothing waits, or a move for a stranger: the host's to remove
    ledger.reconcile(settings, repo)  # starts the game's mail ledger before commits
    results = adjudicate_pending(repo, settings.home)
    metrics.outcomes("push", results)
    report(settings, repo, results, "pushed and adjudicated by the scheduler")
    return results


def run_reminder(
    settings: Settings, game_id: str, now: datetime, *, deliver: bool = True
) -> list[str]:
    """Under the game's lock: queue the reminder if it is due and not sent yet; then,
    with the lock released, deliver it (`deliver`), or leave it to the outbox job."""
    with game_lock(settings, game_id):
        repo = open_game(settings, game_id)
        try:
            players = send_reminders(settings, repo, now)
        finally:
            repo.repo.close()
    if players and deliver:
        retry_outbox(settings)
    return players


def mark_needing_host(settings: Settings, game_id: str, error: GameError) -> None:
    """Mark a game whose work failed for want of a readable game, and tell the operator."""
    try:
        repo = open_game(settings, game_id)
    except GAME_ERRORS:
        return  # gone meanwhile
    try:
        mark_needs_host(settings, game_id, repo, str(error))
    finally:
        repo.repo.close()
    tell_operator(settings)


def _is_hosted(entry: Listed) -> bool:
    try:
        return bool(remote.is_remote(entry.repo))
    finally:
        entry.repo.repo.close()


def poll_share(game_id: str, slots: int) -> int:
    """The slot of `slots` a game is polled in (the same on every node and run)."""
    return zlib.crc32(game_id.encode("utf-8")) % slots


def poll_remote(settings: Settings, share: tuple[int, int] | None = None) -> list[str]:
    """Bring every forge-hosted game up to date with its forge (for forges that send no
    webhooks); return the ids polled. Games that need their host are fetched too: a repair
    pushed to the forge comes in this way. `share` (slot, slots): only the games of that
    slot (`poll_share`), so that the scheduler spreads the polls over time."""
    if share is None:
        entries = survey(settings)
    else:
        slot, slots = share
        ids = [g for g in game_ids(settings) if poll_share(g, slots) == slot]
        entries = survey_of(settings, ids)
    polled: list[str] = []
    for entry in entries:
        if not _is_hosted(entry):
            continue
        try:
            sync_game(settings, entry.id, deliver=False)  # the outbox job sends
            polled.append(entry.id)
        except GameError as error:
            mark_needing_host(settings, entry.id, error)
        except Exception:  # one unreachable forge must not stop the others
            log.exception("polling game %s failed", entry.id)
    return polled


def sync_game(settings: Settings, game_id: str, *, deliver: bool = True) -> None:
    """Under the game's lock: bring the game's clone up to date with its forge, then queue
    the players' mails about what that did; deliver them once the lock is released
    (`deliver`). For games whose forge sends no webhooks."""
    with game_lock(settings, game_id):
        repo = open_game(settings, game_id)
        try:
            ledger.reconcile(settings, repo)  # starts the game's mail ledger before commits
            ledger.announce(settings, repo, ledger.forge_update(settings, repo))
        finally:
            repo.repo.close()
    if deliver:
        retry_outbox(settings)


def branch_tip(path: Path) -> str | None:
    """The commit a game repository's branch points at, read from its files (no Git
    process: the watch looks at every game every few seconds)."""
    return tip_of(path, REF)


def retry_outbox(settings: Settings, now: datetime | None = None) -> None:
    """Deliver the messages that are due (at `now`, default the real time)."""
    try:
        outbox.deliver(settings, now)
    except Exception:
        log.exception("delivering the outbox failed")


def mail_tick(settings: Settings, now: datetime | None = None) -> None:
    """The outbox job: queue the mails of any commit that has none yet (a process that
    adjudicated may have died before queuing them), then deliver what is due."""
    try:
        ledger.reconcile_all(settings)
    except Exception:
        log.exception("queuing the mails of the games' commits failed")
    retry_outbox(settings, now)


def send_digests(settings: Settings, now: datetime | None = None) -> list[Path]:
    """Queue the daily digests due at `now` (default: the real time)."""
    try:
        return digests.send_due(settings, now)
    except Exception:
        log.exception("queuing the daily digests failed")
        return []


@dataclass
class Round:
    """What one `run_once` did."""

    polled: list[str] = field(default_factory=list)
    reminded: dict[str, list[str]] = field(default_factory=dict)
    timed_out: dict[str, list[Adjudication]] = field(default_factory=dict)
    adjudicated: dict[str, list[Adjudication]] = field(default_factory=dict)  # pushed moves
    made: list[str] = field(default_factory=list)  # the lobby's games made (docs/lobby.md)


def run_once(settings: Settings, now: datetime | None = None) -> Round:
    """Every job once, now: poll, remind and time out what is due, deliver (for cron).

    The games' work queues its mails and one delivery at the end sends them, with no game
    locked: a mail server that does not answer costs one `smtp_timeout`, not one a game."""
    ledger.reconcile_all(settings)  # what a crashed process left unmailed goes first
    done = Round(polled=poll_remote(settings))
    done.made = run_pending(settings, now)  # before the games' jobs: a game made is one of them
    for game_id in readable_games(settings):
        moment = now or utc_now()
        try:
            if pushed := adjudicate_pushed(settings, game_id):
                done.adjudicated[game_id] = pushed
            if schedulable(settings, game_id) is None:
                continue  # over, or marked as needing its host (logged below)
            if players := run_reminder(settings, game_id, moment, deliver=False):
                done.reminded[game_id] = players
            if results := run_deadline(settings, game_id, moment, deliver=False):
                done.timed_out[game_id] = results
        except GameError as error:
            mark_needing_host(settings, game_id, error)
        except Exception as error:  # logged; the other games go on
            log.warning("game %s: %s", game_id, error)
    log_needing_host(settings)
    tell_operator(settings)
    send_digests(settings, now)
    mail_tick(settings, now)
    return done
