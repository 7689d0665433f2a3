"""A player's reply address and page link, replaced; and mail to one that was replaced.

`renew` moves a player's credentials to their next generation (adjudicator/home/
credentials.py): the reply address and the private page link of every earlier message
stop working at once, and the player is sent the new ones, at the address game.toml has
for them now, in a message of their thread. The host does it with `pamir email` (a new
address: whoever held the old one may have the old links too) and `pamir revoke`; a
resignation replaces them too (games/resign.py), with no such message, as the seat is
no longer the player's.

`refuse_replaced` answers a message to a replaced reply address. Nothing in it is read
or played. Its sender is answered only when it is the address the game has for the
player now (they replied to an old message), and then at that address, at most once a
day, with nothing quoted back: whoever else writes to it, the holder of a former address
among them, gets no answer, so the refusal never tells them anything nor mails anyone on
their behalf.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from adjudicator.games.gamefile import GameFileError, PlayerEntry
from adjudicator.games.registry import open_game
from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.games.waiting import waiting
from adjudicator.home import credentials, store
from adjudicator.home.settings import Settings
from adjudicator.home.translations import words_for
from adjudicator.mail import outbox
from adjudicator.mail.compose.messages import compose, make_message_id, message_key
from adjudicator.mail.compose.reports import how_to_reply, web_pages
from adjudicator.mail.threads import thread_of

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Replaced:
    """What became of a message to a replaced reply address: the notice queued for the
    player (None: nobody is answered), and why, for the log."""

    game: str
    player: str
    notice: Path | None
    reason: str


def renew(settings: Settings, repo: GameRepo, player: str) -> int:
    """Replace `player`'s reply address and page link (the caller holds the game's lock);
    queue the new ones for them unless they resigned. Returns the new generation."""
    snap = snapshot(repo)
    entry = snap.game.player(player)
    fresh = credentials.revoke(store.of(settings), snap.game.id, entry.name)
    log.info("game %s: %s's reply address and page link replaced", snap.game.id, entry.name)
    if not entry.resigned:
        _tell_renewed(settings, repo, entry, fresh)
    return fresh


def _tell_renewed(settings: Settings, repo: GameRepo, entry: PlayerEntry, generation: int) -> Path:
    snap = snapshot(repo)
    game_id = snap.game.id
    words = words_for(entry.language)
    heading = words("your reply address and page link are new")
    said = words(
        "Your reply address and the link to your own page in this game were replaced by "
        "new ones: those in earlier messages no longer work. Reply to this message, or to "
        "any message from the game from now on; your own page's new link is below. If you "
        "did not expect this, tell the game's host."
    )
    pending = waiting(repo, snap.commit)
    decides = pending is not None and entry.name in pending.players
    how = how_to_reply(
        settings, game_id, entry.name, decides, pending is None, entry.plays_by, words
    )
    pages = web_pages(settings, game_id, entry.name, snap.adjudicated, words)
    text = f"# {game_id}: {heading}\n\n{said}\n\n{pages}\n\n{how}"
    subject = f"[{game_id}] " + words("Your reply address and page link are new")
    key = message_key(game_id, 0, entry.name, "credentials", f"g{generation}")
    return _queue(settings, repo, entry, subject, text, key)


def refuse_replaced(
    settings: Settings, game_id: str, player: str, sender: str, automatic: bool
) -> Replaced:
    """Answer a message to `player`'s replaced reply address in `game_id` from `sender`
    (see the module's docstring); nothing is committed."""
    try:
        repo = open_game(settings, game_id)
    except (GameError, RepoError):
        return Replaced(game_id, player, None, "a replaced reply address of an unknown game")
    try:
        entry = snapshot(repo).game.player(player)
        if automatic or sender.lower() != entry.email.lower():
            reason = (
                f"a replaced reply address of {entry.name} in {game_id}, from {sender}: "
                "not the player's address now, or an automatic message; not answered"
            )
            return Replaced(game_id, entry.name, None, reason)
        day = datetime.now(UTC).date().isoformat().replace("-", "")
        path = _tell_replaced(settings, repo, entry, day)
        reason = f"{entry.name} wrote to a replaced reply address; told to use the new one"
        return Replaced(game_id, entry.name, path, reason)
    except (GameError, GameFileError, KeyError) as error:
        return Replaced(game_id, player, None, f"a replaced reply address: {error}")
    finally:
        repo.repo.close()


def _tell_replaced(settings: Settings, repo: GameRepo, entry: PlayerEntry, day: str) -> Path:
    game_id = snapshot(repo).game.id
    key = message_key(game_id, 0, entry.name, "replaced-address", day)
    if (done := outbox.queued(settings, key)) is not None:
        return done  # one a day, whatever the number of messages
    words = words_for(entry.language)
    heading = words("your message was not read")
    said = words(
        "Your message went to a reply address of yours in this game that was replaced by a "
        "new one: nothing in it was read or played. Reply to this message instead, or to "
        "the newest message from the game: they carry your new address. If you did not "
        "expect your address to change, tell the game's host."
    )
    once = words("You get at most one such notice a day.")
    text = f"# {game_id}: {heading}\n\n{said}\n\n{once}\n"
    subject = f"[{game_id}] " + words("Your message went to a replaced reply address")
    return _queue(settings, repo, entry, subject, text, key)


def _queue(
    settings: Settings, repo: GameRepo, entry: PlayerEntry, subject: str, text: str, key: str
) -> Path:
    """Queue `text` to the player at their address now, in their thread of the game; its
    Reply-To is their reply address now (compose)."""
    snap = snapshot(repo)
    if (done := outbox.queued(settings, key)) is not None:
        return done
    thread = thread_of(settings, snap.game.id, entry.name)
    own = make_message_id(settings, snap.game.id, snap.next_number, entry.name, key)
    message = compose(
        settings,
        snap.game.id,
        entry.name,
        subject,
        text,
        thread_root=thread.get("root") or own,
        in_reply_to=thread.get("last"),
        number=snap.next_number,
        message_id=own,
        to=entry.email,
    )
    return outbox.queue(settings, message, key)
