"""Public press: the table talk players send to everyone, kept in the game's repository.

Pax Pamir is a game of negotiation ("Players are free to discuss the game during play and
explicitly coordinate their actions", Negotiation, p. 8), so what players say to all is
part of the game's public record: `press/NNNN.md`, one file a message, numbered from 1,
each added by an adjudicator's commit authored by its sender. Players cannot push these
(contract.py): press goes through the service, which relays and rate-limits it.
Private press (to one player) never enters the repository (mail/press.py).
"""

from __future__ import annotations

from datetime import UTC, datetime

from adjudicator.games.objects import Person
from adjudicator.games.outputs import INBOUND_TRAILER
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot

PRESS_DIR = "press"
PRESS_TRAILER = "Pamir-Press"


def press_document(number: int, sender: str, to: str, when: datetime, move: int, text: str) -> str:
    """A press file: a front matter of `key: value` lines between `---`, then the text
    as its sender wrote it (docs/game-repository.md#press)."""
    sent = when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    head = f"---\nnumber: {number}\nfrom: {sender}\nto: {to}\nsent: {sent}\nmove: {move}\n---\n"
    return f"{head}\n{text.strip()}\n"


def next_press_number(repo: GameRepo, commit: str | None = None) -> int:
    return len([n for n in repo.names(PRESS_DIR, commit) if n.endswith(".md")]) + 1


def commit_press(
    repo: GameRepo, sender: str, text: str, when: datetime, *, inbound: str | None = None
) -> tuple[int, str]:
    """Commit `sender`'s public press as the next `press/NNNN.md`; return its number and
    the commit. The caller holds the game's lock."""
    repo.sync_worktree()
    snap = snapshot(repo)
    entry = snap.game.player(sender)
    number = next_press_number(repo, snap.commit)
    document = press_document(number, entry.name, "all", when, snap.adjudicated, text)
    message = f"Press {number} by {entry.name}\n\n{PRESS_TRAILER}: {number}\n"
    if inbound is not None:
        message += f"{INBOUND_TRAILER}: {inbound}\n"
    made = repo.commit(
        {f"{PRESS_DIR}/{number:04d}.md": document.encode()},
        message,
        parent=snap.commit,
        author=Person(entry.name, entry.email),
        when=when,
    )
    return number, made
