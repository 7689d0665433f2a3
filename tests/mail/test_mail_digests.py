"""How much mail a player gets, as they chose (`settings notify`, `pamir notify`), and the
daily digest of the rest, sent on each player's own clock. Through real Git, a real SMTP
server and the real inbound path; the digest's clock is driven as the scheduler's tests
drive theirs, by giving the jobs a `now`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from gitgame import isolate
from mailserver import mail_server, new_game, plain, reply_to, settings_for
from test_mail_in import Table, options

from adjudicator.cli.parser import build_parser
from adjudicator.cli.refusal import Refused
from adjudicator.games.snapshot import snapshot
from adjudicator.games.waiting import waiting
from adjudicator.home.faults import FAULT_EXIT
from adjudicator.mail import outbox, report_mails
from adjudicator.mail.delivery import mailed_at_once
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.preferences import notify_preference, player_timezone
from adjudicator.schedule import jobs
from adjudicator.schedule import scheduler as sched

KABUL = ZoneInfo("Asia/Kabul")  # UTC+04:30, all year round


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings, ("alice", "bob", "carol"))
        report_mails.notify(settings, repo, [created])
        yield Table(settings, server, repo)
        repo.repo.close()


def pamir(*words: str) -> None:
    args = build_parser().parse_args(list(words))
    args.func(args)


def reports_to(table: Table, player: str) -> list[int]:
    """The move numbers of the reports mailed to `player`, in order."""
    return [
        int(str(m["X-Pamir-Move"]))
        for m in table.server.messages
        if m["X-Pamir-Kind"] == "report" and str(m["X-Pamir-Player"]) == player
    ]


def digests_to(table: Table, player: str) -> list[EmailMessage]:
    return [
        m
        for m in table.server.messages
        if str(m["X-Pamir-Player"]) == player and "Your digest" in str(m["Subject"])
    ]


def play(table: Table, moves: int) -> list[tuple[int, str]]:
    """Whoever must decide replies to the newest mail they got with their first legal
    action, `moves` times; returns (move number, author)."""
    played: list[tuple[int, str]] = []
    for _ in range(moves):
        pending = waiting(table.repo)
        assert pending is not None and len(pending.players) == 1
        player = pending.players[0]
        (last,) = [
            m
            for m in table.server.messages
            if m["X-Pamir-Kind"] == "report" and str(m["X-Pamir-Player"]) == player
        ][-1:]
        assert "It is your decision." in plain(last), "a turn mail always goes"
        result = handle_message(table.settings, reply_to(last, options(last)[0] + "\n"))
        assert result.status == "accepted", result.reason
        played.append((snapshot(table.repo).adjudicated, player))
    return played


def awaited(table: Table, number: int) -> list[str]:
    """Who move `number`'s report asks to decide, read from its commit's state.json."""
    commit = table.repo.repo.git.log("--format=%H", "-1", f"--grep=^Pamir-Move: {number}$")
    state = json.loads(table.repo.read("state.json", commit) or "{}")
    return [p.lower() for p in (state["view"].get("pending") or {}).get("players", [])]


def test_each_player_gets_the_reports_they_chose(table: Table) -> None:
    pamir("notify", str(table.repo.path), "bob", "turns")
    pamir("notify", str(table.repo.path), "Carol", "digest", "--timezone", "Asia/Kabul")
    assert notify_preference(table.settings, "g1", "bob") == "turns"
    assert (notify_preference(table.settings, "g1", "carol"), "Asia/Kabul") == (
        "digest",
        player_timezone(table.settings, "g1", "carol"),
    )

    played = play(table, 6)

    numbers = [n for n, _ in played]
    assert reports_to(table, "alice") == [0, *numbers]  # `every`: all of them
    for player in ("bob", "carol"):
        got = reports_to(table, player)
        for number, author in played:
            decides = player in awaited(table, number)
            own = author == player
            expected = decides or (own and player == "bob")
            assert (number in got) == expected, (player, number, author, decides)
    assert set(reports_to(table, "bob")) < {0, *numbers}  # some were held back


def test_settings_by_mail_take_effect_and_bad_ones_are_refused(table: Table) -> None:
    (first,) = [m for m in table.server.messages if str(m["X-Pamir-Player"]) == "bob"]
    for line, status in [
        ("settings notify digest", "accepted"),
        ("settings timezone America/New_York", "accepted"),
        ("settings timezone Mars/Olympus", "refused"),
        ("settings timezone Europe", "refused"),
        ("settings timezone " + "Z" * 3000, "refused"),
    ]:
        assert handle_message(table.settings, reply_to(first, line + "\n")).status == status
    assert notify_preference(table.settings, "g1", "bob") == "digest"
    assert player_timezone(table.settings, "g1", "bob") == "America/New_York"
    bob_before = len(reports_to(table, "bob"))
    played = play(table, 4)
    held = [n for n, a in played if "bob" not in awaited(table, n)]
    assert held and len(reports_to(table, "bob")) == bob_before + len(played) - len(held)


def next_digest(after: datetime, tz: ZoneInfo, hour: int) -> datetime:
    local = after.astimezone(tz)
    moment = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if moment <= local:
        moment += timedelta(days=1)
    return moment.astimezone(UTC)


def summarized(text: str) -> list[int]:
    """The moves a digest sums up, by the links to their pages."""
    return [int(n) for n in re.findall(r"The whole report: \S+/games/g1/turns/(\d+)", text)]


def test_the_digest_comes_once_a_day_at_the_players_own_hour(table: Table) -> None:
    pamir("notify", str(table.repo.path), "carol", "turns", "--timezone", "Asia/Kabul")
    played = play(table, 5)
    held = [n for n, a in played if a != "carol" and "carol" not in awaited(table, n)]
    assert held, "some reports were kept for carol's digest"
    due = next_digest(datetime.now(UTC), KABUL, table.settings.digest_hour)
    assert (due.astimezone(KABUL).hour, due.hour, due.minute) == (8, 3, 30)  # 03:30 UTC

    assert jobs.send_digests(table.settings, due - timedelta(seconds=1)) == []
    scheduler = sched.build_scheduler(table.settings, clock=lambda: due + timedelta(seconds=30))
    sched.digest_tick(scheduler, table.settings)  # the scheduler's job, on its clock
    outbox.deliver(table.settings)
    (digest,) = digests_to(table, "carol")

    text = plain(digest)
    day = f"{due.astimezone(KABUL):%Y-%m-%d}"
    assert str(digest["Subject"]).startswith(f"[g1] Your digest of {day}")
    assert summarized(text) == held  # the held reports, and only those
    # Only what carol may see: her own section, none of another player's.
    assert "## For carol only" in text
    assert "## For alice only" not in text and "## For bob only" not in text
    assert "/play/g1/carol/" in text and "/play/g1/alice/" not in text
    assert digest["In-Reply-To"] is not None  # in carol's thread
    assert not digests_to(table, "alice") and not digests_to(table, "bob")

    # Once a day: later the same day, and on a scheduler started afresh, nothing more.
    for later in (due + timedelta(hours=2), due + timedelta(hours=23, minutes=59)):
        assert jobs.send_digests(table.settings, later) == []
    count = len(table.server.messages)
    # Held after the hour: for tomorrow's digest, and nothing for a day with none held.
    more = play(table, 3)
    new = [n for n, a in more if a != "carol" and "carol" not in awaited(table, n)]
    if new:
        tomorrow = due + timedelta(days=1)
        assert jobs.send_digests(table.settings, tomorrow - timedelta(minutes=1)) == []
        jobs.send_digests(table.settings, tomorrow)
        outbox.deliver(table.settings)
        second = digests_to(table, "carol")[-1]
        assert summarized(plain(second)) == new
    assert jobs.send_digests(table.settings, due + timedelta(days=2)) == []
    assert len(digests_to(table, "carol")) == 1 + bool(new)
    assert len(table.server.messages) >= count


def test_a_crash_after_queuing_the_digest_sends_it_once(table: Table) -> None:
    pamir("notify", str(table.repo.path), "bob", "digest", "--timezone", "Asia/Kabul")
    played = play(table, 5)
    assert any(a != "bob" and "bob" not in awaited(table, n) for n, a in played)
    due = next_digest(datetime.now(UTC), KABUL, table.settings.digest_hour)
    script = (
        "import sys, datetime; from adjudicator.home.settings import load_settings; "
        "from adjudicator.mail.digests import send_due; "
        "send_due(load_settings(), datetime.datetime.fromisoformat(sys.argv[1]))"
    )
    env = {**os.environ, "PAMIR_FAULT": "digest-queued"}
    crashed = subprocess.run([sys.executable, "-c", script, due.isoformat()], env=env)
    assert crashed.returncode == FAULT_EXIT
    record = json.loads((table.settings.home / "mail/digests/g1.json").read_text())
    assert record["bob"]["plan"] is not None  # the plan survived the crash

    again = jobs.send_digests(table.settings, due + timedelta(minutes=5))
    assert len(again) == 1
    outbox.deliver(table.settings)
    assert len(digests_to(table, "bob")) == 1
    assert jobs.send_digests(table.settings, due + timedelta(hours=1)) == []
    record = json.loads((table.settings.home / "mail/digests/g1.json").read_text())
    assert "plan" not in record["bob"] and record["bob"]["held"] == []


def test_pamir_notify_refuses_an_unknown_player_or_time_zone(
    table: Table, capsys: pytest.CaptureFixture[str]
) -> None:
    game = str(table.repo.path)
    with pytest.raises(Refused, match="zed is not a player"):
        pamir("notify", game, "zed", "turns")
    with pytest.raises(Refused, match="unknown time zone 'Mars/Olympus'"):
        pamir("notify", game, "bob", "turns", "--timezone", "Mars/Olympus")
    assert notify_preference(table.settings, "g1", "bob") == "every"
    pamir("notify", game, "bob")
    said = capsys.readouterr().out.strip()
    assert said.endswith("bob gets notify every; digest at 08:00 UTC (the game's)")


# What goes at once, by choice and by what the report is (docs/email.md#how-much-mail).
AT_ONCE = [
    # preference, decides, over, rollback, own, refused, mailed at once
    ("every", False, False, False, False, False, True),
    ("turns", False, False, False, False, False, False),
    ("digest", False, False, False, False, False, False),
    ("turns", True, False, False, False, False, True),  # their turn
    ("digest", True, False, False, True, False, True),  # a follow-up of their own action
    ("turns", False, False, False, True, False, True),  # their own move
    ("digest", False, False, False, True, False, False),  # ... kept for the digest
    ("digest", False, False, False, True, True, True),  # their move refused
    ("digest", False, True, False, False, False, True),  # the game's end
    ("digest", False, False, True, False, False, True),  # a rollback to answer, or done
    ("turns", False, False, True, False, False, True),
]


@pytest.mark.parametrize(
    ("preference", "decides", "over", "rollback", "own", "refused", "expected"), AT_ONCE
)
def test_what_always_comes_at_once(
    preference: str,
    decides: bool,
    over: bool,
    rollback: bool,
    own: bool,
    refused: bool,
    expected: bool,
) -> None:
    found = mailed_at_once(
        preference, decides=decides, over=over, rollback=rollback, own=own, refused=refused
    )
    assert found is expected
