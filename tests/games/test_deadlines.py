"""Deadlines computed (adjudicator.games.deadlines): wall-clock turns across daylight-saving
changes in two zones, reminders in real hours, pauses and their limits, deadlines.toml."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from adjudicator.games.deadlines import (
    Clock,
    DeadlineError,
    DeadlinesFile,
    Pause,
    PauseLimits,
    PauseRefused,
    clock,
    deadline,
    dump_deadlines_file,
    local_text,
    parse_deadlines_file,
    paused_hours,
    plan_pause,
    reminder,
    zone,
)
from adjudicator.games.gamefile import Deadlines

WARSAW = ZoneInfo("Europe/Warsaw")  # 2025-10-26 03:00 CEST -> 02:00 CET
NEW_YORK = ZoneInfo("America/New_York")  # 2026-03-08 02:00 EST -> 03:00 EDT


def local(tz: ZoneInfo, year: int, month: int, day: int, hour: int, minute: int) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=tz)


def hours(a: datetime, b: datetime) -> float:
    return (b - a).total_seconds() / 3600


def pause(start: datetime, length: int, player: str = "alice") -> Pause:
    return Pause(player=player, start=start, hours=length, reason="holidays")


# -- turns across daylight-saving changes ---------------------------------------------------


@pytest.mark.parametrize(
    ("tz", "start", "turn", "wall", "real"),
    [
        # Warsaw, autumn: the night of 25-26 October 2025 has 25 hours.
        (WARSAW, (2025, 10, 24, 20, 0), 24, (2025, 10, 25, 20, 0), 24),  # the day before
        (WARSAW, (2025, 10, 25, 20, 0), 24, (2025, 10, 26, 20, 0), 25),  # across the change
        (WARSAW, (2025, 10, 26, 20, 0), 24, (2025, 10, 27, 20, 0), 24),  # the day after
        (WARSAW, (2025, 10, 24, 20, 0), 48, (2025, 10, 26, 20, 0), 49),
        (WARSAW, (2025, 10, 25, 20, 0), 12, (2025, 10, 26, 8, 0), 13),
        # New York, spring: the night of 7-8 March 2026 has 23 hours.
        (NEW_YORK, (2026, 3, 6, 20, 0), 24, (2026, 3, 7, 20, 0), 24),  # the day before
        (NEW_YORK, (2026, 3, 7, 20, 0), 24, (2026, 3, 8, 20, 0), 23),  # across the change
        (NEW_YORK, (2026, 3, 8, 20, 0), 24, (2026, 3, 9, 20, 0), 24),  # the day after
        (NEW_YORK, (2026, 3, 6, 9, 30), 72, (2026, 3, 9, 9, 30), 71),
    ],
)
def test_a_turn_ends_at_the_same_wall_clock_time(
    tz: ZoneInfo,
    start: tuple[int, int, int, int, int],
    turn: int,
    wall: tuple[int, int, int, int, int],
    real: int,
) -> None:
    begun = local(tz, *start)
    due = deadline(begun, turn, tz)
    assert due.tzinfo == UTC
    assert due.astimezone(tz).replace(tzinfo=None) == datetime(*wall)
    assert hours(begun, due) == real


def test_a_skipped_wall_clock_time_moves_forward_by_the_gap() -> None:
    """02:30 on 8 March 2026 does not exist in New York: the deadline is 03:30 EDT."""
    due = deadline(local(NEW_YORK, 2026, 3, 7, 2, 30), 24, NEW_YORK)
    assert local_text(due, NEW_YORK) == "2026-03-08 03:30 EDT"
    assert due == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)


def test_a_repeated_wall_clock_time_takes_its_first_occurrence() -> None:
    """02:30 happens twice on 26 October 2025 in Warsaw: the deadline is the first one."""
    due = deadline(local(WARSAW, 2025, 10, 25, 2, 30), 24, WARSAW)
    assert local_text(due, WARSAW) == "2025-10-26 02:30 CEST"
    assert due == datetime(2025, 10, 26, 0, 30, tzinfo=UTC)


def test_a_start_in_the_repeated_hour_counts_from_the_right_instant() -> None:
    second = datetime(2025, 10, 26, 1, 30, tzinfo=UTC)  # 02:30 CET, the second 02:30
    due = deadline(second, 24, WARSAW)
    assert local_text(due, WARSAW) == "2025-10-27 02:30 CET"
    assert hours(second, due) == 24


def test_reports_print_the_deadline_on_the_games_wall_clock() -> None:
    """Reports show the enforced deadline as local_text gives it (adjudicator/games/outputs.py)."""
    started = datetime(2026, 3, 7, 20, 0, tzinfo=UTC)
    assert local_text(deadline(started, 48, zone("UTC")), zone("UTC")) == "2026-03-09 20:00 UTC"
    warsaw = zone("Europe/Warsaw")
    autumn = datetime(2025, 10, 25, 18, 0, tzinfo=UTC)  # 20:00 CEST
    assert local_text(deadline(autumn, 24, warsaw), warsaw) == "2025-10-26 20:00 CET"


@pytest.mark.parametrize("name", ["Mars/Olympus", "Europe", "Europe/" + "W" * 5000, "../etc"])
def test_an_unknown_time_zone_is_refused(name: str) -> None:
    """A folder of the zone database (`Europe`) and a name too long for a file name are
    refused like any unknown zone, not raised as the file system's errors."""
    with pytest.raises(DeadlineError, match="unknown time zone"):
        zone(name)


# -- reminders ----------------------------------------------------------------------------


def test_a_reminder_comes_real_hours_before_the_deadline_across_a_change() -> None:
    """Deadline 26 Oct 10:00 CET; 12 real hours before is 25 Oct 23:00 CEST, which the wall
    clock shows only 11 hours before the deadline."""
    settings = Deadlines(timezone="Europe/Warsaw", turn_hours=24, reminder_hours=12)
    started = local(WARSAW, 2025, 10, 25, 10, 0)
    found = clock(started, settings)
    assert local_text(found.deadline, WARSAW) == "2025-10-26 10:00 CET"
    assert found.reminder is not None
    assert hours(found.reminder, found.deadline) == 12
    assert local_text(found.reminder, WARSAW) == "2025-10-25 23:00 CEST"


def test_a_reminder_in_new_york_spring() -> None:
    settings = Deadlines(timezone="America/New_York", turn_hours=48, reminder_hours=6)
    found = clock(local(NEW_YORK, 2026, 3, 6, 4, 0), settings)
    assert local_text(found.deadline, NEW_YORK) == "2026-03-08 04:00 EDT"
    assert found.reminder is not None
    assert local_text(found.reminder, NEW_YORK) == "2026-03-07 21:00 EST"


def test_no_reminder_without_hours_or_before_the_clock_started() -> None:
    started = datetime(2026, 1, 1, 12, tzinfo=UTC)
    due = started + timedelta(hours=10)
    assert reminder(started, due, 0) is None
    assert reminder(started, due, 10) is None
    assert reminder(started, due, 12) is None
    assert reminder(started, due, 4) == started + timedelta(hours=6)


def test_a_clock_is_due_at_its_deadline_and_reminds_before() -> None:
    begun = datetime(2026, 1, 1, tzinfo=UTC)
    found = Clock(begun, begun + timedelta(hours=24), begun + timedelta(hours=12))
    assert not found.is_due(begun + timedelta(hours=23, minutes=59, seconds=59))
    assert found.is_due(begun + timedelta(hours=24))
    assert not found.is_reminder_due(begun + timedelta(hours=11))
    assert found.is_reminder_due(begun + timedelta(hours=12))
    assert not found.is_reminder_due(begun + timedelta(hours=24))  # too late for that


# -- pauses -------------------------------------------------------------------------------


BEGUN = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


def test_a_pause_within_the_turn_moves_the_deadline_back_by_its_length() -> None:
    plain = deadline(BEGUN, 48, zone("UTC"))
    paused = deadline(BEGUN, 48, zone("UTC"), [pause(BEGUN + timedelta(hours=5), 24)])
    assert hours(plain, paused) == 24


def test_a_pause_after_the_deadline_or_over_before_the_start_changes_nothing() -> None:
    plain = deadline(BEGUN, 48, zone("UTC"))
    assert deadline(BEGUN, 48, zone("UTC"), [pause(plain, 24)]) == plain
    assert deadline(BEGUN, 48, zone("UTC"), [pause(BEGUN - timedelta(hours=30), 24)]) == plain


def test_a_decision_that_arrives_during_a_pause_starts_its_clock_when_it_ends() -> None:
    holiday = pause(BEGUN - timedelta(hours=2), 10)
    assert deadline(BEGUN, 24, zone("UTC"), [holiday]) == holiday.end + timedelta(hours=24)


def test_overlapping_pauses_count_once() -> None:
    first = pause(BEGUN + timedelta(hours=1), 10)
    second = pause(BEGUN + timedelta(hours=5), 10, "bob")  # overlaps 6 hours of the first
    due = deadline(BEGUN, 24, zone("UTC"), [first, second])
    assert hours(BEGUN, due) == 24 + 14


def test_a_pause_that_the_extension_reaches_extends_too() -> None:
    plain = deadline(BEGUN, 24, zone("UTC"))
    first = pause(BEGUN + timedelta(hours=20), 10)
    later = pause(plain + timedelta(hours=9), 3)  # after the old deadline, before the new
    assert hours(plain, deadline(BEGUN, 24, zone("UTC"), [first, later])) == 13


def test_a_pause_adds_real_hours_in_a_dst_zone() -> None:
    started = local(WARSAW, 2025, 10, 25, 20, 0)
    plain = deadline(started, 24, WARSAW)
    paused = deadline(started, 24, WARSAW, [pause(started + timedelta(hours=1), 6)])
    assert hours(plain, paused) == 6


# -- planning a pause: the limits -----------------------------------------------------------


def test_a_pause_starts_now_and_is_recorded() -> None:
    planned = plan_pause(DeadlinesFile(), "alice", 24, " holidays ", BEGUN)
    assert planned.pause == (Pause(player="alice", start=BEGUN, hours=24, reason="holidays"),)


def test_pauses_queue_rather_than_overlap() -> None:
    first = plan_pause(DeadlinesFile(), "alice", 24, "away", BEGUN)
    second = plan_pause(first, "bob", 12, "away too", BEGUN + timedelta(hours=3))
    assert second.pause[1].start == BEGUN + timedelta(hours=24)


@pytest.mark.parametrize(
    ("length", "reason", "code"),
    [(0, "away", "bad-hours"), (169, "away", "pause-too-long"), (5, "  ", "no-reason")],
)
def test_a_pause_out_of_bounds_is_refused(length: int, reason: str, code: str) -> None:
    with pytest.raises(PauseRefused) as refused:
        plan_pause(DeadlinesFile(), "alice", length, reason, BEGUN)
    assert refused.value.code == code


def test_a_player_may_pause_at_most_fourteen_days_per_game() -> None:
    data = DeadlinesFile()
    for week in range(2):
        data = plan_pause(data, "alice", 168, f"week {week}", BEGUN)
    assert paused_hours(data, "ALICE") == 336
    with pytest.raises(PauseRefused, match="336 of the 336 hours"):
        plan_pause(data, "alice", 1, "one more", BEGUN)
    assert plan_pause(data, "bob", 168, "bob's own", BEGUN).pause[-1].player == "bob"


def test_the_limits_come_from_deadlines_toml() -> None:
    data = DeadlinesFile(limits=PauseLimits(pause_hours_max=12, pause_days_per_player=1))
    with pytest.raises(PauseRefused) as refused:
        plan_pause(data, "alice", 13, "away", BEGUN)
    assert refused.value.code == "pause-too-long"
    data = plan_pause(plan_pause(data, "alice", 12, "a", BEGUN), "alice", 12, "b", BEGUN)
    with pytest.raises(PauseRefused) as refused:
        plan_pause(data, "alice", 1, "c", BEGUN)
    assert refused.value.code == "pause-limit"


# -- deadlines.toml -----------------------------------------------------------------------


def test_deadlines_toml_round_trips() -> None:
    data = plan_pause(DeadlinesFile(), "alice", 24, "holidays", BEGUN)
    text = dump_deadlines_file(data)
    assert "[[pause]]" in text and 'player = "alice"' in text
    assert parse_deadlines_file(text) == data


def test_an_absent_deadlines_toml_means_no_pause_and_the_default_limits() -> None:
    assert parse_deadlines_file(None) == DeadlinesFile()
    assert DeadlinesFile().limits == PauseLimits(pause_hours_max=168, pause_days_per_player=14)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            '[[pause]]\nplayer = "a"\nstart = 2026-01-01T10:00:00\nhours = 1\nreason = "x"\n',
            "start",
        ),
        (
            '[[pause]]\nplayer = "a"\nstart = 2026-01-01T10:00:00Z\nhours = 0\nreason = "x"\n',
            "hours",
        ),
        ("[limits]\npause_weeks = 3\n", "pause_weeks"),
        ("[[pause]\n", "not TOML"),
    ],
)
def test_a_bad_deadlines_toml_is_refused(text: str, where: str) -> None:
    with pytest.raises(DeadlineError, match=where):
        parse_deadlines_file(text)
