"""What mail each player of a game wants: a preference set by mail (`settings notify`).

Kept in PAMIR_HOME (`mail/preferences/GAME.json`, {player: preference}), never in the
game's repository: how a player reads their mail is nobody else's business.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, get_args

from adjudicator.home.files import read_json, write_atomically
from adjudicator.home.settings import Settings

Preference = Literal["all", "turns", "digest"]
PREFERENCES: tuple[str, ...] = get_args(Preference)
DEFAULT: Preference = "all"


def _path(settings: Settings, game_id: str) -> Path:
    return settings.home / "mail" / "preferences" / f"{game_id}.json"


def _read(settings: Settings, game_id: str) -> dict[str, str]:
    data: dict[str, str] = read_json(_path(settings, game_id)) or {}
    return data


def notify_preference(settings: Settings, game_id: str, player: str) -> str:
    """The player's delivery preference in the game: `all` (every report, the default),
    `turns` (only when they must decide) or `digest` (a summary now and then)."""
    found = _read(settings, game_id).get(player.lower(), DEFAULT)
    return found if found in PREFERENCES else DEFAULT


def set_notify_preference(settings: Settings, game_id: str, player: str, value: str) -> None:
    """Record the player's preference (the caller holds the game's lock)."""
    if value not in PREFERENCES:
        raise ValueError(f"unknown preference {value!r}: one of {', '.join(PREFERENCES)}")
    data = _read(settings, game_id) | {player.lower(): value}
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    write_atomically(_path(settings, game_id), text.encode())
