"""Mail to the service's operator: a game needs its host, a player's mail cannot be
delivered (docs/configuration.md, docs/email.md).

The marks are made wherever a game fails to read (`adjudicator.games.needs_host`); this
turns each new one into a message to `operator_email`, written to the outbox like every
other message and delivered by the outbox job, so it is retried while the mail server is
down. Each game and reason is mailed once, however often the game is found broken. A
message the mail server refused for good (the outbox marks it failed)
is mailed once too, when it is moved.

Each is in the host's language: that of the player whose address is `operator_email`, if
the host plays in the game; else the game's language (docs/i18n.md); English when the
game's game.toml cannot be read.
"""

from __future__ import annotations

import logging

from adjudicator.games import needs_host
from adjudicator.home.settings import Settings
from adjudicator.mail.compose.operator import alert_message
from adjudicator.mail.outbox import queue

log = logging.getLogger(__name__)


def alert_operator(settings: Settings) -> list[str]:
    """Write one message to the operator for each game newly needing its host (or for a
    new reason); return those games. Nothing without an `operator_email`."""
    if settings.operator_email is None:
        return []

    def send(mark: needs_host.Mark) -> None:
        queue(settings, alert_message(settings, mark))
        log.info("game %s needs its host: the operator is told", mark.game)

    return needs_host.tell_operator(settings, send)
