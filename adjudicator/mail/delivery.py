"""Which report mails go to a player at once, and which wait for their daily digest.

A player chooses (`settings notify`, `pamir notify`; adjudicator.mail.preferences):

- `per-turn` (the default): one report a completed turn. A report that neither asks the
  player to decide nor ends a turn waits, and goes with the next one that does, in one
  mail: a turn of several moves (a bribe asked and answered on the way, a follow-up sent
  apart) is one mail to each player who only watched it;
- `every`: every report, at once;
- `turns`: at once, the reports a player must see to act or that answer what they did;
  every other report waits for the daily digest;
- `digest`: at once, only the reports a player must see to act; everything else,
  the reports of their own accepted moves included, waits for the daily digest.

Whatever the choice, these go at once (docs/email.md#how-much-mail): a report that asks
the player to decide (their turn, a follow-up, a bribe or discard asked of them), the
report of their own move that was refused, every report of a rollback (a proposal to
answer, an agreement, or a rollback done, which changes the position), and the game's
end. Answers to a player's own messages (confirmations, refusals, commands, press) and
reminders never go through this choice: they always go.

A report held for the end of its turn is recorded in `PAMIR_HOME/mail/turns/GAME.json`
({player: [[number, commit], ...]}) until the mail that ends the turn takes it along.

A report held back for a digest is recorded in `PAMIR_HOME/mail/digests/GAME.json`
({player: {"held": [[number, commit, time], ...], ...}}), which adjudicator.mail.digests
empties once a day.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from adjudicator.home import locks, store
from adjudicator.home.records import RECORD_CONFIG, IsoDay, IsoTime, RecordKind
from adjudicator.home.settings import Settings
from adjudicator.home.translations import N_

# What each choice means, in the words of the answer to it.
MEANING = {
    "per-turn": N_(
        "You get one mail a turn: the reports of a turn come together when it ends, and at "
        "once whatever asks you to decide."
    ),
    "every": N_("Every report is mailed to you at once."),
    "turns": N_(
        "You get at once the reports that ask you to decide, those of your own moves, "
        "rollbacks and the game's end; the others come in one digest a day."
    ),
    "digest": N_(
        "You get at once only the reports that ask you to decide, your refused moves, "
        "rollbacks and the game's end; the others come in one digest a day."
    ),
}


Record = dict[str, dict[str, Any]]  # {player: {"held": [...], "last_day": ..., "plan": ...}}
Held = tuple[int, str, IsoTime]  # a report kept: its move's number, its commit, when made


class Plan(BaseModel):
    """The digest being sent: its day and the reports it covers."""

    model_config = RECORD_CONFIG

    day: IsoDay
    held: list[Held]


class Kept(BaseModel):
    """A player's part of the digest record; the fields a player has not used yet are not
    in it."""

    model_config = RECORD_CONFIG

    held: list[Held] = []
    last_day: IsoDay | None = None  # the last day whose digest was sent
    plan: Plan | None = None


DIGESTS: RecordKind[dict[str, Kept]] = RecordKind("a digest record", dict[str, Kept])


def mailed_at_once(
    preference: str,
    *,
    decides: bool,
    over: bool,
    rollback: bool,
    own: bool,
    refused: bool,
    ends_turn: bool = True,
) -> bool:
    """Whether a report goes to this player now (True) or waits (False): for the end of
    the turn (`per-turn`), else for their digest.

    `decides`: the report asks them to decide; `over`: the game ended; `rollback`: the
    report is a rollback's; `own`: it reports their own move; `refused`: that move was
    refused; `ends_turn`: the move ended a turn (another player's turn, or the game's
    setup, began)."""
    if preference == "every" or decides or over or rollback or (own and refused):
        return True
    if preference == "per-turn":
        return ends_turn
    return preference == "turns" and own


FOLDER = "mail/digests"


def _folder(settings: Settings) -> Path:
    path = settings.home / FOLDER
    path.mkdir(parents=True, exist_ok=True)
    return path


def games_with_digests(settings: Settings) -> list[str]:
    """The games that have (or had) reports held for a digest."""
    names = store.of(settings).names(FOLDER)
    return sorted(n.rsplit("/", 1)[-1].removesuffix(".json") for n in names if n.endswith(".json"))


@contextmanager
def digest_record(settings: Settings, game_id: str) -> Iterator[Record]:
    """The game's digest record, locked across processes (and nodes: an advisory lock in
    PostgreSQL mode); written back whole when the block ends without an error."""
    lock = _folder(settings) / f"{game_id}.lock"
    name, records = f"{FOLDER}/{game_id}.json", store.of(settings)
    with locks.exclusive(settings, f"digests:{game_id}", lock):
        found = DIGESTS.read(records, name)
        # As plain data, once checked: the digest's steps change it in place (digests.py).
        record: Record = {} if found is None else DIGESTS.plain(found)
        yield record
        store.write_json(records, name, record)


def hold(settings: Settings, game_id: str, player: str, number: int, commit: str, at: str) -> None:
    """Keep move `number`'s report (of `commit`, made at `at`, ISO 8601) for the player's
    next digest; holding it again changes nothing."""
    with digest_record(settings, game_id) as record:
        entry = record.setdefault(player.lower(), {})
        held: list[list[Any]] = entry.setdefault("held", [])
        if all(item[1] != commit for item in held):
            held.append([number, commit, at])


TURNS_FOLDER = "mail/turns"
HELD_FOR_TURN: RecordKind[dict[str, list[tuple[int, str]]]] = RecordKind(
    "a record of reports held for the end of their turn", dict[str, list[tuple[int, str]]]
)


@contextmanager
def _turn_record(settings: Settings, game_id: str) -> Iterator[dict[str, list[tuple[int, str]]]]:
    folder = settings.home / TURNS_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    name, records = f"{TURNS_FOLDER}/{game_id}.json", store.of(settings)
    with locks.exclusive(settings, f"turns:{game_id}", folder / f"{game_id}.lock"):
        record = HELD_FOR_TURN.read(records, name) or {}
        yield record
        HELD_FOR_TURN.write(records, name, record)


def hold_for_turn(settings: Settings, game_id: str, player: str, number: int, commit: str) -> None:
    """Keep move `number`'s report (of `commit`) for the player's mail that ends the turn;
    holding it again changes nothing."""
    with _turn_record(settings, game_id) as record:
        held = record.setdefault(player.lower(), [])
        if all(found != commit for _, found in held):
            held.append((number, commit))


def held_for_turn(
    settings: Settings, game_id: str, player: str, before: int
) -> list[tuple[int, str]]:
    """The reports held for the player's next mail, of moves before `before`, in order."""
    name = f"{TURNS_FOLDER}/{game_id}.json"
    record = HELD_FOR_TURN.read(store.of(settings), name) or {}
    return sorted(item for item in record.get(player.lower(), []) if item[0] < before)


def release_turn(settings: Settings, game_id: str, player: str, upto: int) -> None:
    """Forget the reports held for the player up to move `upto`: a mail took them along."""
    with _turn_record(settings, game_id) as record:
        kept = [item for item in record.get(player.lower(), []) if item[0] > upto]
        if kept:
            record[player.lower()] = kept
        else:
            record.pop(player.lower(), None)
