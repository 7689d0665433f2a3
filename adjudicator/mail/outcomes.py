"""What becomes of an inbound message once it is read and its sender checked
(`incoming.handle_message`): its outcome (`InboundResult`); a move submitted under the
game's lock, pushed to the game's forge, and answered from what the history then says; a
message not proven to come from its sender, or answering a position that is gone, refused;
a message delivered again given the outcome recorded for it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from adjudicator.forge import remote, transport
from adjudicator.forge.notices import Update
from adjudicator.games.outputs import Adjudication, Refusal
from adjudicator.games.pipeline import submit
from adjudicator.games.preview import Refused, preview, preview_text
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import backend, metrics
from adjudicator.home.settings import Settings
from adjudicator.home.translations import words_for
from adjudicator.mail import ledger, notices, outbox
from adjudicator.mail.compose.messages import message_key
from engine.phrases import P

log = logging.getLogger(__name__)

EXIT_IGNORED = 2

Status = Literal["accepted", "refused", "ignored"]


@dataclass
class InboundResult:
    """What became of an inbound message."""

    status: Status
    reason: str
    game: str | None = None
    player: str | None = None
    number: int | None = None  # the adjudicated move, when accepted
    messages: list[Path] = field(default_factory=list)  # outbox files queued in answer
    duplicate: bool = False  # ignored because this Message-ID was handled before

    @property
    def exit_status(self) -> int:
        """0 when handled (accepted, refused with a reply, or handled before), else 2."""
        return 0 if self.status != "ignored" or self.duplicate else EXIT_IGNORED


def push_to_forge(
    settings: Settings, repo: GameRepo, answered: tuple[str, str] | None
) -> Update | None:
    """A game hosted on a forge gets the emailed move, or the commit of a command or of
    public press, at once (the lock is held). Moves pushed meanwhile come first:
    `answered` (player, text), the emailed move, may then be dropped, and its author is
    answered by the caller."""
    if not remote.is_remote(repo):
        return None
    try:
        update = ledger.forge_update(settings, repo)
    except transport.RemoteError as error:  # the next webhook or poll pushes it
        log.warning("the move is adjudicated but not yet on the forge: %s", error)
        return None
    ledger.announce(settings, repo, update, answered=answered)
    return update


class ForgeUnavailable(RuntimeError):
    """PostgreSQL mode: an emailed move was committed in this node's clone but could not
    be pushed to the game's forge. The message is left to the mail server to send again:
    its author is told nothing yet, since the commit dies with the node if it dies first
    (docs/cluster.md). The next push, by this node or another, makes it count."""


def _on_forge_or_later(repo: GameRepo, game_id: str, done: Adjudication | None) -> None:
    """PostgreSQL mode: ForgeUnavailable when the move's commit is in this node's clone
    only (its push failed): nobody is told of a move that dies with the node."""
    tip = repo.ref(transport.TRACKING)
    if done is not None and (tip is None or not repo.is_ancestor(done.commit, tip)):
        raise ForgeUnavailable(f"the move is not on the forge of {game_id} yet")


def refuse_unauthenticated(
    settings: Settings, repo: GameRepo, player: str, reason: str, deliver_now: bool
) -> InboundResult:
    """Refuse a message whose sender is not proven: nothing is recorded or adjudicated,
    and the player is told at their own address (at most daily), never the message's
    sender or envelope sender, who may be anyone. Handled (exit status 0), so that the
    mail server does not bounce it to a forged sender either."""
    game_id = snapshot(repo).game.id
    metrics.inbound_refused("unauthenticated")
    log.warning("inbound mail for %s in %s refused, not authenticated: %s", player, game_id, reason)
    day = datetime.now(UTC).date().isoformat()
    path = notices.notify_unauthenticated(settings, repo, player, reason, day=day)
    if deliver_now:
        outbox.deliver(settings)
    return InboundResult(
        "refused", f"not authenticated: {reason}", game_id, player, messages=[path]
    )


def refuse_stale(
    settings: Settings, repo: GameRepo, game_id: str, player: str, key: str, refusal: Refusal
) -> InboundResult:
    """Refuse a reply written for a position that is gone (`staleness.stale`): nothing is
    submitted, and the author gets the refusal with their legal actions as they stand."""
    metrics.moves("mail", refused=1)
    reason = str(refusal)
    log.info("move by %s in %s (mail %s) refused: %s", player, game_id, key, reason)
    paths = ledger.refuse(settings, repo, game_id, key, reason, refusal.phrase)
    return InboundResult("refused", reason, game_id, player, messages=paths)


def handled_before(
    settings: Settings, repo: GameRepo, game_id: str, player: str, text: str, key: str
) -> InboundResult | None:
    """The outcome a message delivered before had (queuing its answer again, which does
    nothing if it is in the outbox already), or None when it must be adjudicated: it is
    new, or its move never landed (a crash before the commit)."""
    record = ledger.inbound_record(settings, game_id, key)
    if record is None:
        return None
    if not record:  # handled before records were kept
        log.info("inbound mail %s was handled before", key)
        result = InboundResult("ignored", "the message was handled before", game_id, player)
        result.duplicate = True
        return result
    clustered = backend.of(settings).several_nodes and remote.is_remote(repo)
    if clustered:
        # Another node may have handled it (two MX hosts, a mail server delivering again
        # to another node): its commits are on the forge, not yet in this clone, and the
        # answer is made from them. Or this clone holds the move unpushed.
        push_to_forge(settings, repo, None)
    if record.get("status") == "refused":
        reason = str(record.get("reason", ""))
        paths = ledger.refuse(settings, repo, game_id, key, reason)
        return InboundResult("refused", reason, game_id, player, messages=paths, duplicate=True)
    since = record.get("head")
    if record.get("status") == "accepted":
        done: Adjudication | None = Adjudication(record["number"], record["commit"], "")
    else:  # pending: the process died; its move landed if a commit says so
        done = ledger.committed_inbound(repo, key, since) or ledger.same_move_played(
            repo, player, text, since
        )
        if clustered:
            _on_forge_or_later(repo, game_id, done)
    if done is None:
        return None  # crashed before its commit: nothing changed, so adjudicate it now
    paths = ledger.reconcile(settings, repo) + ledger.confirm(settings, repo, game_id, key, done)
    log.info("inbound mail %s was handled before: move %d", key, done.number)
    return InboundResult(
        "accepted",
        f"move {done.number} adjudicated",
        game_id,
        player,
        done.number,
        paths,
        duplicate=True,
    )


def adjudicate(
    settings: Settings, repo: GameRepo, game_id: str, player: str, text: str, key: str
) -> InboundResult:
    """Submit the move (the game's lock is held and the message recorded as pending), then
    queue the answers from what the game's history now says. A game hosted on a forge is
    first brought up to it: a move pushed there that this clone has not seen yet (its
    webhook went to another node, or has not come) is played first, and this one is
    judged after it, never on a position already past."""
    push_to_forge(settings, repo, None)
    since = repo.head()
    try:
        submit(repo, player, text, home=settings.home, inbound=key)
    except (Refusal, GameError) as error:
        reason = str(error)
        phrase = error.phrase if isinstance(error, Refusal) else None
    else:
        reason, phrase = "", None  # (the stand-in played any resigned seat next: pipeline)
    update = push_to_forge(settings, repo, (player, text))
    if update is None and backend.of(settings).several_nodes and remote.is_remote(repo):
        _on_forge_or_later(repo, game_id, ledger.committed_inbound(repo, key, since))
    paths = ledger.reconcile(settings, repo)
    # A refused move may be the author's own move pushed to the forge just before: then
    # it is the same move, already played, and the author is told it was accepted.
    mine = ledger.committed_inbound(repo, key, since)
    done = mine or ledger.same_move_played(repo, player, text, since, at_since=bool(reason))
    if mine is not None:
        metrics.moves("mail", adjudicated=1)
    elif done is None:  # (else the same move pushed to the forge stands, counted there)
        metrics.moves("mail", refused=1)
    if done is not None:
        paths += ledger.confirm(settings, repo, game_id, key, done)
        log.info("move %d by %s in %s (mail %s) accepted", done.number, player, game_id, key)
        return InboundResult(
            "accepted", f"move {done.number} adjudicated", game_id, player, done.number, paths
        )
    if not reason and update is not None:
        # Committed here, then dropped by the forge update: the reason is its refusal.
        dropped = [r for r in update.refused if r.number is None and r.text == text]
        if dropped:
            reason, phrase = dropped[0].reason, dropped[0].phrase
        else:
            phrase = P("the move no longer applies after the moves pushed to the game's forge")
            reason = str(phrase)
    log.info("move by %s in %s (mail %s) refused: %s", player, game_id, key, reason)
    paths += ledger.refuse(settings, repo, game_id, key, reason, phrase)
    return InboundResult("refused", reason, game_id, player, messages=paths)


def answer_preview(
    settings: Settings,
    repo: GameRepo,
    player: str,
    text: str,
    key: str,
    reply: tuple[str | None, str | None],
) -> InboundResult:
    """Answer a reply that asks for a preview (`replytext.preview_asked`): what its move
    would do and the position after, in the author's language, to the author alone (it
    shows their hand). Nothing is committed or recorded: the reply address stays good and
    a later move with the same lines is played. Queued under the message's `key`, so the
    same message delivered twice is answered once. `reply`: its Message-ID and Subject."""
    game = snapshot(repo).game
    entry = game.player(player)
    words = words_for(entry.language)
    found = preview(repo, settings.home, entry.name, text)
    body = f"# {game.id}: " + words("preview of your move") + "\n\n" + preview_text(found, words)
    name = message_key(game.id, 0, entry.name, "preview", key)
    message_id, subject = reply
    path = notices.notify_answer(
        settings, repo, entry.name, body, key=name, in_reply_to=message_id, subject=subject
    )
    refused = isinstance(found, Refused)
    reason = str(found.refusal) if isinstance(found, Refused) else "previewed"
    log.info("preview for %s in %s (mail %s): %s", entry.name, game.id, key, reason)
    return InboundResult(
        "refused" if refused else "accepted", reason, game.id, entry.name, messages=[path]
    )
