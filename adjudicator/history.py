"""`pamir log`: the history of a game's moves from its repository."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC

from adjudicator.game import snapshot
from adjudicator.repo import GameRepo


@dataclass(frozen=True)
class Entry:
    number: int | None  # None for a rollback by the service
    when: str
    who: str
    what: str
    undone: bool


def history(repo: GameRepo) -> list[Entry]:
    """Every adjudicated move and rollback, oldest first."""
    snap = snapshot(repo)
    undone = snap.rollbacks.undone
    authors = {m.number: m.player for m in snap.moves}
    entries: list[Entry] = []
    for commit in repo.log():
        message = commit.message if isinstance(commit.message, str) else commit.message.decode()
        subject = message.splitlines()[0]
        when = commit.committed_datetime.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        trailers = dict(
            line.split(": ", 1) for line in message.splitlines() if line.startswith("Pamir-")
        )
        if "Pamir-Move" in trailers:
            number = int(trailers["Pamir-Move"])
            who = authors.get(number, "adjudicator")
            what = subject.split(": ", 1)[1] if ": " in subject else subject
            entries.append(Entry(number, when, who, what, number in undone))
        elif "Pamir-Rollback" in trailers:
            entries.append(Entry(None, when, "adjudicator", subject, False))
    return entries


def format_entry(entry: Entry) -> str:
    number = f"{entry.number:04d}" if entry.number is not None else "----"
    mark = " (undone)" if entry.undone else ""
    return f"{number}  {entry.when}  {entry.who:<12} {entry.what}{mark}"
