"""`pamir log`: the history of a game's moves from its repository."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC

from adjudicator.games.outputs import refused_phrase
from adjudicator.games.repo import ADJUDICATOR, GameRepo
from adjudicator.games.snapshot import snapshot, state_record
from engine.phrases import Phrase


@dataclass(frozen=True)
class Entry:
    number: int | None  # None for a rollback by the service
    when: str
    who: str
    what: str
    status: str  # "", "undone" or "refused"
    said: Phrase | None = None  # a refused pushed move's `what` (its reason), as a phrase


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
            said = None
            # Only the service's own commits are read for it: a player's commit on a
            # forge may carry a trailer and any state.json.
            if status == "refused" and commit.committer.email.lower() == ADJUDICATOR.email:
                said = _refusal_said(repo, listed.hexsha, what)
            entries.append(Entry(number, when, who, what, status, said))
        elif "Pamir-Rollback" in trailers:
            entries.append(Entry(None, when, "adjudicator", subject, ""))
    return entries


def _refusal_said(repo: GameRepo, commit: str, what: str) -> Phrase | None:
    """The reason a refusal's commit gives (its subject's), as the phrase its state.json
    keeps, for pages in other languages; None when it keeps none that says `what`."""
    phrase = refused_phrase(state_record(repo, commit))
    return phrase if phrase is not None and str(phrase) == what else None


def format_entry(entry: Entry) -> str:
    number = f"{entry.number:04d}" if entry.number is not None else "----"
    mark = f" ({entry.status})" if entry.status else ""
    return f"{number}  {entry.when}  {entry.who:<12} {entry.what}{mark}"
