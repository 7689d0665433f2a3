"""Deadlines of pending decisions, reminders and pauses, computed (docs/scheduler.md).

Pure: nothing here reads Git, the clock or the mail; every function is given its `now`.

The clock of a decision starts at the commit time of the last commit that changed the
position or a rollback proposal (or the `[deadlines]` table in game.toml; read from Git by
games/clockstart.py) and runs `turn_hours` on the
wall clock of the game's time zone: a 24-hour turn that starts at 20:00 in Warsaw ends at
20:00 the next day, even when the clocks go back that night (25 real hours) or forward
(23 real hours). Wall-clock times that a change skips (02:30 on a spring-forward night)
move forward by the length of the gap; times that occur twice take the first occurrence.

Reminders are sent `reminder_hours` real hours before the deadline, so that "12 hours
left" is true whatever the clocks do. A pause stops the clock for its length: a deadline
that falls after the start of a pause moves back by exactly the pause's hours. Pauses
live in `deadlines.toml` of the game repository, with their limits.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import tomli_w
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from adjudicator.games.gamefile import Deadlines
from engine.errors import describe_validation
from engine.phrases import P, Phrase

DEADLINES_FILE = "deadlines.toml"
HEADER = "# The game clock's pauses and their limits (docs/scheduler.md).\n"
PAUSE_HOURS_MAX = 7 * 24  # one pause: at most a week
PAUSE_DAYS_PER_PLAYER = 14  # all of a player's pauses in one game: at most two weeks
MAIL_PAUSE_HOURS = 72  # what a player may pause by mail without asking the host


class DeadlineError(ValueError):
    """A time zone or a `deadlines.toml` that cannot be used."""


class PauseRefused(ValueError):
    """A pause the limits do not allow; `code` is stable. Nothing was recorded. `message`
    is a phrase, said in its reader's words by a mail's answer; its English is the text."""

    def __init__(self, code: str, message: Phrase) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def said(self) -> Phrase:
        """The refusal as a phrase: `CODE: reason`, its English `str(self)`."""
        return P("%(code)s: %(reason)s", code=self.code, reason=self.message)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Pause(_Strict):
    """The clock stopped from `start` for `hours`, at `player`'s request."""

    player: str
    start: AwareDatetime
    hours: int = Field(ge=1)
    reason: str

    @field_validator("start")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)

    @property
    def end(self) -> datetime:
        return self.start + timedelta(hours=self.hours)


class PauseLimits(_Strict):
    """How much a player may pause a game; `[limits]` in deadlines.toml overrides these."""

    pause_hours_max: int = Field(default=PAUSE_HOURS_MAX, ge=1)
    pause_days_per_player: int = Field(default=PAUSE_DAYS_PER_PLAYER, ge=0)
    # A pause asked for after the deadline passed, before the scheduler played for the
    # player, is refused unless the host allows it; it then starts at that deadline.
    late_pause: bool = False
    # The most hours of pause a player may have in the game (the host's pauses for them
    # included) for a pause they ask for themselves by mail; 0: only the host pauses.
    mail_pause_hours: int = Field(default=MAIL_PAUSE_HOURS, ge=0)


class DeadlinesFile(_Strict):
    """`deadlines.toml`: the limits and every pause taken in the game, oldest first."""

    limits: PauseLimits = PauseLimits()
    pause: tuple[Pause, ...] = ()


def parse_deadlines_file(text: str | None) -> DeadlinesFile:
    """The file's content; an absent file means no pause and the default limits."""
    if not text:
        return DeadlinesFile()
    try:
        return DeadlinesFile.model_validate(tomllib.loads(text))
    except tomllib.TOMLDecodeError as error:
        raise DeadlineError(f"{DEADLINES_FILE} is not TOML: {error}") from None
    except ValidationError as error:
        details = describe_validation(error)
        raise DeadlineError(f"{DEADLINES_FILE}: {details}") from None


def dump_deadlines_file(data: DeadlinesFile) -> str:
    """The file's text: `[limits]`, then one `[[pause]]` table per pause (never inline)."""
    limits = data.limits.model_dump()
    if not data.limits.late_pause:
        del limits["late_pause"]  # written only when the host allows late pauses
    if data.limits.mail_pause_hours == MAIL_PAUSE_HOURS:
        del limits["mail_pause_hours"]  # written only when the host changed it
    parts = [HEADER, "[limits]\n" + tomli_w.dumps(limits)]
    for pause in data.pause:
        start = pause.start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        fields = tomli_w.dumps({"player": pause.player, "start": "", "hours": pause.hours})
        fields = fields.replace('start = ""', f"start = {start}")
        reason = tomli_w.dumps({"reason": pause.reason})
        parts.append("[[pause]]\n" + fields + reason)
    return "\n".join(parts)


def zone(name: str) -> ZoneInfo:
    """The IANA time zone of a game (`[deadlines] timezone` in game.toml), or of a
    player's digest. The zone database is a folder of files: a folder's name (`Europe`) or
    a name too long for a file name fails as the file system's OSError."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise DeadlineError(f"unknown time zone {name!r} (write an IANA name)") from None


def add_wall_hours(start: datetime, hours: int, tz: ZoneInfo) -> datetime:
    """`hours` later on the wall clock of `tz` (in UTC): same time of day after 24 h."""
    local = start.astimezone(tz) + timedelta(hours=hours)  # wall-clock arithmetic, fold=0
    return local.astimezone(UTC)


def paused_intervals(pauses: Iterable[Pause]) -> list[tuple[datetime, datetime]]:
    """The pauses as disjoint (start, end) intervals, in order (overlaps merged)."""
    merged: list[tuple[datetime, datetime]] = []
    for start, end in sorted((p.start, p.end) for p in pauses):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def deadline(
    started: datetime, turn_hours: int, tz: ZoneInfo, pauses: Iterable[Pause] = ()
) -> datetime:
    """When the clock started at `started` runs out, pauses included (in UTC)."""
    intervals = paused_intervals(pauses)
    begin = started.astimezone(UTC)
    for start, end in intervals:
        if start <= begin < end:
            begin = end  # a decision that arrives during a pause waits for its end
    due = add_wall_hours(begin, turn_hours, tz)
    for start, end in intervals:
        if end <= begin:
            continue
        if start >= due:
            break
        due += end - max(start, begin)
    return due


def reminder(started: datetime, due: datetime, reminder_hours: int) -> datetime | None:
    """When to remind: `reminder_hours` real hours before `due`; None for no reminder
    (0 hours, or a reminder that would come before the clock started)."""
    if reminder_hours <= 0:
        return None
    when = due - timedelta(hours=reminder_hours)
    return when if when > started else None


@dataclass(frozen=True)
class Clock:
    """The clock of one pending decision: all three instants in UTC."""

    started: datetime
    deadline: datetime
    reminder: datetime | None

    def is_due(self, now: datetime) -> bool:
        return now >= self.deadline

    def is_reminder_due(self, now: datetime) -> bool:
        return self.reminder is not None and self.reminder <= now < self.deadline


def clock(started: datetime, settings: Deadlines, pauses: Iterable[Pause] = ()) -> Clock:
    """The clock of a decision whose clock started at `started`, under game.toml's rules."""
    started = started.astimezone(UTC)
    due = deadline(started, settings.turn_hours, zone(settings.timezone), pauses)
    return Clock(started, due, reminder(started, due, settings.reminder_hours))


def paused_hours(data: DeadlinesFile, player: str) -> int:
    """Hours of pause `player` has taken in this game so far."""
    return sum(p.hours for p in data.pause if p.player.lower() == player.lower())


def check_mail_pause(data: DeadlinesFile, player: str, hours: int) -> None:
    """Refuse (PauseRefused) a pause `player` asks for by mail that would take their
    pauses in this game beyond the host's `mail_pause_hours`."""
    allowed = data.limits.mail_pause_hours
    used = paused_hours(data, player)
    if used + hours > allowed:
        raise PauseRefused(
            "mail-pause-limit",
            P(
                "%(player)s may pause this game by mail for %(allowed)s hours in all "
                "(deadlines.toml [limits] mail_pause_hours); %(used)s are used, "
                "%(left)s are left: ask the host for more",
                player=player,
                allowed=allowed,
                used=used,
                left=max(0, allowed - used),
            ),
        )


def plan_pause(
    data: DeadlinesFile, player: str, hours: int, reason: str, now: datetime
) -> DeadlinesFile:
    """The file with `player`'s pause of `hours` added, or PauseRefused.

    A pause starts now, or when the pauses already recorded end, so that pauses queue
    rather than overlap and every hour granted is an hour of clock stopped.
    """
    limits = data.limits
    if not reason.strip():
        raise PauseRefused("no-reason", P("a pause needs a reason"))
    if hours < 1:
        raise PauseRefused("bad-hours", P("a pause lasts at least 1 hour"))
    if hours > limits.pause_hours_max:
        raise PauseRefused(
            "pause-too-long",
            P("a pause lasts at most %(hours)s hours", hours=limits.pause_hours_max),
        )
    allowed = limits.pause_days_per_player * 24
    used = paused_hours(data, player)
    if used + hours > allowed:
        raise PauseRefused(
            "pause-limit",
            P(
                "%(player)s has paused this game for %(used)s of the %(allowed)s hours "
                "allowed; %(left)s are left",
                player=player,
                used=used,
                allowed=allowed,
                left=allowed - used,
            ),
        )
    start = max([now.astimezone(UTC).replace(microsecond=0), *(p.end for p in data.pause)])
    pause = Pause(player=player, start=start, hours=hours, reason=reason.strip())
    return DeadlinesFile(limits=limits, pause=(*data.pause, pause))


def local_text(when: datetime, tz: ZoneInfo) -> str:
    """A time as players of the game read it, e.g. `2025-10-26 20:00 CET`."""
    return when.astimezone(tz).strftime("%Y-%m-%d %H:%M %Z")
