"""The messages to the service's operator, in the host's language: a game needs its host
(`adjudicator.mail.operator` queues it), a player's mail cannot be delivered (the outbox
queues it when it marks the message failed). docs/configuration.md and docs/email.md say
when each is sent; adjudicator/mail/operator.py, in whose language.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from adjudicator.games import needs_host
from adjudicator.games.gamefile import GAME_FILE, parse_game_file
from adjudicator.games.registry import game_path
from adjudicator.games.repo import GameRepo
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words, words_for
from adjudicator.mail.compose.messages import message_domain


def host_words(settings: Settings, game_id: str) -> Words:
    """The host's language for mail about `game_id` (see the module's docstring)."""
    folder = game_path(settings, game_id)
    if folder is None or settings.operator_email is None:
        return words_for(None)
    try:
        repo = GameRepo(folder)
        try:
            game = parse_game_file(repo.read(GAME_FILE) or "")
        finally:
            repo.repo.close()
    except Exception:  # the game may be the one that cannot be read: English, then
        return words_for(None)
    host = settings.operator_email.lower()
    played = [p.language for p in game.players if p.email.lower() == host]
    return words_for(played[0] if played else game.language)


def alert_message(settings: Settings, mark: needs_host.Mark) -> EmailMessage:
    """The message telling the operator that a game needs its host, and why."""
    assert settings.operator_email is not None
    words = host_words(settings, mark.game)
    message = EmailMessage()
    message["From"] = settings.mail_from
    message["To"] = settings.operator_email
    message["Subject"] = f"[{mark.game}] " + words("The game needs its host")
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(f"needs-host.{mark.game}", message_domain(settings))
    # RFC 3834: automatic messages; well-behaved auto-responders do not answer them.
    message["Auto-Submitted"] = "auto-generated"
    message["X-Pamir-Game"] = mark.game
    message["X-Pamir-Player"] = "operator"
    base = settings.base_url.rstrip("/")
    folder = game_path(settings, mark.game) or settings.games_dir / mark.game
    message.set_content(
        words(
            "The game %(game)s on %(base)s cannot be read, so nothing is adjudicated for it\n"
            "until its repository is repaired. The other games are not affected.",
            game=mark.game,
            base=base,
        )
        + "\n\n"
        + words("Reason: %(reason)s", reason=mark.reason)
        + "\n"
        + words("First seen: %(when)s", when=mark.first_seen)
        + "\n"
        + words("Repository: %(folder)s", folder=folder)
        + "\n"
        + words("Page: %(url)s", url="/".join((base, "games", mark.game)))
        + "\n\n"
        + words(
            "Repair the repository (for a forge-hosted game, on the forge: the service fetches\n"
            "it on the next push or poll). The mark in PAMIR_HOME/needs-host/ goes away by\n"
            "itself once the game reads again; `pamir games` lists the games that need you."
        )
        + "\n"
    )
    return message


def undeliverable_message(settings: Settings, where: str, record: dict[str, Any]) -> EmailMessage:
    """The message telling the operator that the mail server refused a message for good
    (kept at `where`, as the outbox names it)."""
    assert settings.operator_email is not None
    game = str(record.get("game") or "pamir")
    words = host_words(settings, game) if record.get("game") else words_for(None)
    player = str(record.get("player") or words("someone"))
    message = EmailMessage()
    message["From"] = settings.mail_from
    message["To"] = settings.operator_email
    message["Subject"] = f"[{game}] " + words(
        "Mail to %(player)s cannot be delivered", player=player
    )
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(f"undeliverable.{game}", message_domain(settings))
    message["Auto-Submitted"] = "auto-generated"
    message["X-Pamir-Game"] = game
    message["X-Pamir-Player"] = "operator"
    recipients = ", ".join(str(r) for r in record.get("recipients", []))
    message.set_content(
        words(
            "The mail server refused a message of game %(game)s to %(player)s (%(recipients)s) "
            "for\ngood, so it is not tried again.",
            game=game,
            player=player,
            recipients=recipients,
        )
        + "\n\n"
        + words("Reason: %(reason)s", reason=record.get("reason"))
        + "\n"
        + words("Message: %(path)s", path=where)
        + "\n\n"
        + words(
            "Check the player's address (`pamir email` changes it), then send the message by\n"
            "hand if it still matters; the player's next messages go to the address game.toml\n"
            "then has. `pamir outbox` lists the failed messages."
        )
        + "\n"
    )
    return message
