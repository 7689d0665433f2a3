"""Pages as current as the forge on every node (PostgreSQL mode, docs/cluster.md#pages).

A game moves on the node that adjudicated it: the others learn of it from the forge, at the
scheduler's poll or the next delivery for the game. A page they serve meanwhile would show
the position before, and its form would refuse a legal move as out of turn. So each node
records the game's branch on the forge whenever it pushes or fetches it (the registry's
`head`, games/hosting.py), and a page first compares it with its own clone's: one indexed
query. When they differ, the clone is brought up to the forge under the game's lock
before the page is drawn, as the scheduler's poll would.
"""

from __future__ import annotations

import logging
from pathlib import Path

from adjudicator.forge import transport
from adjudicator.games import hosting
from adjudicator.games.refs import tip_of
from adjudicator.games.repo import REF
from adjudicator.home import backend
from adjudicator.home.settings import Settings
from adjudicator.schedule.jobs import sync_game

log = logging.getLogger(__name__)


def freshen(settings: Settings, game_id: str, path: Path) -> None:
    """Bring this node's clone of the game (at `path`) up to its forge when another node
    moved the game since this one last looked; nothing in the embedded mode, for a game
    not on a forge, or when the forge cannot be reached (the page is then the clone's)."""
    if not backend.of(settings).several_nodes:
        return
    head = hosting.forge_head(settings, game_id)
    if head is None or head in _tips(path):
        return
    try:
        sync_game(settings, game_id, deliver=False)  # the outbox job sends what it queued
    except Exception as error:  # a page about the clone beats no page at all
        log.warning("game %s: not brought up to its forge for a page: %s", game_id, error)


def _tips(path: Path) -> set[str | None]:
    """The clone's branch and the forge's as the clone last saw it."""
    return {tip_of(path, REF), tip_of(path, transport.TRACKING)}
