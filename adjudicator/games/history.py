"""`pamir log`: the history of a game's moves from its repository."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC

from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot


@dataclass(frozen=True)
class Entry:
    number: int | None  # None for a rollback by the service
    when: str
    who: str
    what: str
    status: str  # "", "undone" or "refused"


def history(repo: GameRepo) -> list[Entry]:
    """Every adjudicated move and rollback, oldest first."""
    snap = snapshot(repo)
    refused = set(snap.rollbacks.refused)
    undone = snap.rollbacks.undone - refused
    authors = {m.number: m.player for m in snap.moves}
    entries: list[Entry] = []
    for listed in repo.log():
        commit = repo.commit_info(listed.hexsha)  # read in this process, not by cat-file
        message = commit.message
        subject = message.splitlines()[0] if message else ""
        when = commit.committed.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        trailers = dict(
            line.split(": ", 1) for line in message.splitlines() if line.startswith("Pamir-")
        )
        if "Pamir-Move" in trailers:
            number = int(trailers["Pamir-Move"])
            who = authors.get(number, "adjudicator")
            what = subject.split(": ", 1)[1] if ": " in subject else subject
            status = "refused" if number in refused else "undone" if number in undone else ""
            entries.append(Entry(number, when, who, what, status))
        elif "Pamir-Rollback" in trailers:
            entries.append(Entry(None, when, "adjudicator", subject, ""))
    return entries


def format_entry(entry: Entry) -> str:
    number = f"{entry.number:04d}" if entry.number is not None else "----"
    mark = f" ({entry.status})" if entry.status else ""
    return f"{number}  {entry.when}  {entry.who:<12} {entry.what}{mark}"
