"""Sending the outbox over several SMTP sessions at once, each recipient's mail in order.

A move's report goes to every player, one message each. Sent one after the other in one
session, each costs the round trips of MAIL, RCPT and DATA before the next one starts, and
the last player waits for all of them; over `smtp_connections` sessions they go at once.
A player must never receive move 12 before move 11, so a recipient address belongs to one
session for as long as that session has mail for it to send: a message whose recipient a
session holds is queued behind that session's messages, and one whose recipients no
session holds is sent by whichever session asks first.

`send_over_sessions` takes the messages from `source`, one at a time and in order (under
the run's lock: the file outbox's due messages, or the table's claims). `send` sends one on
a session and records what became of it (sent, refused for now or for good, expired); it
raises `SessionLost` when the session broke, having deferred that message. A broken
session's remaining messages, and any later message to the addresses it held (all the
addresses of every message deferred with it), go to `lose` (deferred); the other
sessions go on. What is left in `source` when no session
could be opened, or when every one broke, is the caller's to defer, as before.

Sessions run in threads: smtplib waits on its socket with the GIL released. With one
session the caller's own thread sends, as a single session always did.
"""

from __future__ import annotations

import logging
import smtplib
import threading
from collections import deque
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from adjudicator.home.threads import KeptPool

log = logging.getLogger(__name__)

T = TypeVar("T")
AHEAD = 2  # messages taken from the source per session, at most, before they are sent


class SessionLost(Exception):
    """The SMTP session broke while a message was sent (that message is deferred)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(eq=False)
class _Session(Generic[T]):
    """One SMTP session's share of a run: the addresses it holds and what it has to send."""

    waiting: deque[T] = field(default_factory=deque)
    addresses: set[str] = field(default_factory=set)
    lost: str | None = None  # why it broke: it keeps its addresses, whose mail then waits


@dataclass(frozen=True)
class Outcome:
    """How a run ended: how many sessions were opened, why the first that could not be
    opened was not (`unreachable`), why the last one that broke did (`lost`), and whether
    the source was emptied."""

    opened: int
    unreachable: str | None
    lost: str | None
    emptied: bool


class _Run(Generic[T]):
    def __init__(
        self,
        source: Callable[[], T | None],
        addresses: Callable[[T], Sequence[str]],
        send: Callable[[smtplib.SMTP, T], None],
        lose: Callable[[T, str], None],
        ahead: int,
    ) -> None:
        self.source, self.addresses, self.send, self.lose = source, addresses, send, lose
        self.ahead = ahead
        self.changed = threading.Condition()
        self.holders: dict[str, _Session[T]] = {}
        self.taken = 0  # messages taken from the source and not yet sent or deferred
        self.taking = False  # a session waits, a message in hand, for its addresses
        self.emptied = self.stopped = False  # the source's last answer was None; an error
        self.opened = 0
        self.unreachable: str | None = None
        self.lost: str | None = None
        self.failures: list[BaseException] = []

    def work(
        self,
        connect: Callable[[], smtplib.SMTP],
        release: Callable[[smtplib.SMTP, bool], None],
    ) -> None:
        """Open a session and send with it until the source is empty or the session broke;
        then `release` it, saying whether it is still usable."""
        try:
            smtp = connect()
        except (OSError, smtplib.SMTPException) as error:
            with self.changed:
                if self.unreachable is None:
                    self.unreachable = str(error)
                opened = self.opened
            if opened:  # another session sends what this one would have
                log.warning("one more SMTP session could not be opened: %s", error)
            return
        except BaseException as error:  # a pool thread's own would go unseen: the caller's
            with self.changed:
                self.stopped = True
                self.failures.append(error)
                self.changed.notify_all()
            return
        session: _Session[T] = _Session()
        with self.changed:
            self.opened += 1
        usable = False
        try:
            self._send_all(smtp, session)
            usable = session.lost is None
        except BaseException as error:  # stop the run; the caller raises it
            with self.changed:
                self.stopped = True
                self.failures.append(error)
                self._release(session)
        finally:
            release(smtp, usable)

    def _send_all(self, smtp: smtplib.SMTP, session: _Session[T]) -> None:
        while (message := self._next(session)) is not None:
            try:
                self.send(smtp, message)
            except SessionLost as broken:
                with self.changed:
                    session.lost = self.lost = broken.reason
                    left = list(session.waiting)
                    session.waiting.clear()
                    self._done(1)
                for other in left:
                    self._lose(other, broken.reason)
                return
            with self.changed:
                self._done(1)

    def _next(self, session: _Session[T]) -> T | None:
        """The session's next message: its own waiting one, else the next from the source
        whose addresses no other session holds (one another session holds is queued
        behind that session's, or deferred if that session broke)."""
        while True:
            with self.changed:
                if session.waiting:
                    return session.waiting.popleft()
                self._release(session)
                while not self.stopped and (self.taking or self.taken >= self.ahead):
                    self.changed.wait()
                if self.stopped:
                    return None
                # Asked again by each session that runs out, not once: a message queued
                # during the run (the host's alert of a refusal) goes in the same run.
                message = self.source()
                self.emptied = message is None
                if message is None:
                    return None
                self.taken += 1
                addresses = [a.lower() for a in self.addresses(message)]
                holder = self._holder(addresses)
                if holder is None or holder.lost is None:
                    holder = holder or session
                    holder.addresses.update(addresses)
                    self.holders.update(dict.fromkeys(addresses, holder))
                    if holder is session:
                        return message
                    holder.waiting.append(message)
                    continue
                # Put off with the broken session's mail: its other recipients' later
                # messages must wait too, or they would arrive before this one.
                holder.addresses.update(addresses)
                self.holders.update(dict.fromkeys(addresses, holder))
                reason = holder.lost
            self._lose(message, reason)

    def _holder(self, addresses: list[str]) -> _Session[T] | None:
        """The session holding any of `addresses`: a broken one if any is, else the only one
        left once the others let go (a message to several addresses held by several
        sessions waits for them, and nobody takes another message meanwhile)."""
        self.taking = True
        try:
            while True:
                holders = list(
                    dict.fromkeys(self.holders[a] for a in addresses if a in self.holders)
                )
                broken = [s for s in holders if s.lost is not None]
                if broken:
                    return broken[0]
                if len(holders) <= 1 or self.stopped:
                    return holders[0] if holders else None
                self.changed.wait()
        finally:
            self.taking = False
            self.changed.notify_all()

    def _release(self, session: _Session[T]) -> None:
        """Let go of a session's addresses once it has nothing left to send to them."""
        if session.lost is None and session.addresses:
            for address in session.addresses:
                if self.holders.get(address) is session:
                    del self.holders[address]
            session.addresses.clear()
            self.changed.notify_all()

    def _done(self, count: int) -> None:
        self.taken -= count
        self.changed.notify_all()

    def _lose(self, message: T, reason: str) -> None:
        try:
            self.lose(message, reason)
        finally:
            with self.changed:
                self._done(1)


def _quit(smtp: smtplib.SMTP, usable: bool) -> None:
    with suppress(OSError, smtplib.SMTPException):
        smtp.quit()


# The sessions' threads, kept between runs. More than `smtp_connections` allows (32), so
# that runs at once (several games' deliveries) rarely wait for one another's threads.
SESSION_THREADS = KeptPool("smtp", workers=64)


def send_over_sessions(
    sessions: int,
    connect: Callable[[], smtplib.SMTP],
    source: Callable[[], T | None],
    addresses: Callable[[T], Sequence[str]],
    send: Callable[[smtplib.SMTP, T], None],
    lose: Callable[[T, str], None],
    release: Callable[[smtplib.SMTP, bool], None] | None = None,
) -> Outcome:
    """Send what `source` gives over up to `sessions` SMTP sessions opened by `connect`,
    each recipient address's messages in order on one session (see the module's
    documentation); each is given to `release` at the end with whether it is still usable
    (by default it is closed with QUIT). An error other than SMTP's stops the run and is
    raised here."""
    run = _Run(source, addresses, send, lose, AHEAD * max(sessions, 1))
    ended = release or _quit
    if sessions <= 1:
        run.work(connect, ended)
    else:
        SESSION_THREADS.run_all(run.work, *[(connect, ended)] * sessions)
    if run.failures:
        raise run.failures[0]
    return Outcome(run.opened, run.unreachable, run.lost, run.emptied)
