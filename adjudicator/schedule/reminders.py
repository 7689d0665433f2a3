"""Reminders: a message to each player who must decide, `reminder_hours` before the deadline.

The message is composed here and queued in the outbox (`PAMIR_HOME/outbox/pending/*.eml`,
a temporary file renamed into place), where `adjudicator.mail.outbox.deliver` picks it
up. A reminder is sent once per decision and deadline: the key of the last one sent for
each game is kept in `PAMIR_HOME/scheduler/reminded/GAME`, never in the game repository (a
reminder changes no deadline).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path

import engine
from adjudicator.games.deadlines import local_text, zone
from adjudicator.games.pipeline import position
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import store
from adjudicator.home.settings import Settings
from adjudicator.home.translations import SOURCE, Words, words_for
from adjudicator.mail import outbox, tokens
from adjudicator.mail.compose.messages import MAIL_POLICY, list_headers, make_message_id
from adjudicator.mail.outbox.common import DEADLINE_HEADER
from adjudicator.mail.threads import thread_of
from adjudicator.schedule.clock import Waiting, default_lines, waiting
from adjudicator.schedule.turnmail import mail_clock

log = logging.getLogger(__name__)


def reminder_key(pending: Waiting) -> str:
    """One reminder per decision and deadline (a pause that moves it earns another)."""
    clock = pending.clock
    return f"{pending.move} {clock.started.isoformat()} {clock.deadline.isoformat()}"


def _marker(game_id: str) -> str:
    return f"scheduler/reminded/{game_id}"


def already_reminded(settings: Settings, pending: Waiting) -> bool:
    data = store.of(settings).read(_marker(pending.game_id))
    return data is not None and data.decode("utf-8").strip() == reminder_key(pending)


def _defaults_text(home: Path, repo: GameRepo, player: str, words: Words) -> str | None:
    """What the adjudicator will play for `player` at the deadline, or None if unknown."""
    try:
        state = position(snapshot(repo), home)
        lines = default_lines(state, state.seat(player))
    except (GameError, KeyError):
        return None
    if words.language != SOURCE:  # the notation, quoted, in a sentence of another language
        lines = [f"`{line}`" for line in lines]
    return "; ".join(lines) or None


def _timeout_text(home: Path, repo: GameRepo, player: str, words: Words) -> str | None:
    """What really happens at the deadline, as game.toml's `on_timeout` says."""
    if snapshot(repo).game.deadlines.on_timeout == "standin":
        # The stand-in plays the seat with its loyalty (buys, plays, taxes...): naming
        # the default here would promise a pass that never comes.
        return words(
            "a stand-in plays your turn for you: it decides in your place for as long as "
            "you must decide (buying and playing cards, taxing, building...), not just a pass"
        )
    default = _defaults_text(home, repo, player, words)
    if not default:
        return None
    return words("the adjudicator plays the default for you: %(default)s", default=default)


def _prompt_in(home: Path, repo: GameRepo, words: Words) -> str | None:
    """The pending decision's prompt in `words`' language (None if it cannot be had)."""
    try:
        phrase = engine.pending_phrase(position(snapshot(repo), home))
    except GameError:
        return None
    return None if phrase is None else words.phrase(phrase)


def compose_reminder(
    settings: Settings, repo: GameRepo, pending: Waiting, player: str, now: datetime
) -> EmailMessage:
    """A plain-text reminder to one player who must decide."""
    game = snapshot(repo).game
    entry = game.player(player)
    words = words_for(entry.language)
    tz = zone(pending.timezone)
    due = local_text(pending.clock.deadline, tz)
    utc = pending.clock.deadline.strftime("%Y-%m-%d %H:%M UTC")
    if words.language != SOURCE:
        due = words.datetime(pending.clock.deadline, tz)
        utc = words.datetime(pending.clock.deadline, "UTC")
    both = due if utc == due else f"{due} ({utc})"  # a game on UTC time shows it once
    left = pending.clock.deadline - now
    hours = max(0, round(left.total_seconds() / 3600))
    prompt = pending.prompt
    if words.language != SOURCE:
        prompt = _prompt_in(settings.home, repo, words) or words("your decision")
    lines = [
        words(
            "Game %(game)s: the game is waiting for you (%(prompt)s).", game=game.id, prompt=prompt
        ),
        "",
        words.plural(
            "Your deadline: %(due)s, about %(n)s hour from now.",
            "Your deadline: %(due)s, about %(n)s hours from now.",
            hours,
            due=both,
        ),
    ]
    timeout = _timeout_text(settings.home, repo, entry.name, words)
    if timeout:
        lines.append(words("If no move of yours arrives by then, %(timeout)s.", timeout=timeout))
    file = f"moves/{pending.move + 1:04d}-{entry.name}.txt"
    how = {  # each player is told only their own way of playing (game.toml's plays_by)
        "email": words("Reply to this message with your actions, one a line."),
        "git": words("Push your move file %(file)s to the game's repository.", file=file),
        "both": words(
            "Reply to this message with your actions, one a line, or push %(file)s to "
            "the game's repository.",
            file=file,
        ),
    }[entry.plays_by]
    away = (
        words("Away? The host of the game can pause your clock.")
        if entry.plays_by == "git"
        else words(
            "Away? Reply `pause 48h holiday` to pause your clock, within the hours the host allows."
        )
    )
    lines += ["", how, away]
    message = EmailMessage(policy=MAIL_POLICY)
    message["From"] = settings.mail_from
    message["To"] = formataddr((entry.name, entry.email))
    message["Reply-To"] = tokens.reply_address(settings, game.id, entry.name.lower())
    message["Subject"] = f"[{game.id}] " + words(
        "Reminder: your decision is due by %(due)s", due=due
    )
    message["Date"] = format_datetime(now.astimezone(UTC), usegmt=True)
    # Random, but in the form of the service's own (the move the decision began with), so
    # that a reply to it tells which position it answers (adjudicator/mail/staleness.py).
    message["Message-ID"] = make_message_id(settings, game.id, pending.move, entry.name)
    message["Auto-Submitted"] = "auto-generated"
    message["X-Pamir-Game"] = game.id
    message["X-Pamir-Player"] = entry.name.lower()
    message["X-Pamir-Move"] = str(pending.move)
    message["X-Pamir-Kind"] = "reminder"
    # In the player's thread of the game, as an answer to the last report.
    thread = thread_of(settings, game.id, entry.name)
    if thread.get("root"):
        parent = thread.get("last") or thread["root"]
        message["In-Reply-To"] = parent
        chain = [thread["root"]] if parent == thread["root"] else [thread["root"], parent]
        message["References"] = " ".join(chain)
    for header, value in list_headers(settings, game.id, entry.name).items():
        message[header] = value
    # Not sent once the deadline has passed (a mail server down meanwhile): the report of
    # what was played for the player tells them instead.
    message[DEADLINE_HEADER] = pending.clock.deadline.isoformat()
    message.set_content("\n".join(lines) + "\n")
    return message


def send_reminders(settings: Settings, repo: GameRepo, now: datetime) -> list[str]:
    """Remind the players who must decide, if the reminder is due and not sent yet; return
    their names. The caller holds the game's lock."""
    pending = waiting(repo)
    if pending is not None:  # no reminder before the player was told it is their turn
        pending = mail_clock(settings, repo, pending, now)
    if pending is None or not pending.clock.is_reminder_due(now):
        return []
    if already_reminded(settings, pending):
        return []
    names = {n.lower() for n in snapshot(repo).game.names}
    players = [p for p in pending.players if p.lower() in names]  # not an automated seat
    for player in players:
        path = outbox.queue(settings, compose_reminder(settings, repo, pending, player, now))
        log.info("reminder to %s of %s written to %s", player, pending.game_id, path)
    store.of(settings).write(_marker(pending.game_id), (reminder_key(pending) + "\n").encode())
    return players
