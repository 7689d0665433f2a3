"""What mail each player of a game wants: how often (`settings notify`, `pamir notify`) and
the time zone their daily digest keeps (`settings timezone`, `pamir notify --timezone`).

Kept in PAMIR_HOME (`mail/preferences/GAME.json`, {player: {"notify": ..., "timezone":
...}}), never in the game's repository: how a player reads their mail is nobody else's
business. docs/email.md#how-much-mail says what each choice sends.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, model_validator

from adjudicator.games.deadlines import zone
from adjudicator.home import store
from adjudicator.home.records import RECORD_CONFIG, RecordKind
from adjudicator.home.settings import Settings

Preference = Literal["per-turn", "every", "turns", "digest"]
PREFERENCES: tuple[str, ...] = get_args(Preference)
# `all` was the first name of `every`: files written then, and players used to it, say it.
ALIASES = {"all": "every"}


class Choices(BaseModel):
    """One player's choices; a choice not made is not in the record."""

    model_config = RECORD_CONFIG

    # Any text: an unknown one (an older version's name) is read as the default.
    notify: str | None = None
    timezone: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain_notify(cls, data: Any) -> Any:
        # A plain string is the notify choice, as the first files kept it.
        return {"notify": data} if isinstance(data, str) else data


NO_CHOICES = Choices()
# {player: choices}
PREFERENCES_RECORD: RecordKind[dict[str, Choices]] = RecordKind(
    "a record of mail preferences", dict[str, Choices], sort_keys=True
)


def _name(game_id: str) -> str:
    return f"mail/preferences/{game_id}.json"


def _read(settings: Settings, game_id: str) -> dict[str, Choices]:
    return PREFERENCES_RECORD.read(store.of(settings), _name(game_id)) or {}


def _write(settings: Settings, game_id: str, player: str, key: str, value: str) -> None:
    chosen = _read(settings, game_id)
    chosen[player.lower()] = chosen.get(player.lower(), NO_CHOICES).model_copy(update={key: value})
    PREFERENCES_RECORD.write(store.of(settings), _name(game_id), chosen)


def preference_named(value: str) -> str | None:
    """The preference `value` names (`per-turn`, `every`, `turns`, `digest`, or `all` for
    `every`)."""
    value = ALIASES.get(value.lower(), value.lower())
    return value if value in PREFERENCES else None


def notify_preference(settings: Settings, game_id: str, player: str) -> str:
    """The player's delivery preference in the game: `per-turn` (one report a completed
    turn, the default), `every` (every report), `turns` (at once only what they must see,
    the rest in a daily digest) or `digest` (even less at once): see
    `adjudicator.mail.delivery.mailed_at_once`."""
    found = _read(settings, game_id).get(player.lower(), NO_CHOICES).notify
    default = settings.notify  # the host's choice for players who made none (`PAMIR_NOTIFY`)
    return preference_named(found or default) or default


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
    return _read(settings, game_id).get(player.lower(), NO_CHOICES).timezone


def set_player_timezone(settings: Settings, game_id: str, player: str, name: str) -> None:
    """Record the player's time zone (the caller holds the game's lock)."""
    _write(settings, game_id, player, "timezone", check_timezone(name))
