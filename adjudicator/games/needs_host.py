"""Games that need their host: marks in PAMIR_HOME/needs-host/ID.json.

A game the service cannot read (a file where `moves/` belongs, a game.toml that is not
TOML, ...) is marked instead of failing whatever touched it, so that everything else goes
on: the index lists it with a mark, its page says why, the scheduler leaves it alone and
the operator is mailed once per game and reason (docs/web.md, docs/scheduler.md).

A mark records the reason, when it was first seen, the commit at which the game failed and
the reason the operator was last mailed about. It is cleared when the game reads again at
another commit (the host or a player repaired it), or when work on the game succeeds.
The marks are the service's own records (adjudicator/home/store.py: files, or rows in
PostgreSQL mode), never part of a game repository.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ConfigDict

from adjudicator.home import locks, store
from adjudicator.home.records import RecordKind
from adjudicator.home.settings import Settings
from adjudicator.home.store import StoreError

FOLDER = "needs-host"


@dataclass(frozen=True)
class Mark:
    """Why a game needs its host, since when, and what the operator was told."""

    game: str
    reason: str
    first_seen: str  # ISO 8601, UTC: when this reason was first seen
    commit: str | None = None  # the game's tip when it failed
    mailed: str | None = None  # the reason the operator was mailed about

    __pydantic_config__ = ConfigDict(extra="forbid")  # read as a record: MARK below


# The record is the mark's fields, every one written (null when not known).
MARK: RecordKind[Mark] = RecordKind("a needs-host mark", Mark)


def _folder(home: Path) -> Path:
    return home / FOLDER


def _name(game_id: str) -> str:
    return f"{FOLDER}/{game_id}.json"


@contextmanager
def _locked(settings: Settings) -> Iterator[None]:
    """One writer at a time across threads and processes (web workers, the scheduler),
    and across the nodes in PostgreSQL mode (the database's lock `needs-host`)."""
    folder = _folder(settings.home)
    folder.mkdir(parents=True, exist_ok=True)
    with locks.exclusive(settings, "needs-host", folder / ".lock"):
        yield


def _read(home: Path, name: str) -> Mark | None:
    try:
        return MARK.read(store.store_for(home), name)
    except (OSError, ValueError, StoreError):
        # Deliberately none, not an error: a mark is only a note about a game that is
        # broken already (half of a hand edit, say), and the next failure writes it again.
        return None


def _write(home: Path, mark: Mark) -> None:
    MARK.write(store.store_for(home), _name(mark.game), mark)


def marked(home: Path, game_id: str) -> Mark | None:
    """The game's mark, or None when it does not need its host."""
    return _read(home, _name(game_id))


def every_mark(home: Path) -> list[Mark]:
    """Every game that needs its host, by id."""
    names = [n for n in store.store_for(home).names(FOLDER) if n.endswith(".json")]
    marks = (_read(home, name) for name in names)
    return [m for m in marks if m is not None]


def mark(settings: Settings, game_id: str, reason: str, commit: str | None = None) -> bool:
    """Mark the game as needing its host; True when this reason is new for it (the
    caller logs it then, and only then)."""
    home = settings.home
    with _locked(settings):
        old = marked(home, game_id)
        if old is not None and old.reason == reason:
            if old.commit != commit:
                _write(home, replace(old, commit=commit))
            return False
        first_seen = datetime.now(UTC).isoformat(timespec="seconds")
        mailed = old.mailed if old is not None else None
        _write(home, Mark(game_id, reason, first_seen, commit, mailed))
        return True


def clear(settings: Settings, game_id: str, *, unless_at: str | None = None) -> bool:
    """Remove the game's mark (the game works again); True if there was one.

    With `unless_at`, a mark made at that commit stays: the game failed there in a way a
    quick read does not see (a move that does not replay, say), and still would.
    """
    home = settings.home
    records = store.of(settings)
    if records.read(_name(game_id)) is None:  # the usual case, without taking the lock
        return False
    with _locked(settings):
        old = marked(home, game_id)
        if old is not None and unless_at is not None and old.commit == unless_at:
            return False
        records.delete(_name(game_id))
        return old is not None


def tell_operator(settings: Settings, send: Callable[[Mark], None]) -> list[str]:
    """Call `send` for each mark whose reason the operator has not been told yet, and
    record that it was; return the games told about. Each game and reason is sent once."""
    home = settings.home
    told: list[str] = []
    if not every_mark(home):
        return told  # the usual case, without taking the lock
    with _locked(settings):
        for each in every_mark(home):
            if each.mailed == each.reason:
                continue
            send(each)
            _write(home, replace(each, mailed=each.reason))
            told.append(each.game)
    return told
