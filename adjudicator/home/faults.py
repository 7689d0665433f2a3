"""Fault points for the crash-safety tests: `PAMIR_FAULT=POINT` stops the process there.

Each point names a moment between two durable steps (docs/game-repository.md#crash-safety
lists them): the tests run a command with one set, see it die with exit status 70, and
check that a restart (or the sender's redelivery) finishes the work exactly once. With the
variable unset, `fault` does nothing.
"""

from __future__ import annotations

import os

FAULT_VARIABLE = "PAMIR_FAULT"
FAULT_EXIT = 70  # sysexits EX_SOFTWARE
POINTS = ("before-ref", "after-ref", "before-queue", "key-linked", "after-queue", "before-send")
# The one moment SMTP cannot close: the server accepted a message, the outbox has not
# marked it sent. The message goes out again (same Message-ID); nothing else does.
SEND_POINTS = ("after-send",)
# Points off a move's path: the daily digest queued, its record not yet moved on.
DIGEST_POINTS = ("digest-queued",)
# A point that leaves a lock file behind, as a kill -9 while git holds one does: the next
# writer finds it (games/leftover_locks.py), so a restart alone does not finish the work.
LOCK_POINTS = ("ref-locked",)
# The lobby's (docs/lobby.md#crash-safety): the last `accept` recorded and answered, its
# game not made yet; the game made, its first mails not queued yet.
LOBBY_POINTS = ("lobby-accepted", "lobby-made")


def fault(point: str) -> None:
    """Exit at once, as a crash would (no cleanup, no buffers flushed), if PAMIR_FAULT
    names this point."""
    assert point in POINTS + SEND_POINTS + DIGEST_POINTS + LOCK_POINTS + LOBBY_POINTS, point
    if os.environ.get(FAULT_VARIABLE) == point:
        os._exit(FAULT_EXIT)
