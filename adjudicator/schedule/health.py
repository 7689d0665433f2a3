"""How the scheduler is doing, as another process sees it (for /metrics): how late it is
with the deadlines, and in PostgreSQL mode whether this node runs the elected scheduler.

The lag is how long ago the most overdue deadline fell that has not been played yet (0
when none is overdue). It is read where the scheduler's own work is recorded:

- in embedded mode, from the games' repositories, as the scheduler builds its jobs: the
  pending decision's deadline (`waiting`), which starts late while the players' turn mail
  waits in the outbox (`mail_clock`). A game's decision is read again only when its
  branch has moved (its ref is read from its files, as the scheduler's `watch` does), so
  that while nothing is overdue a scrape reads one small file a game; the first scrape a
  process answers reads every game once, as the list of games at / does. A game marked
  as needing its host is left out: the scheduler gives it no jobs until the host repairs
  it, and says so in the log and to the operator.
- in PostgreSQL mode, from the job store of the elected scheduler (`pamir_scheduler_jobs`):
  when its earliest deadline job was due to run, in one indexed query. This node's clones
  may be behind the games' forges; the job store is every node's.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from adjudicator.games import needs_host
from adjudicator.games.registry import folder_id
from adjudicator.games.repo import GameRepo
from adjudicator.home import backend, database
from adjudicator.home.settings import Settings
from adjudicator.schedule.clock import Waiting, waiting
from adjudicator.schedule.jobs import branch_tip, utc_now
from adjudicator.schedule.jobstore import JOBS_TABLE
from adjudicator.schedule.leader import LEADER_LOCK
from adjudicator.schedule.scheduler import deadline_job_id
from adjudicator.schedule.turnmail import mail_clock

# Each game's pending decision as last read, by its folder: (the branch's tip, decision).
_seen: dict[Path, tuple[str, Waiting | None]] = {}
_seen_lock = threading.Lock()


def lag_seconds(settings: Settings, now: datetime | None = None) -> float:
    """Seconds since the most overdue deadline that has not been played (at `now`,
    default the real time); 0 when none is overdue."""
    now = now or utc_now()
    if backend.of(settings).several_nodes:  # the deadlines are the leader's jobs
        due = _earliest_deadline_job(settings)
    else:
        due = _earliest_deadline(settings, now)
    return max(0.0, (now - due).total_seconds()) if due is not None else 0.0


def _earliest_deadline(settings: Settings, now: datetime) -> datetime | None:
    earliest: datetime | None = None
    if not settings.games_dir.is_dir():
        return None
    for path in sorted(settings.games_dir.iterdir()):
        if not path.is_dir() or path.name.startswith("."):
            continue  # a hidden folder is a game still being made
        pending = _pending(path)
        if pending is None or not pending.clock.is_due(now):
            continue
        if needs_host.marked(settings.home, folder_id(path)) is not None:
            continue
        repo = GameRepo(path)
        try:  # only an overdue game's outbox is looked at: its turn mail may hold it
            due = mail_clock(settings, repo, pending, now).clock.deadline
        finally:
            repo.repo.close()
        if due <= now and (earliest is None or due < earliest):
            earliest = due
    return earliest


def _pending(path: Path) -> Waiting | None:
    """The decision the game in `path` waits for, read again only when its branch moved."""
    tip = branch_tip(path)
    if tip is None:
        return None
    with _seen_lock:
        known = _seen.get(path)
    if known is not None and known[0] == tip:
        return known[1]
    pending: Waiting | None = None
    try:
        repo = GameRepo(path)
        try:
            pending = waiting(repo, tip)
        finally:
            repo.repo.close()
    except Exception:  # a game that cannot be read has no deadline: the host repairs it
        pending = None
    with _seen_lock:
        _seen[path] = (tip, pending)
    return pending


# Every game's deadline job, by the prefix of its id: a range under the "C" collation,
# which the index pamir_scheduler_jobs_id_c serves in every plan (database.prefix_bounds).
EARLIEST_DEADLINE_QUERY = (
    f'SELECT min(next_run_time) FROM {JOBS_TABLE} WHERE id COLLATE "C" >= %(low)s'
    ' AND id COLLATE "C" < %(high)s AND starts_with(id, %(low)s)'
)


def _earliest_deadline_job(settings: Settings) -> datetime | None:
    low, high = database.prefix_bounds(deadline_job_id(""))
    with database.connection(settings) as connection:
        row = connection.execute(EARLIEST_DEADLINE_QUERY, {"low": low, "high": high}).fetchone()
    if row is None or row[0] is None:
        return None
    return datetime.fromtimestamp(float(str(row[0])), UTC)


def leads(settings: Settings) -> bool:
    """PostgreSQL mode: whether the elected scheduler runs on this node, that is, the
    session holding its leadership bears this node's name (as `pamir nodes` reads it)."""
    from adjudicator.home import advisory  # PostgreSQL mode only: the database client

    holder = advisory.leader_of(settings, LEADER_LOCK)
    return holder is not None and holder.split(" ", 2)[-1] == database.node_name(settings)
