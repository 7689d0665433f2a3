"""The scheduler of `pamir scheduler` (docs/scheduler.md), on APScheduler: deadlines,
reminders, polls of forge-hosted games, outbox retries, daily digests. What each job does
is in `adjudicator.schedule.jobs`; the process that runs the scheduler, in
`adjudicator.schedule.leader`.

The game repositories are the source of truth: on start, the jobs are built from them
(for each game waiting for a decision, a deadline job and, unless already sent, a reminder
job), and every job looks at the repository again when it runs, so a job made stale by a
move adjudicated elsewhere (a web worker, a push, an email) only ever fires early, finds
nothing to do and reschedules itself. Every game job refreshes its game's jobs when it is
done, and the poll job refreshes every game's, which brings in games created meanwhile.

In PostgreSQL mode (docs/cluster.md#the-scheduler) the jobs of the elected scheduler are
kept in APScheduler's SQLAlchemy job store (the table `pamir_scheduler_jobs`), so that the
next leader starts from them; each stored job names a module-level function and the game
it is about (`run_stored`), never the scheduler or the settings, which are the leader's
own. The new leader starts from the stored jobs, so that the deadlines already due run at
once, and rebuilds the games' jobs from the repositories beside them (`rebuild_jobs`, its
first job), replacing the stored ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped, unused-ignore]
from apscheduler.schedulers.background import (  # type: ignore[import-untyped, unused-ignore]
    BackgroundScheduler,
)
from apscheduler.triggers.date import DateTrigger  # type: ignore[import-untyped, unused-ignore]
from apscheduler.triggers.interval import (  # type: ignore[import-untyped, unused-ignore]
    IntervalTrigger,
)

from adjudicator.games import needs_host
from adjudicator.games.registry import folder_id, open_game
from adjudicator.games.snapshot import GameError
from adjudicator.home import backend
from adjudicator.home.settings import Settings
from adjudicator.mail.lobby.starting import run_pending
from adjudicator.schedule.jobs import (
    GAME_ERRORS,
    adjudicate_pushed,
    branch_tip,
    log_needing_host,
    mail_tick,
    mark_needing_host,
    poll_remote,
    readable_games,
    run_deadline,
    run_reminder,
    schedulable,
    send_digests,
    tell_operator,
    utc_now,
)
from adjudicator.schedule.jobstore import job_store
from adjudicator.schedule.reminders import already_reminded
from adjudicator.schedule.retention import PRUNE_HOURS, prune_tick
from adjudicator.schedule.turnmail import mail_clock

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
POLL_JOB = "poll"
FETCH_JOB = "fetch"
FETCH_SLICE_SECONDS = 30  # a fetch job's run: the games of one slot (schedule/jobs.py poll_share)
OUTBOX_JOB = "outbox"
DIGEST_JOB = "digest"
PRUNE_JOB = "prune"
PRUNE_DELAY = timedelta(minutes=1)
DIGEST_SECONDS = 60  # how soon after its hour a digest goes out
WATCH_JOB = "watch"
REBUILD_JOB = "rebuild"  # PostgreSQL mode: a new leader's games' jobs, after its start
WATCH_SECONDS = 3  # a host's change of deadlines is scheduled this soon after its commit
RETRY = timedelta(seconds=60)  # after a run that could not proceed (pushed moves, errors)


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
        # With other nodes, the jobs are in the database, for whichever node is elected next.
        stored = settings is not None and backend.of(settings).several_nodes
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
    for plain in (mail_tick, prune_tick):  # the jobs of the settings alone
        if name == plain.__name__:
            plain(settings)
            return
    functions: dict[str, Callable[..., object]] = {
        f.__name__: f
        for f in (poll, fetch_slice, watch, digest_tick, deadline_job, reminder_job, rebuild_jobs)
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
        # The stored jobs are the last leader's, each game's up to its last move: those due
        # run as soon as the scheduler starts, and the games' jobs are rebuilt from the
        # repositories just after, beside them, so a failover's deadlines are not late by
        # the time it takes to read every game.
        _add_job(
            scheduler,
            rebuild_jobs,
            DateTrigger(run_date=utc_now(), timezone=UTC),
            args=[scheduler, settings],
            id=REBUILD_JOB,
            name="rebuild every game's jobs from the repositories",
            replace_existing=True,
        )
    else:
        refresh_all(scheduler, settings)
    _add_job(
        scheduler,
        poll,
        IntervalTrigger(minutes=settings.poll_minutes, timezone=UTC),
        args=[scheduler, settings],
        id=POLL_JOB,
        name="refresh every game's jobs",
        replace_existing=True,
    )
    _add_job(
        scheduler,
        fetch_slice,
        IntervalTrigger(seconds=_slice_seconds(settings), timezone=UTC),
        args=[scheduler, settings],
        id=FETCH_JOB,
        name="fetch a slice of the forge-hosted games, each once every poll_minutes",
        replace_existing=True,
        max_instances=1,
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
    _add_job(
        scheduler,
        prune_tick,
        # A minute after the start, then daily: a node restarted more often than daily
        # (each deploy) would otherwise never prune.
        IntervalTrigger(hours=PRUNE_HOURS, start_date=utc_now() + PRUNE_DELAY, timezone=UTC),
        args=[settings],
        id=PRUNE_JOB,
        name=f"empty the mail and forget the deliveries older than {settings.retention_days} days",
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


def refresh_all(scheduler: GameScheduler, settings: Settings) -> list[str]:
    """Refresh every readable game's jobs; drop the jobs of games that are gone or cannot
    be read, and tell the operator about the latter. Returns the ids refreshed."""
    ids = readable_games(settings)
    for game_id in ids:
        try:
            adjudicate_pushed(settings, game_id)
        except GameError as error:
            mark_needing_host(settings, game_id, error)
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
        mark_needing_host(settings, game_id, error)
        earliest = clock() + RETRY
    except Exception:
        log.exception("game %s: %s failed", game_id, getattr(work, "__name__", "a job"))
        earliest = clock() + RETRY
    finally:
        refresh_game(scheduler, settings, game_id, earliest=earliest)


def deadline_job(scheduler: GameScheduler, settings: Settings, game_id: str) -> None:
    """The deadline job of a game: apply the defaults if due, then refresh the game's jobs."""
    _game_job(scheduler, settings, game_id, run_deadline)


def reminder_job(scheduler: GameScheduler, settings: Settings, game_id: str) -> None:
    """The reminder job of a game: remind if due, then refresh the game's jobs."""
    _game_job(scheduler, settings, game_id, run_reminder)


def wake_outbox(scheduler: GameScheduler) -> None:
    """Run the outbox job now (mails were just queued), not at its next interval."""
    with _editing(scheduler) as editable:
        if editable:
            with suppress(JobLookupError):
                scheduler.modify_job(OUTBOX_JOB, next_run_time=utc_now())


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


def rebuild_jobs(scheduler: GameScheduler, settings: Settings) -> None:
    """A new leader's first job (PostgreSQL mode): every game's jobs afresh."""
    refresh_all(scheduler, settings)
    wake_outbox(scheduler)


def poll(scheduler: GameScheduler, settings: Settings) -> None:
    """The poll job: the lobby's pending games (expired, made: docs/lobby.md), then every
    game's jobs afresh (it brings in games made meanwhile, and says again which games
    cannot be scheduled)."""
    try:
        run_pending(settings, scheduler.pamir_clock())
    finally:
        refresh_all(scheduler, settings)
        wake_outbox(scheduler)


def _slice_seconds(settings: Settings) -> int:
    return min(FETCH_SLICE_SECONDS, settings.poll_minutes * 60)


def fetch_slice(scheduler: GameScheduler, settings: Settings) -> list[str]:
    """The fetch job: the forge-hosted games of this slice of time brought up to their
    forges (for forges that send no webhooks), then their jobs refreshed. Each game has its
    slot (`poll_share`), so every game is fetched once every `poll_minutes` and a run
    fetches a slice of them, not every game at once; returns the games fetched."""
    seconds = _slice_seconds(settings)
    slots = max(1, settings.poll_minutes * 60 // seconds)
    slot = int(utc_now().timestamp() // seconds) % slots
    polled = poll_remote(settings, (slot, slots))
    for game_id in polled:
        try:
            refresh_game(scheduler, settings, game_id)
        except Exception:
            log.exception("game %s: its jobs could not be refreshed", game_id)
    if polled:
        wake_outbox(scheduler)
    return polled


def digest_tick(scheduler: GameScheduler, settings: Settings) -> None:
    """The digest job: the digests due on the scheduler's clock, then delivery."""
    if send_digests(settings, scheduler.pamir_clock()):
        wake_outbox(scheduler)


def stop_leading(scheduler: GameScheduler) -> None:
    global _leading
    if _leading is not None and _leading[0] is scheduler:
        _leading = None
