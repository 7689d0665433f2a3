"""What the lobby keeps: one record per pending game, `lobby/games/NAME.json` in the
service's store, holding who created it, whom it invites, who answered what and when.

Every change to a record is made holding the lobby's one lock (`lobby_lock`) and written
whole, so that a crash leaves the record as it was before the change or after it. The
record stays once its game is made or cancelled: it is the host's log of who did what
(`pamir games --pending` lists it, docs/lobby.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from adjudicator.home import locks, store
from adjudicator.home.records import IsoTime, RecordKind
from adjudicator.home.settings import Settings

FOLDER = "lobby/games"
SEAT_ID_LENGTH = 12  # hex digits: the seat's part of its reply address

SeatStatus = Literal["creator", "invited", "accepted", "declined", "expired"]
GameStatus = Literal["pending", "creating", "created", "cancelled"]
OPEN: tuple[SeatStatus, ...] = ("invited",)
GONE: tuple[SeatStatus, ...] = ("declined", "expired")


class Seat(BaseModel):
    """One party of a pending game: its creator or one invitation."""

    model_config = ConfigDict(extra="allow")  # a later version's keys are kept

    id: str  # SEAT_ID_LENGTH hex digits, in the seat's reply address
    address: str  # lower case
    name: str | None = None  # the player's name; an invitee may choose it on accepting
    language: str = "en"
    status: SeatStatus
    since: IsoTime  # when the seat came to its status


class Entry(BaseModel):
    """A line of the game's log: when, who (an address), what."""

    model_config = ConfigDict(extra="allow")  # a later version's keys are kept

    at: IsoTime
    by: str
    did: str


class Pending(BaseModel):
    """A game of the lobby, from its `new game` mail until it is made or cancelled."""

    model_config = ConfigDict(extra="allow")  # a later version's keys are kept

    name: str
    status: GameStatus = "pending"
    created: IsoTime
    turn_hours: int = 48
    wakhan: bool = False
    seats: list[Seat]
    started: bool = False  # the creator said `start`: play without those who are gone
    open: bool = False  # among the open games, which anyone may join (`join NAME`)
    log: list[Entry] = []
    mails: list[str] = []  # the keys of the inbound messages it took (ledger.inbound_key)

    @property
    def creator(self) -> Seat:
        return self.seats[0]

    @property
    def invited(self) -> list[Seat]:
        return self.seats[1:]

    def seat(self, seat_id: str) -> Seat | None:
        return next((s for s in self.seats if s.id == seat_id), None)

    def players(self) -> list[Seat]:
        """The seats that play when the game is made: the creator and who accepted."""
        return [s for s in self.seats if s.status in ("creator", "accepted")]

    def is_ready(self) -> bool:
        """Everybody invited has accepted (or, once the creator said `start`, nobody is
        left to answer; an open game: once the creator said `start`, or it is full): the
        game can be made."""
        if self.status not in ("pending", "creating") or not self.invited:
            return False
        if any(s.status in OPEN for s in self.invited):
            return False
        if self.open:  # who joins is not known beforehand: the creator says when
            return self.started
        return self.started or all(s.status == "accepted" for s in self.invited)

    def note(self, by: str, did: str, when: datetime) -> None:
        self.log.append(Entry(at=stamp(when), by=by, did=did))


KIND: RecordKind[Pending] = RecordKind("a pending game of the lobby", Pending)


def stamp(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="seconds")


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def new_seat_id() -> str:
    return secrets.token_hex(SEAT_ID_LENGTH // 2)


def record_name(name: str) -> str:
    return f"{FOLDER}/{name}.json"


def read(settings: Settings, name: str) -> Pending | None:
    return KIND.read(store.of(settings), record_name(name))


def write(settings: Settings, pending: Pending) -> None:
    # Every field, not only those set when it was made (RecordKind.dump's way): the log and
    # the mails taken grow by appending, which pydantic does not count as setting them.
    text = pending.model_dump_json(indent=2) + "\n"
    store.of(settings).write(record_name(pending.name), text.encode("utf-8"))


def every(settings: Settings) -> list[Pending]:
    """Every game the lobby has had, by name."""
    records = store.of(settings)
    found = (KIND.read(records, name) for name in records.names(FOLDER) if name.endswith(".json"))
    return [p for p in found if p is not None]


def is_live(pending: Pending) -> bool:
    return pending.status in ("pending", "creating")


def by_seat(settings: Settings, seat_id: str) -> Pending | None:
    """The game that has the seat `seat_id`, made or not."""
    return next((p for p in every(settings) if p.seat(seat_id) is not None), None)


def count_created_since(settings: Settings, address: str, since: datetime) -> int:
    """The `new game` mails of `address` accepted since `since` (for the daily limit)."""
    return sum(
        1
        for p in every(settings)
        if p.creator.address == address and parse_time(p.created) >= since
    )


def count_open_invitations(settings: Settings) -> int:
    """The invitations of every live game not answered yet (capped by the settings)."""
    live = [p for p in every(settings) if is_live(p)]
    return sum(1 for p in live for s in p.invited if s.status in OPEN)


def count_live_games_of(settings: Settings, address: str) -> int:
    """The live pending games `address` has a seat in that is not gone."""
    return sum(
        1
        for p in every(settings)
        if is_live(p) and any(s.address == address and s.status not in GONE for s in p.seats)
    )


def day_before(when: datetime) -> datetime:
    return when - timedelta(days=1)


@contextmanager
def lobby_lock(settings: Settings) -> Iterator[None]:
    """The lobby's one lock: every change to its records, and the making of its games."""
    folder = settings.home / "lobby"
    folder.mkdir(parents=True, exist_ok=True)
    with locks.exclusive(settings, "lobby", folder / "lobby.lock"):
        yield
