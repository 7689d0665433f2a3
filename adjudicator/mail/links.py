"""Links to a game's web pages, for mail and anything else that points players at them.

The addresses are absolute, made from `base_url` (configuration.md): the game's page, one
move's page and a player's private page (docs/web.md). Mail may link the private page only
in a message to that player: its link is the player's secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from adjudicator.home.settings import Settings
from adjudicator.mail.tokens import page_token


@dataclass(frozen=True)
class PageLinks:
    """The web addresses one player of a game is given."""

    game: str  # /games/GAME: the public position and history
    private: str  # /play/GAME/PLAYER/TOKEN: the player's own view and a form to move
    turn: str | None = None  # /games/GAME/turns/N: move N's report, when a move was named


def page_links(
    settings: Settings, game_id: str, player: str, number: int | None = None
) -> PageLinks:
    """The addresses of game `game_id`'s page, of move `number`'s page (if given) and of
    `player`'s private page."""
    base = settings.base_url.rstrip("/")
    game = f"{base}/games/{quote(game_id)}"
    token = page_token(settings, game_id, player)
    private = f"{base}/play/{quote(game_id)}/{quote(player)}/{token}"
    turn = None if number is None else f"{game}/turns/{number}"
    return PageLinks(game=game, private=private, turn=turn)
