"""The forge as this process last reached it: for `/healthz` in PostgreSQL mode.

Every fetch from a game's forge (`remote.update`, from a webhook or the scheduler's poll)
records whether it worked. The health check reports the last one rather than contacting
the forge itself: a load balancer asks every few seconds, and a forge's rate limits are
better spent on moves.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


@dataclass(frozen=True)
class Contact:
    at: datetime
    game_id: str
    error: str | None  # None: the fetch worked


_last: Contact | None = None
_last_ok: datetime | None = None
_lock = threading.Lock()


def record(game_id: str, error: str | None = None) -> None:
    """Note a fetch from the game's forge: it worked, or why not."""
    global _last, _last_ok
    now = datetime.now(UTC)
    with _lock:
        _last = Contact(now, game_id, error)
        if error is None:
            _last_ok = now


def reachability() -> dict[str, Any]:
    """`{"status": "ok" | "unreachable" | "unknown", ...}`: the last fetch, when, of which
    game, and since when the forge has been failing."""
    with _lock:
        last, last_ok = _last, _last_ok
    if last is None:
        return {"status": "unknown"}
    found: dict[str, Any] = {
        "status": "ok" if last.error is None else "unreachable",
        "last_contact": last.at.isoformat(timespec="seconds"),
        "game": last.game_id,
    }
    if last.error is not None:
        found["error"] = last.error
        found["last_ok"] = last_ok.isoformat(timespec="seconds") if last_ok else None
    return found
