"""The scheduler process, `pamir scheduler` (docs/scheduler.md): the one active scheduler,
run until it is stopped.

The scheduler runs in its own process so that web workers never run a job twice; a lock
file refuses a second scheduler on the same PAMIR_HOME. In PostgreSQL mode
(docs/cluster.md#the-scheduler) the one active scheduler is elected: the other nodes stand
by, and take over when the leader's node dies.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from adjudicator.home import backend, locks
from adjudicator.home.locks import Leadership
from adjudicator.home.settings import Settings
from adjudicator.mail import ledger
from adjudicator.schedule.scheduler import build_scheduler, stop_leading

log = logging.getLogger(__name__)

LOCK_FILE = "scheduler.lock"


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
    if not backend.of(settings).several_nodes:
        ledger.reconcile_all(settings)  # the mails a crash left unqueued, before anything new
    # In PostgreSQL mode a new leader runs the deadlines already due first: the mails a crash
    # left unqueued are the outbox job's (woken once the jobs are rebuilt), and every
    # adjudication reconciles its own game before it commits.
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
        stop_leading(scheduler)
        log.info("scheduler stopped")
