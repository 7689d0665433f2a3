"""Public press: the table talk players send to everyone, kept in the game's repository.

Pax Pamir is a game of negotiation ("Players are free to discuss the game during play and
explicitly coordinate their actions", Negotiation, p. 8), so what players say to all is
part of the game's public record: `press/NNNN.md`, one file a message, numbered from 1,
each added by an adjudicator's commit authored by its sender. Players cannot push these
(contract.py): press goes through the service, which relays and rate-limits it.
Private press (to one player) never enters the repository (mail/press.py).
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class PressMessage:
    """A press message as its file holds it: the front matter's fields, then the text."""

    number: int
    sender: str
    to: str  # a player's name, or `all`
    sent: str  # as the file says it: `2026-07-03T09:12:00Z`
    move: int  # the last adjudicated move when it was sent
    text: str

    @property
    def sent_text(self) -> str:
        """When it was sent, for a page: `2026-07-03 09:12 UTC`."""
        return self.sent.replace("T", " ")[:16] + " UTC"


def read_press_document(document: str) -> PressMessage | None:
    """A press file read back (press_document's format); None when it is not one."""
    head, marker, text = document.removeprefix("---\n").partition("\n---\n")
    if not marker or not document.startswith("---\n"):
        return None
    fields = dict(line.partition(": ")[::2] for line in head.splitlines())
    try:
        number, move = int(fields["number"]), int(fields["move"])
        sender, to, sent = fields["from"], fields["to"], fields["sent"]
    except (KeyError, ValueError):
        return None
    return PressMessage(number, sender, to, sent, move, text.strip())


def public_press(repo: GameRepo, commit: str | None = None) -> list[PressMessage]:
    """The game's public press at `commit` (the head when None), oldest first."""
    found = []
    for name in sorted(repo.names(PRESS_DIR, commit)):
        document = repo.read(f"{PRESS_DIR}/{name}", commit) if name.endswith(".md") else None
        message = None if document is None else read_press_document(document)
        if message is not None:
            found.append(message)
    return found


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
