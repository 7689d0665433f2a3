"""A player's language, changed during the game (`settings language pl` by mail).

The language is part of the game's record (`players[].language` in game.toml): the
change is a commit of game.toml, authored by the player, like a resignation. From the next
adjudication on, the player's private section and report mail are in that language
(docs/i18n.md). The caller holds the game's lock.
"""

from __future__ import annotations

from datetime import datetime

from adjudicator.games.players import commit_player_change
from adjudicator.games.repo import GameRepo
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
    message = f"{entry.name} reads {language} from now on\n\nPamir-Language: {language}\n"
    return commit_player_change(
        repo, snap, entry, {"language": language}, message, when, inbound=inbound
    )


__all__ = ["UnknownLanguage", "record_language"]
