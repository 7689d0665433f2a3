"""A player's language, changed during the game (`settings language pl` by mail).

The language is part of the game's record (`players[].language` in game.toml): the
change is a commit of game.toml, authored by the player, like a resignation. From the next
adjudication on, the player's private section and report mail are in that language
(docs/i18n.md). The caller holds the game's lock.
"""

from __future__ import annotations

from datetime import datetime

from adjudicator.games.gamefile import GAME_FILE, dump_game_file
from adjudicator.games.outputs import INBOUND_TRAILER
from adjudicator.games.repo import GameRepo, Person
from adjudicator.games.snapshot import snapshot
from adjudicator.home.translations import UnknownLanguage, check_language


def record_language(
    repo: GameRepo, player: str, language: str, when: datetime, *, inbound: str | None = None
) -> str | None:
    """Commit that `player` reads `language` from now on; return the commit, or None when
    it is their language already. Raises UnknownLanguage, or KeyError for no such player."""
    check_language(language)
    repo.sync_worktree()
    snap = snapshot(repo)
    entry = snap.game.player(player)
    if entry.language == language:
        return None
    changed = entry.model_copy(update={"language": language})
    players = tuple(changed if p is entry else p for p in snap.game.players)
    game = snap.game.model_copy(update={"players": players})
    message = f"{entry.name} reads {language} from now on\n\nPamir-Language: {language}\n"
    if inbound is not None:
        message += f"{INBOUND_TRAILER}: {inbound}\n"
    return repo.commit(
        {GAME_FILE: dump_game_file(game).encode()},
        message,
        parent=snap.commit,
        author=Person(entry.name, entry.email),
        when=when,
    )


__all__ = ["UnknownLanguage", "record_language"]
