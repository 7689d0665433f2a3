"""The scheduler process, `pamir scheduler` (docs/scheduler.md): deadlines, reminders,
polls of forge-hosted games, outbox retries, daily digests.

The game repositories are the source of truth: on start, the jobs are built from them
(for each game waiting for a decision, a deadline job and, unless already sent, a reminder
job), and every job looks at the repository again when it runs, so a job made stale by a
move adjudicated elsewhere (a web worker, a push, an email) only ever fires early, finds
nothing to do and reschedules itself. Every game job refreshes its game's jobs when it is
done, and the poll job refreshes every game's, which brings in games created meanwhile.

The scheduler runs in its own process so that web workers never run a job twice; a lock
file refuses a second scheduler on the same PAMIR_HOME, and every change to a game is made
under the game's lock (`service.game_lock`) after checking the repository again.

In PostgreSQL mode (docs/cluster.md#the-scheduler) the one active scheduler is elected,
and its jobs are kept in APScheduler's SQLAlchemy job store (the table
`pamir_scheduler_jobs`), so that the next leader starts from them; each stored job names a
module-level function and the game it is about (`run_stored`), never the scheduler or the
settings, which are the leader's own. The new leader rebuilds the games' jobs from the
repositories as a single scheduler does when it starts, replacing the stored ones.

One game never stops the others: a game that cannot be read is marked as needing its host
(`adjudicator.games.needs_host`, and one mail to the operator) and gets no jobs until it
reads again, while every other game's jobs, the polls and the outbox go on.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped, unused-ignore]
from apscheduler.schedulers.background import (  # type: ignore[import-untyped, unused-ignore]
    BackgroundScheduler,
)
from apscheduler.triggers.date import DateTrigger  # type: ignore[import-untyped, unused-ignore]
from apscheduler.triggers.interval import (  # type: ignore[import-untyped, unused-ignore]
    IntervalTrigger,
)

from adjudicator.forge import remote
from adjudicator.games import needs_host
from adjudicator.games.deadlines import DeadlineError
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import adjudicate_pending
from adjudicator.games.registry import (
    Listed,
    folder_id,
    game_lock,
    game_path,
    mark_needs_host,
    open_game,
    survey,
)
from adjudicator.games.repo import REF, GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import locks, metrics
from adjudicator.home.locks import Leadership
from adjudicator.home.settings import Settings
from adjudicator.mail import digests, ledger, outbox
from adjudicator.mail.operator import alert_operator
from adjudicator.schedule.clock import Waiting, apply_timeouts, waiting
from adjudicator.schedule.reminders import already_reminded, send_reminders
from adjudicator.schedule.stalls import stalled
from adjudicator.schedule.turnmail import mail_clock

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
POLL_JOB = "poll"
OUTBOX_JOB = "outbox"
DIGEST_JOB = "digest"
DIGEST_SECONDS = 60  # how soon after its hour a digest goes out
WATCH_JOB = "watch"
WATCH_SECONDS = 3  # a host's change of deadlines is scheduled this soon after its commit
RETRY = timedelta(seconds=60)  # after a run that could not proceed (pushed moves, errors)
LOCK_FILE = "scheduler.lock"
GAME_ERRORS = (GameError, GameFileError, RepoError, DeadlineError, ValueError, OSError)


def utc_now() -> datetime:
    return datetime.now(UTC)


def deadline_job_id(game_id: str) -> str:
    return f"deadline:{game_id}"


def reminder_job_id(game_id: str) -> str:
    return f"reminder:{game_id}"


# -- building and refreshing the jobs ------------------------------------------------------


class GameScheduler(BackgroundScheduler):  # type: ignore[misc, unused-ignore]
    """A BackgroundScheduler that knows its clock, and whose jobs stop editing the job list
    once it is shutting down (APScheduler 3 holds its job store lock while it waits for
    running jobs to finish: a job editing jobs then would wait forever)."""

    def __init__(self, clock: Clock, settings: Settings | None = None) -> None:
        stored = settings is not None and settings.database_url is not None
        super().__init__(
            timezone=UTC,
            job_defaults={"coalesce": True, "misfire_grace_time": None, "max_instances": 3},
            jobstores={"default": job_store(settings)} if stored and settings else {},
        )
        self.pamir_stored = stored  # jobs in the database: their arguments are plain
        self.pamir_clock = clock
        self.pamir_lock = threading.RLock()
        self.pamir_stopping = False
        self.pamir_tips: dict[str, str | None] = {}  # game folder -> its branch, last seen

    def shutdown(self, wait: bool = True) -> None:
        with self.pamir_lock:  # no job is editing its jobs past this point
            self.pamir_stopping = True
        super().shutdown(wait)

    def remove_job(self, job_id: str, jobstore: str | None = None) -> None:
        # A shutdown that begins while the scheduler thread is starting a date job makes
        # its removal of the job look among the jobs of a stopped scheduler, in vain.
        try:
            super().remove_job(job_id, jobstore)
        except JobLookupError:
            if not self.pamir_stopping:
                raise


JOBS_TABLE = "pamir_scheduler_jobs"  # made by the schema's migrations (home/database.py)


def job_store(settings: Settings) -> Any:
    """APScheduler's SQLAlchemy job store on the settings' database (psycopg 3)."""
    from apscheduler.jobstores.sqlalchemy import (  # type: ignore[import-untyped, unused-ignore]
        SQLAlchemyJobStore,
    )
    from sqlalchemy import create_engine

    from adjudicator.home import database

    assert settings.database_url is not None
    url = "postgresql+psycopg://" + settings.database_url.split("://", 1)[1]
    engine = create_engine(
        url,
        pool_size=2,
        pool_pre_ping=True,  # a connection the server dropped is replaced, not used
        connect_args={
            "application_name": f"pamir jobs {database.node_name(settings)}"[:63],
            "options": database.SESSION_OPTIONS,
        },
    )
    return SQLAlchemyJobStore(engine=engine, tablename=JOBS_TABLE)


# The leader's scheduler and settings, for the jobs of the job store (`run_stored`).
_leading: tuple[GameScheduler, Settings] | None = None


def _add_job(
    scheduler: GameScheduler,
    function: Callable[..., object],
    trigger: Any,
    args: list[Any],
    **options: Any,
) -> None:
    """Add a job. In the job store the job is `run_stored` with the function's name and
    the plain arguments (a game's id): the scheduler and the settings are not stored
    (they are the leader's own, and the settings hold passwords)."""
    if scheduler.pamir_stored:
        plain = [a for a in args if not isinstance(a, GameScheduler | Settings)]
        function, args = run_stored, [function.__name__, *plain]
    scheduler.add_job(function, trigger, args=args, **options)


def run_stored(name: str, *args: str) -> None:
    """A job of the job store: run the function it names on this node's scheduler."""
    if _leading is None:
        log.warning("job %s not run: this node does not lead", name)
        return
    scheduler, settings = _leading
    if name == mail_tick.__name__:
        mail_tick(settings)
        return
    functions: dict[str, Callable[..., object]] = {
        f.__name__: f for f in (poll, watch, digest_tick, deadline_job, reminder_job)
    }
    if name not in functions:
        log.error("job %s not run: no such job (stored by another version of pamir?)", name)
        return
    functions[name](scheduler, settings, *args)


def build_scheduler(settings: Settings, clock: Clock | None = None) -> GameScheduler:
    """A scheduler (not started) whose jobs are built from the game repositories.

    `clock` gives the current time (default: the real one); tests inject another. Jobs
    run when the clock shows their time, assuming it runs at the real clock's pace. With
    a database, the jobs are kept in its job store, and the scheduler is this node's
    leading one (the one `run_stored` runs the stored jobs on).
    """
    global _leading
    scheduler = GameScheduler(clock or utc_now, settings)
    if scheduler.pamir_stored:
        _leading = (scheduler, settings)
    refresh_all(scheduler, settings)
    _add_job(
        scheduler,
        poll,
        IntervalTrigger(minutes=settings.poll_minutes, timezone=UTC),
        args=[scheduler, settings],
        id=POLL_JOB,
        name="poll forge-hosted games, refresh every game's jobs",
        replace_existing=True,
    )
    watch(scheduler, settings)  # what the jobs were just built from
    _add_job(
        scheduler,
        watch,
        IntervalTrigger(seconds=WATCH_SECONDS, timezone=UTC),
        args=[scheduler, settings],
        id=WATCH_JOB,
        name="refresh the jobs of each game whose branch moved",
        replace_existing=True,
        max_instances=1,
    )
    _add_job(
        scheduler,
        mail_tick,
        IntervalTrigger(seconds=settings.outbox_retry_seconds, timezone=UTC),
        args=[settings],
        id=OUTBOX_JOB,
        name="queue the mails of every commit that has none yet, deliver the outbox",
        replace_existing=True,
    )
    _add_job(
        scheduler,
        digest_tick,
        IntervalTrigger(seconds=DIGEST_SECONDS, timezone=UTC),
        args=[scheduler, settings],
        id=DIGEST_JOB,
        name="queue the daily digests that are due on each player's clock",
        replace_existing=True,
        max_instances=1,
    )
    return scheduler


@contextmanager
def _editing(scheduler: GameScheduler) -> Iterator[bool]:
    """Hold the scheduler's edit lock; yield whether jobs may be edited (not stopping)."""
    with scheduler.pamir_lock:
        yield not scheduler.pamir_stopping


def _real_time(scheduler: GameScheduler, when: datetime) -> datetime:
    """The real time at which the scheduler's clock will show `when`."""
    offset = timedelta(seconds=round((scheduler.pamir_clock() - utc_now()).total_seconds()))
    return max(when - offset, utc_now())


def _put(
    scheduler: GameScheduler,
    job_id: str,
    function: Callable[..., None],
    when: datetime,
    args: list[Any],
    name: str,
) -> None:
    trigger = DateTrigger(run_date=_real_time(scheduler, when), timezone=UTC)
    if not scheduler.running:
        _drop(scheduler, job_id)  # pending jobs are not replaced by id until the start
    _add_job(scheduler, function, trigger, args, id=job_id, name=name, replace_existing=True)


def _drop(scheduler: GameScheduler, job_id: str) -> None:
    with suppress(JobLookupError):
        scheduler.remove_job(job_id)


def refresh_game(
    scheduler: GameScheduler,
    settings: Settings,
    game_id: str,
    *,
    earliest: datetime | None = None,
) -> None:
    """Replace the game's deadline and reminder jobs by those its repository calls for
    now (none when the game waits for nobody). `earliest`: no job before this time."""
    now = scheduler.pamir_clock()
    pending = schedulable(settings, game_id)
    if pending is not None:
        try:
            repo = open_game(settings, game_id)
            try:  # not due while the players' turn mail waits in the outbox
                pending = mail_clock(settings, repo, pending, now)
            finally:
                repo.repo.close()
        except GAME_ERRORS as error:
            log.warning("game %s: no deadline can be set: %s", game_id, error)
            pending = None
    with _editing(scheduler) as editable:
        if not editable:
            return
        if pending is None:
            _drop(scheduler, deadline_job_id(game_id))
            _drop(scheduler, reminder_job_id(game_id))
            return
        due = pending.clock.deadline
        when = due
        if pending.pushed and when <= now:
            when = now + RETRY  # the pushed moves are adjudicated first
        if earliest is not None:
            when = max(when, earliest)
        label = f"deadline of {game_id} (move {pending.move + 1}): {due.isoformat()}"
        _put(
            scheduler,
            deadline_job_id(game_id),
            deadline_job,
            when,
            [scheduler, settings, game_id],
            label,
        )
        remind = pending.clock.reminder
        if remind is None or now >= due or already_reminded(settings, pending):
            _drop(scheduler, reminder_job_id(game_id))
            return
        label = f"reminder of {game_id} (move {pending.move + 1}): {remind.isoformat()}"
        if earliest is not None:
            remind = max(remind, earliest)
        _put(
            scheduler,
            reminder_job_id(game_id),
            reminder_job,
            remind,
            [scheduler, settings, game_id],
            label,
        )


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


def _readable(settings: Settings) -> list[str]:
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


def refresh_all(scheduler: GameScheduler, settings: Settings) -> list[str]:
    """Refresh every readable game's jobs; drop the jobs of games that are gone or cannot
    be read, and tell the operator about the latter. Returns the ids refreshed."""
    ids = _readable(settings)
    for game_id in ids:
        try:
            adjudicate_pushed(settings, game_id)
        except GameError as error:
            _needs_host(settings, game_id, error)
        except Exception:
            log.exception("game %s: adjudicating its pushed moves failed", game_id)
        try:
            refresh_game(scheduler, settings, game_id)
        except Exception:  # one game's surprise must not leave the others without jobs
            log.exception("game %s: its jobs could not be refreshed", game_id)
    log_needing_host(settings)
    tell_operator(settings)
    with _editing(scheduler) as editable:
        if not editable:
            return ids
        for job in scheduler.get_jobs():
            kind, _, game_id = str(job.id).partition(":")
            if kind in ("deadline", "reminder") and game_id not in ids:
                _drop(scheduler, job.id)
    return ids


# -- what the jobs do ------------------------------------------------------------------------


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


def _game_job(
    scheduler: GameScheduler,
    settings: Settings,
    game_id: str,
    work: Callable[..., list[Any]],
) -> None:
    clock = scheduler.pamir_clock
    earliest = None
    try:
        # The mails are left to the outbox job, woken now: one delivery at a time (a lock)
        # would otherwise make every due game wait for a slow mail server in turn.
        if work(settings, game_id, clock(), deliver=False):
            wake_outbox(scheduler)
            needs_host.clear(settings, game_id)  # it worked: the game is fine again
        else:
            earliest = clock() + RETRY  # nothing done: never spin on a stale or stuck game
    except GameError as error:
        _needs_host(settings, game_id, error)
        earliest = clock() + RETRY
    except Exception:
        log.exception("game %s: %s failed", game_id, getattr(work, "__name__", "a job"))
        earliest = clock() + RETRY
    finally:
        refresh_game(scheduler, settings, game_id, earliest=earliest)


def _needs_host(settings: Settings, game_id: str, error: GameError) -> None:
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


def deadline_job(scheduler: GameScheduler, settings: Settings, game_id: str) -> None:
    """The deadline job of a game: apply the defaults if due, then refresh the game's jobs."""
    _game_job(scheduler, settings, game_id, run_deadline)


def reminder_job(scheduler: GameScheduler, settings: Settings, game_id: str) -> None:
    """The reminder job of a game: remind if due, then refresh the game's jobs."""
    _game_job(scheduler, settings, game_id, run_reminder)


def _is_hosted(entry: Listed) -> bool:
    try:
        return bool(remote.is_remote(entry.repo))
    finally:
        entry.repo.repo.close()


def wake_outbox(scheduler: GameScheduler) -> None:
    """Run the outbox job now (mails were just queued), not at its next interval."""
    with _editing(scheduler) as editable:
        if editable:
            with suppress(JobLookupError):
                scheduler.modify_job(OUTBOX_JOB, next_run_time=utc_now())


def poll_remote(settings: Settings) -> list[str]:
    """Bring every forge-hosted game up to date with its forge (for forges that send no
    webhooks); return the ids polled. Games that need their host are fetched too: a repair
    pushed to the forge comes in this way."""
    polled: list[str] = []
    for entry in survey(settings):
        if not _is_hosted(entry):
            continue
        try:
            sync_game(settings, entry.id, deliver=False)  # the outbox job sends
            polled.append(entry.id)
        except GameError as error:
            _needs_host(settings, entry.id, error)
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
    folder = path if (path / "HEAD").is_file() else path / ".git"
    with suppress(OSError):
        return (folder / REF).read_text(encoding="ascii").strip()
    with suppress(OSError):
        for line in (folder / "packed-refs").read_text(encoding="ascii").splitlines():
            if line.endswith(f" {REF}"):
                return line.split()[0]
    return None


def watch(scheduler: GameScheduler, settings: Settings) -> list[str]:
    """The watch job: refresh the jobs of each game whose branch moved since the last look
    (a host's `pamir deadlines`, a pause, a move made by another process), so that a change
    is scheduled when it is committed rather than at the next poll. Returns those games."""
    if not settings.games_dir.is_dir():
        return []
    moved: list[str] = []
    for path in sorted(settings.games_dir.iterdir()):
        if not path.is_dir() or path.name.startswith("."):
            continue
        tip = branch_tip(path)
        if scheduler.pamir_tips.get(path.name, "") == tip:
            continue
        first = path.name not in scheduler.pamir_tips
        scheduler.pamir_tips[path.name] = tip
        if first and not scheduler.running:
            continue  # being built: its jobs come from the same repositories
        game_id = folder_id(path)
        try:
            refresh_game(scheduler, settings, game_id)
            moved.append(game_id)
        except Exception:
            log.exception("game %s: its jobs could not be refreshed", game_id)
    return moved


def poll(scheduler: GameScheduler, settings: Settings) -> None:
    """The poll job: forge-hosted games first, then every game's jobs afresh."""
    try:
        poll_remote(settings)
    finally:
        refresh_all(scheduler, settings)
        wake_outbox(scheduler)


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


def digest_tick(scheduler: GameScheduler, settings: Settings) -> None:
    """The digest job: the digests due on the scheduler's clock, then delivery."""
    if send_digests(settings, scheduler.pamir_clock()):
        wake_outbox(scheduler)


@dataclass
class Round:
    """What one `run_once` did."""

    polled: list[str] = field(default_factory=list)
    reminded: dict[str, list[str]] = field(default_factory=dict)
    timed_out: dict[str, list[Adjudication]] = field(default_factory=dict)
    adjudicated: dict[str, list[Adjudication]] = field(default_factory=dict)  # pushed moves


def run_once(settings: Settings, now: datetime | None = None) -> Round:
    """Every job once, now: poll, remind and time out what is due, deliver (for cron).

    The games' work queues its mails and one delivery at the end sends them, with no game
    locked: a mail server that does not answer costs one `smtp_timeout`, not one a game."""
    ledger.reconcile_all(settings)  # what a crashed process left unmailed goes first
    done = Round(polled=poll_remote(settings))
    for game_id in _readable(settings):
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
            _needs_host(settings, game_id, error)
        except Exception as error:  # logged; the other games go on
            log.warning("game %s: %s", game_id, error)
    log_needing_host(settings)
    tell_operator(settings)
    send_digests(settings, now)
    mail_tick(settings, now)
    return done


# -- the process ------------------------------------------------------------------------------


class SchedulerRunning(RuntimeError):
    """Another scheduler process holds this PAMIR_HOME."""


LEADER_LOCK = "scheduler"  # the advisory lock of the one active scheduler (PostgreSQL mode)
LEADER_CHECK_SECONDS = 2.0  # how often a leader checks that it still holds the lock


@contextmanager
def _only_scheduler(settings: Settings, stop: threading.Event) -> Iterator[Leadership | None]:
    """Be the only active scheduler: of this PAMIR_HOME (a file lock, refused while another
    holds it), or with a database of every node (elected; others stand by and take over
    when the leader's node dies). Yields None if `stop` came before the election."""
    path = settings.home / "locks" / LOCK_FILE
    try:
        with locks.leadership(settings, LEADER_LOCK, path, stop) as held:
            yield held
    except locks.LeaderRunning:
        raise SchedulerRunning(
            f"a scheduler is already running on {settings.home} (it holds {path})"
        ) from None


def run_forever(settings: Settings, stop: threading.Event | None = None) -> None:
    """Run the scheduler until SIGTERM or SIGINT (or until `stop` is set). With a database,
    stand by until elected, and stand by again if the leadership is lost."""
    stop = stop or threading.Event()
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():

        def on_signal(number: int, frame: FrameType | None) -> None:
            stop.set()

        for which in (signal.SIGTERM, signal.SIGINT):
            previous[which] = signal.signal(which, on_signal)
    try:
        while not stop.is_set():
            with _only_scheduler(settings, stop) as held:
                if held is not None:
                    _lead(settings, stop, held)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _lead(settings: Settings, stop: threading.Event, held: Leadership) -> None:
    ledger.reconcile_all(settings)  # the mails a crash left unqueued, before anything new
    scheduler = build_scheduler(settings)
    scheduler.start()
    log.info("scheduler started on %s with %d jobs", settings.home, len(scheduler.get_jobs()))
    try:
        while not stop.wait(LEADER_CHECK_SECONDS):
            if not held.holds():
                # Another node may be elected by now: never two active schedulers.
                log.warning("the scheduler lost its leadership (the database went away)")
                break
    finally:
        scheduler.shutdown(wait=True)
        _stop_leading(scheduler)
        log.info("scheduler stopped")


def _stop_leading(scheduler: GameScheduler) -> None:
    global _leading
    if _leading is not None and _leading[0] is scheduler:
        _leading = None
