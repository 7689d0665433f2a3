"""Which mail a reply answers, and whether the game has moved on since.

Every mail the service sends a player has a Message-ID `<GAME.NNNN.PLAYER.TOKEN@DOMAIN>`
(adjudicator/mail/compose/messages.py, `make_message_id`), where NNNN is the last adjudicated
move as the mail shows the game: the report of move N and the confirmation of move N
carry N; a refusal, a reminder, a digest, an answer to a command carry the move the game
was at when they were written. A mail program names the mail a reply answers in
`In-Reply-To` (else the last identifier of `References`). So a reply to one of this
game's mails to this player says which position its author was looking at (`answered`).

A reply that answers an earlier move than the game's last one was written for a
position that is gone: a move that happens to be legal now may mean something else now,
or be a decision the author no longer faces. It is refused (`stale`, with the code
`stale-reply`), as the private page's form refuses a form made before the last move,
unless the decision it answered is still the author's decision now (the same kind of
decision, the same prompt and the same legal actions for the author: a rollback request
or a refused pushed move came between, say) and its lines are valid for it.

A reply whose parent is not one of this game's mails to this player (a fresh message to
the reply address, a mail program that names no parent) is played as it stands. So is a
rollback request (`rollback N REASON`, `agree rollback`), which names what it answers.
"""

from __future__ import annotations

import logging
import re

import engine
from adjudicator.games.moves import apply_submission, resigns_to_end, rollback_request
from adjudicator.games.outputs import Refusal
from adjudicator.games.pipeline import position
from adjudicator.games.repo import REF, GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail.compose.messages import message_domain
from adjudicator.mail.envelope import Envelope
from engine.aliases import english_text
from engine.phrases import P

log = logging.getLogger(__name__)

OURS = re.compile(
    r"^<(?P<game>[^.<>@\s]+)\.(?P<number>\d{4,9})\.(?P<player>[^<>@\s]+)\.[0-9a-f]+@"
    r"(?P<domain>[^<>@\s]+)>$"
)

Decision = tuple[str, str, tuple[str, ...]]  # kind, prompt, the author's legal actions


def answered(settings: Settings, envelope: Envelope, game_id: str, player: str) -> int | None:
    """The move of the mail of this game to `player` that the reply answers (by its
    In-Reply-To, else its References), or None when it answers none of them."""
    parents = envelope.message_ids("In-Reply-To")[:1] or envelope.message_ids("References")[-1:]
    domain = message_domain(settings).lower()
    for parent in parents:
        found = OURS.match(parent.lower())
        if found is None or found.group("domain") != domain:
            continue
        if (found.group("game"), found.group("player")) == (game_id.lower(), player.lower()):
            return int(found.group("number"))
    return None


def stale(
    settings: Settings, repo: GameRepo, player: str, text: str, number: int | None
) -> Refusal | None:
    """The refusal of a reply to the mail of move `number` (None: it answers none) whose
    move was written for a position that is gone, or None when it may be played."""
    if number is None:
        return None
    snap = snapshot(repo)
    if number >= snap.adjudicated:
        return None  # the latest position (or a history this clone has not seen yet)
    try:
        text = english_text(text)
        if rollback_request(text) is not None:
            return None
        then = _position_after(settings, repo, number)
        asked = _decision(then, player) if then is not None else None
        now = _decision(position(snap, settings.home), player) if asked is not None else None
        if then is not None and asked is not None and asked == now:
            apply_submission(then, player, text, may_resign=resigns_to_end(snap.game, player))
            return None
    except engine.MoveError:
        pass  # not valid for the decision it answered
    except Exception as error:  # a position that cannot be had: the reply cannot be placed
        log.warning("the position after move %d of %s: %s", number, snap.game.id, error)
    return Refusal(
        "stale-reply",
        P(
            "this answers move %(answered)s; the game is at move %(now)s: moves were made "
            "since the mail you answered",
            answered=number,
            now=snap.adjudicated,
        ),
    )


def _position_after(settings: Settings, repo: GameRepo, number: int) -> engine.State | None:
    """The position after move `number` on the game branch, or None if no commit has it."""
    found = str(
        repo.repo.git.log("-1", "--format=%H", f"--grep=^Pamir-Move: {number}$", REF)
    ).split()
    if not found:
        return None
    return position(snapshot(repo, found[0]), settings.home)


def _decision(state: engine.State, player: str) -> Decision | None:
    """What `player` must decide in `state`, or None when nothing."""
    pending = engine.pending(state)
    if pending is None:
        return None
    try:
        seat = state.seat(player)
    except KeyError:
        return None
    if seat not in pending.seats:
        return None
    actions = sorted(
        engine.format_action(action)
        for name, action in engine.legal_actions(state)
        if name.lower() == player.lower()
    )
    return pending.kind, pending.prompt, tuple(actions)
