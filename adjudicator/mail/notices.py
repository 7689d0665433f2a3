"""The mails that answer one player, and the notices to several: a refused move, a
confirmation, the answer to a command by mail, mail from an unknown sender, a notice to
every player (`notify_all`) or to some (`notify_players`). Each is composed
(adjudicator/mail/compose/), put in the reader's thread and queued in the outbox, most
under a key (`message_key`), so that queuing it again after a crash does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

from adjudicator.games import continuations
from adjudicator.games.codes import explained_codes
from adjudicator.games.continuations import kept_phrase
from adjudicator.games.outputs import (
    Adjudication,
)
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words, words_for
from adjudicator.mail.compose.messages import (
    compose,
    make_message_id,
    message_key,
    one_line,
    subject_for,
)
from adjudicator.mail.compose.reports import is_over, private_section, public_view
from adjudicator.mail.outbox import deliver, queue, queue_many, queued
from adjudicator.mail.threads import locked_threads, thread_of
from engine.phrases import Phrase


def _reply_headers(
    settings: Settings, game_id: str, player: str, in_reply_to: str | None, subject: str | None
) -> tuple[str, str, str | None]:
    """Subject, thread root and parent for an answer to a player's own message."""
    thread = thread_of(settings, game_id, player)
    subject, in_reply_to = one_line(subject), one_line(in_reply_to)
    subject = subject or subject_for(game_id)
    if not subject.lower().startswith("re:"):
        subject = f"Re: {subject}"
    root = thread.get("root") or in_reply_to
    return subject, root or "", in_reply_to


def _answer(
    settings: Settings,
    repo: GameRepo,
    player: str,
    markdown_text: str,
    number: int,
    in_reply_to: str | None,
    subject: str | None,
    deliver_now: bool,
    key: str | None = None,
) -> Path:
    game = snapshot(repo).game
    entry = game.player(player)
    if key is not None and (done := queued(settings, key)) is not None:
        return done
    subject, root, parent = _reply_headers(settings, game.id, entry.name, in_reply_to, subject)
    own = make_message_id(settings, game.id, number, entry.name, key)
    message = compose(
        settings,
        game.id,
        entry.name,
        subject,
        markdown_text,
        thread_root=root or own,
        in_reply_to=parent,
        number=number,
        message_id=own,
        to=entry.email,
    )
    path = queue(settings, message, key)
    if deliver_now:
        deliver(settings)
    return path


def _numbered(text: str) -> str:
    lines = text.splitlines() or [""]
    return "\n".join(f"{n:>3}  {line}" for n, line in enumerate(lines, start=1))


QUOTED_LINES = 200  # of a refused move, quoted back: a move file too large is cut here


def _quotable(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= QUOTED_LINES and len(text) <= QUOTED_LINES * 100:
        return text
    kept = "\n".join(line[:100] for line in lines[:QUOTED_LINES])
    return kept + f"\n[... {len(text)} characters in all; the rest is not quoted]"


def notify_refusal(
    settings: Settings,
    repo: GameRepo,
    player: str,
    submitted_text: str,
    message: str,
    *,
    phrase: Phrase | None = None,
    in_reply_to: str | None = None,
    subject: str | None = None,
    deliver_now: bool = True,
    at: str | None = None,
    key: str | None = None,
) -> Path:
    """Tell the author of a move that it was refused: the refusal line by line (as the
    engine words it: `line N: CODE: message ... legal now: ...`, in the author's language
    when `phrase` says `message` so), what was read, and their private section as it
    stands (at commit `at`: by default the tip). `key`: as for `queue`."""
    snap = snapshot(repo, at)
    entry = snap.game.player(player)
    words = words_for(entry.language)
    said = words.said(phrase) if phrase is not None and str(phrase) == message else message
    refusal = "\n".join(f"    {line}" for line in said.splitlines())
    parts = [
        f"# {snap.game.id}: " + words("your move was not accepted"),
        words("Nothing was changed in the game. The adjudicator says:"),
        refusal,
        *explained_codes(message, words),
        words("Your move as it was read from your message (line numbers as counted above):"),
        "```text\n" + _numbered(_quotable(submitted_text)) + "\n```",
    ]
    over = is_over(public_view(repo, snap.commit)) if snap.commit else False
    parts.append(
        words("The game is over: no move can be made any more.")
        if over
        else words("Reply to this message with the corrected move: your actions, one a line.")
    )
    section = private_section(settings, snap.game.id, snap.adjudicated, entry.name)
    if section:
        parts.append(section.rstrip("\n"))
    text = "\n\n".join(parts) + "\n"
    return _answer(
        settings, repo, entry.name, text, snap.adjudicated, in_reply_to, subject, deliver_now, key
    )


def notify_unauthenticated(
    settings: Settings, repo: GameRepo, player: str, reason: str, *, day: str
) -> Path:
    """Tell a player, at the address game.toml has for them, that a message in their
    name was refused for want of authentication. One notice a day (`day`, as YYYY-MM-DD)
    per game and player, whatever the number of messages: forged mail cannot make the
    service mail anyone else, nor mail the player more than that. The forged message's
    subject and text are not repeated, so the notice carries nothing its sender wrote."""
    snap = snapshot(repo)
    entry = snap.game.player(player)
    key = message_key(snap.game.id, 0, entry.name, "unauthenticated", day.replace("-", ""))
    if (done := queued(settings, key)) is not None:
        return done
    words = words_for(entry.language)
    refused = words("a message in your name was refused")
    why = words(
        "A message to your reply address, with your address as its sender, was not "
        "played: it could not be proven to come from your mail provider "
        "(`mail_auth = %(mode)s`). The reason:",
        mode=settings.mail_auth,
    )
    advice = words(
        "Nothing was changed in the game. If you sent it, your mail provider may not sign "
        "its mail (DKIM): tell the game's host. If you did not, someone knows your reply "
        "address and wrote in your name: tell the game's host."
    )
    once = words("You get at most one such notice a day.")
    text = (
        f"# {snap.game.id}: {refused}\n\n{why}\n\n"
        f"    {(one_line(reason) or '')[:500]}\n\n{advice}\n\n{once}\n"
    )
    thread = thread_of(settings, snap.game.id, entry.name)
    own = make_message_id(settings, snap.game.id, snap.adjudicated, entry.name, key)
    message = compose(
        settings,
        snap.game.id,
        entry.name,
        f"[{snap.game.id}] " + words("A message in your name was refused"),
        text,
        thread_root=thread.get("root") or own,
        in_reply_to=thread.get("last"),
        number=snap.adjudicated,
        message_id=own,
        to=entry.email,
    )
    return queue(settings, message, key)


def notify_all(settings: Settings, repo: GameRepo, said: Callable[[Words], str]) -> list[Path]:
    """Queue one notice to every player (tampering put back, a game held), in each
    player's thread and language (`said(words)` is its Markdown), with the addresses of
    game.toml at the service's own tip."""
    snap = snapshot(repo)
    written: list[Path] = []
    with locked_threads(settings, snap.game.id) as threads:
        for entry in snap.game.players:
            key = entry.name.lower()
            own = make_message_id(settings, snap.game.id, snap.adjudicated, key)
            thread = threads.get(key, {})
            root = thread.get("root", own)
            words = words_for(entry.language)
            message = compose(
                settings,
                snap.game.id,
                entry.name,
                words("Pax Pamir game %(game)s", game=snap.game.id),
                said(words),
                thread_root=root,
                in_reply_to=thread.get("last"),
                number=snap.adjudicated,
                message_id=own,
                to=entry.email,
            )
            written.append(queue(settings, message))
            threads[key] = {"root": root, "last": own}
    return written


def notify_confirmation(
    settings: Settings,
    repo: GameRepo,
    player: str,
    submitted_text: str,
    result: Adjudication,
    *,
    in_reply_to: str | None = None,
    subject: str | None = None,
    deliver_now: bool = True,
    key: str | None = None,
) -> Path:
    """Tell the author of a move, in their language, that it was accepted (the report
    follows separately)."""
    game = snapshot(repo, result.commit).game
    entry = game.player(player)
    words = words_for(entry.language)
    number, commit = result.number, result.commit[:10]
    text = (
        f"# {game.id}: "
        + words("move %(number)s accepted", number=number)
        + "\n\n"
        + words(
            "Your move was adjudicated as move %(number)s (commit %(commit)s). Every player "
            "gets the report in the game's thread, at once or in their daily digest (as each "
            "chose).",
            number=number,
            commit=commit,
        )
        + "\n\n"
        + words("Your move as it was read from your message:")
        + "\n\n```text\n"
        + _numbered(submitted_text)
        + "\n```\n"
    )
    waiting = continuations.kept(settings.home, game.id).get(entry.name.lower())
    if waiting is not None and waiting.after == number:
        text += "\n" + words.phrase(kept_phrase(waiting.lines, waiting.waits_for)) + "\n"
    return _answer(
        settings, repo, entry.name, text, result.number, in_reply_to, subject, deliver_now, key
    )


def notify_answer(
    settings: Settings,
    repo: GameRepo,
    player: str,
    markdown_text: str,
    *,
    key: str,
    in_reply_to: str | None,
    subject: str | None,
) -> Path:
    """Queue the answer to a player's own message (a command by mail, a press message
    sent), in their thread; `key` (see `message_key`) makes queuing it twice a no-op."""
    number = snapshot(repo).adjudicated
    return _answer(settings, repo, player, markdown_text, number, in_reply_to, subject, False, key)


def notify_players(
    settings: Settings,
    repo: GameRepo,
    players: list[str],
    subject: str,
    markdown_text: str,
    *,
    kind: str,
    ref: str,
    number: int | None = None,
) -> list[Path]:
    """Queue one message to each of `players`, in each one's thread, under keys made of
    `kind`, `ref` and `number` (by default the last adjudicated move's; queuing them again
    is a no-op); their Message-IDs name the last adjudicated move all the same. Only
    what `markdown_text` says goes out: no other player's address, as every message goes
    to one recipient."""
    snap = snapshot(repo)
    number = snap.adjudicated if number is None else number
    written: list[Path] = []
    with locked_threads(settings, snap.game.id) as threads:
        batch: list[tuple[EmailMessage, str]] = []
        slots: list[int] = []  # where each of the batch goes among the files returned
        for name in players:
            entry = snap.game.player(name)
            key = message_key(snap.game.id, number, entry.name, kind, ref)
            if (done := queued(settings, key)) is not None:
                written.append(done)
                continue
            # The Message-ID (and X-Pamir-Move) name the game's move, whatever the key's.
            own = make_message_id(settings, snap.game.id, snap.adjudicated, entry.name, key)
            thread = threads.get(entry.name.lower(), {})
            root = thread.get("root", own)
            message = compose(
                settings,
                snap.game.id,
                entry.name,
                subject,
                markdown_text,
                thread_root=root,
                in_reply_to=thread.get("last"),
                number=snap.adjudicated,
                message_id=own,
                to=entry.email,
            )
            slots.append(len(written) + len(batch))
            batch.append((message, key))
            threads[entry.name.lower()] = {"root": root, "last": own}
        for slot, path in zip(slots, queue_many(settings, batch), strict=True):
            written.insert(slot, path)
    return written
