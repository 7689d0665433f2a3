"""What mail each player of a game wants: how often (`settings notify`, `pamir notify`) and
the time zone their daily digest keeps (`settings timezone`, `pamir notify --timezone`).

Kept in PAMIR_HOME (`mail/preferences/GAME.json`, {player: {"notify": ..., "timezone":
...}}), never in the game's repository: how a player reads their mail is nobody else's
business. docs/email.md#how-much-mail says what each choice sends.
"""

from __future__ import annotations

import json
from typing import Any, Literal, get_args

from adjudicator.games.deadlines import zone
from adjudicator.home import store
from adjudicator.home.settings import Settings

Preference = Literal["every", "turns", "digest"]
PREFERENCES: tuple[str, ...] = get_args(Preference)
DEFAULT: Preference = "every"
# `all` was the first name of `every`: files written then, and players used to it, say it.
ALIASES = {"all": "every"}


def _name(game_id: str) -> str:
    return f"mail/preferences/{game_id}.json"


def _read(settings: Settings, game_id: str) -> dict[str, dict[str, str]]:
    data: dict[str, Any] = store.read_json(store.of(settings), _name(game_id)) or {}
    # A plain string is the notify choice, as the first files kept it.
    return {k: ({"notify": v} if isinstance(v, str) else dict(v)) for k, v in data.items()}


def _write(settings: Settings, game_id: str, player: str, key: str, value: str) -> None:
    data = _read(settings, game_id)
    data[player.lower()] = data.get(player.lower(), {}) | {key: value}
    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    store.of(settings).write(_name(game_id), text.encode())


def preference_named(value: str) -> str | None:
    """The preference `value` names (`every`, `turns`, `digest`, or `all` for `every`)."""
    value = ALIASES.get(value.lower(), value.lower())
    return value if value in PREFERENCES else None


def notify_preference(settings: Settings, game_id: str, player: str) -> str:
    """The player's delivery preference in the game: `every` (every report, the default),
    `turns` (at once only what they must see, the rest in a daily digest) or `digest`
    (even less at once: see `adjudicator.mail.digests.mailed_at_once`)."""
    found = _read(settings, game_id).get(player.lower(), {}).get("notify", DEFAULT)
    return preference_named(found) or DEFAULT


def set_notify_preference(settings: Settings, game_id: str, player: str, value: str) -> None:
    """Record the player's preference (the caller holds the game's lock)."""
    named = preference_named(value)
    if named is None:
        raise ValueError(f"unknown preference {value!r}: one of {', '.join(PREFERENCES)}")
    _write(settings, game_id, player, "notify", named)


def check_timezone(name: str) -> str:
    """`name` when it is an IANA time zone (`Asia/Kabul`), else ValueError."""
    zone(name)  # DeadlineError, a ValueError, names the zone
    return name


def player_timezone(settings: Settings, game_id: str, player: str) -> str | None:
    """The time zone the player's digest keeps, or None for the game's own
    (`[deadlines] timezone` in game.toml)."""
    return _read(settings, game_id).get(player.lower(), {}).get("timezone")


def set_player_timezone(settings: Settings, game_id: str, player: str, name: str) -> None:
    """Record the player's time zone (the caller holds the game's lock)."""
    _write(settings, game_id, player, "timezone", check_timezone(name))
