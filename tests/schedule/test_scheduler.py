"""The scheduler through real game repositories: clocks read from Git, timeouts applied as
adjudicator commits, reminders written to the outbox, pauses committed, jobs rebuilt from
the repositories, and a real APScheduler applying a default when a deadline passes.

Time is injected: the deadline changes of these games are committed at chosen instants
(2030-2031, across daylight-saving changes) and the jobs are given a `now`. The mail and
forge modules are replaced by stand-ins (or hidden), so that what the scheduler asks of
them is checked here, and their own tests check the rest.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from apscheduler.schedulers.base import BaseScheduler
from gitgame import SECRET, THREE, TWO, current_home, git
from mailserver import free_port, mail_server, settings_for
from walks import Walk

import engine
from adjudicator.cli import parser as cli_parser
from adjudicator.cli.refusal import Refused
from adjudicator.forge import newgames
from adjudicator.games.deadlines import DEADLINES_FILE, PauseRefused, local_text, zone
from adjudicator.games.gamefile import GAME_FILE, dump_game_file
from adjudicator.games.newgame import create_game
from adjudicator.games.objects import Person
from adjudicator.games.outputs import Adjudication, Refusal
from adjudicator.games.pipeline import adjudicate_pending, position, submit
from adjudicator.games.repo import ADJUDICATOR, GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings
from adjudicator.mail import outbox
from adjudicator.schedule import jobs as jobs_module
from adjudicator.schedule import scheduler as sched
from adjudicator.schedule.clock import (
    apply_timeouts,
    clock_started,
    default_lines,
    record_pause,
    waiting,
)
from adjudicator.schedule.jobs import (
    poll_remote,
    retry_outbox,
    run_deadline,
    run_once,
    run_reminder,
)
from adjudicator.schedule.leader import LOCK_FILE, SchedulerRunning, run_forever
from engine.game import legal_seat_actions

# Warsaw leaves summer time on 2030-10-27 at 01:00 UTC; New York starts it 2031-03-09.
WARSAW_EVE = datetime(2030, 10, 26, 18, 0, tzinfo=UTC)  # 20:00 CEST on the Saturday
NEW_YORK_EVE = datetime(2031, 3, 9, 1, 0, tzinfo=UTC)  # 20:00 EST on the Saturday
SECOND = timedelta(seconds=1)


pytestmark = pytest.mark.usefixtures("home")


def new_game(settings: Settings, game_id: str = "tt", turn_hours: int = 48) -> GameRepo:
    path = settings.games_dir / game_id
    players = [(n, f"{n}@example.org") for n in TWO]
    return create_game(path, players, home=settings.home, secret=SECRET, turn_hours=turn_hours)


def change_deadlines(repo: GameRepo, when: datetime, **deadlines: Any) -> str:
    """Commit a change of game.toml's [deadlines] at `when`: the clock restarts then."""
    snap = snapshot(repo)
    table = snap.game.deadlines.model_copy(update=deadlines)
    game = snap.game.model_copy(update={"deadlines": table})
    return repo.commit(
        {GAME_FILE: dump_game_file(game).encode()},
        f"Deadlines: {deadlines}",
        parent=snap.commit,
        when=when,
    )


def subject(repo: GameRepo, rev: str = "refs/heads/main") -> str:
    return str(repo.repo.commit(rev).summary)


def move_text(repo: GameRepo, number: int) -> list[str]:
    snap = snapshot(repo)
    move = next(m for m in snap.moves if m.number == number)
    return [line for line in snap.text(move).splitlines() if not line.startswith("#")]


def decider(repo: GameRepo) -> str:
    pending = waiting(repo)
    assert pending is not None and len(pending.players) == 1
    return pending.players[0]


def choose_loyalties(repo: GameRepo) -> None:
    for _ in TWO:
        submit(repo, decider(repo), "loyalty british\n", home=current_home())


def install(
    monkeypatch: pytest.MonkeyPatch, name: str, **functions: Callable[..., Any]
) -> ModuleType:
    module = ModuleType(name)
    for key, value in functions.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, name, module)
    return module


# -- the clock read from the repository ------------------------------------------------------


def test_the_clock_starts_at_the_last_adjudicator_commit(settings: Settings) -> None:
    repo = new_game(settings)
    created = repo.repo.commit("HEAD").committed_datetime
    first = waiting(repo)
    assert first is not None and first.kind == "loyalty" and len(first.players) == 1
    assert first.clock.started == created
    assert first.clock.deadline == created + timedelta(hours=48)
    assert first.clock.reminder == created + timedelta(hours=36)
    submit(repo, first.players[0], "loyalty british\n", home=current_home())
    second = waiting(repo)
    assert second is not None and second.move == 1
    assert second.players != first.players and second.kind == "loyalty"
    assert second.clock.started == repo.repo.commit("HEAD").committed_datetime


def test_a_change_of_the_deadlines_table_restarts_the_clock_and_others_do_not(
    settings: Settings,
) -> None:
    repo = new_game(settings)
    change_deadlines(repo, WARSAW_EVE, timezone="Europe/Warsaw", turn_hours=24)
    assert clock_started(repo) == WARSAW_EVE
    snap = snapshot(repo)
    game = snap.game.model_copy(update={"options": {"note": "friendly"}})
    later = WARSAW_EVE + timedelta(hours=3)
    repo.commit({GAME_FILE: dump_game_file(game).encode()}, "Note", parent=snap.commit, when=later)
    assert clock_started(repo) == WARSAW_EVE


@pytest.mark.parametrize(
    ("tz", "eve", "local_deadline", "real_hours"),
    [
        ("Europe/Warsaw", WARSAW_EVE, "2030-10-27 20:00 CET", 25),
        ("America/New_York", NEW_YORK_EVE, "2031-03-09 20:00 EDT", 23),
    ],
)
def test_a_timeout_across_a_dst_change_comes_at_the_wall_clock_deadline(
    settings: Settings, tz: str, eve: datetime, local_deadline: str, real_hours: int
) -> None:
    repo = new_game(settings)
    change_deadlines(repo, eve, timezone=tz, turn_hours=24, reminder_hours=12)
    pending = waiting(repo)
    assert pending is not None
    due = pending.clock.deadline
    assert local_text(due, zone(tz)) == local_deadline
    assert due - eve == timedelta(hours=real_hours)
    assert pending.clock.reminder == due - timedelta(hours=12)
    head = repo.head()
    assert run_deadline(settings, "tt", due - SECOND) == []
    assert repo.head() == head
    done = run_deadline(settings, "tt", due)
    assert [d.number for d in done] == [1]
    assert subject(repo) == f"Move 1 for {pending.players[0]} (deadline passed): loyalty afghan"


# -- timeouts ----------------------------------------------------------------------------------


def test_a_turn_that_times_out_is_passed_by_an_adjudicator_commit(settings: Settings) -> None:
    repo = new_game(settings)
    choose_loyalties(repo)
    pending = waiting(repo)
    assert pending is not None and pending.kind == "turn"
    (player,) = pending.players
    done = apply_timeouts(repo, current_home(), pending.clock.deadline)
    assert len(done) == 1
    commit = repo.repo.commit("HEAD")
    assert commit.author.name == ADJUDICATOR.name
    assert subject(repo) == f"Move 3 for {player} (deadline passed): pass"
    assert move_text(repo, 3) == ["pass"]
    after = waiting(repo)
    assert after is not None and after.kind == "turn" and after.players != pending.players
    assert verify(repo, current_home()).ok


def test_with_on_timeout_standin_a_stand_in_plays_the_whole_turn(settings: Settings) -> None:
    """[deadlines] on_timeout = "standin": the stand-in (engine/standin.py) plays the seat
    with its own loyalty instead of passing, and the report says so."""
    repo = new_game(settings)
    choose_loyalties(repo)
    change_deadlines(repo, datetime.now(UTC), on_timeout="standin")
    pending = waiting(repo)
    assert pending is not None and pending.kind == "turn"
    (player,) = pending.players
    done = apply_timeouts(repo, current_home(), pending.clock.deadline)
    assert len(done) == 1
    assert repo.repo.commit("HEAD").author.name == ADJUDICATOR.name
    played = move_text(repo, 3)
    assert played and played != ["pass"]  # a stand-in acts; it does not just pass
    assert f"the deadline passed: a stand-in played for {player}" in done[0].report
    after = waiting(repo)
    assert after is not None and after.players != pending.players
    assert verify(repo, current_home()).ok


def test_against_wakhan_a_timeout_answers_one_turn_only(settings: Settings) -> None:
    """With one player against Wakhan, the player's next turn comes straight after
    Wakhan's; it is a new decision with its own clock, not part of the timed-out one."""
    players = [("alice", "alice@example.org")]
    repo = create_game(
        settings.games_dir / "wk", players, home=settings.home, secret=SECRET, wakhan=True
    )
    submit(repo, "alice", "loyalty british\n", home=current_home())
    pending = waiting(repo)
    assert pending is not None and pending.kind == "turn" and pending.players == ("alice",)
    done = apply_timeouts(repo, current_home(), pending.clock.deadline)
    assert len(done) == 1
    assert move_text(repo, done[0].number) == ["pass"]
    assert verify(repo, current_home()).ok


def bribe_path(state: engine.State) -> list[tuple[int, str]]:
    """Actions from `state` to a pending bribe decision, found by a seeded random bot that
    prefers playing cards (bribes come from plays into ruled regions and hostages)."""
    for seed in range(400):
        rng = random.Random(seed)
        current, path = state, list[tuple[int, str]]()
        for _ in range(300):
            decision = engine.pending(current)
            if decision is None:
                break
            if decision.kind == "bribe":
                return path
            choices = legal_seat_actions(current)
            plays = [c for c in choices if c[1].verb in ("play", "purchase")]
            seat, action = rng.choice(plays or choices)
            current = engine.apply(current, seat, action)
            path.append((seat, engine.format_action(action)))
    raise AssertionError("no bribe decision reachable")


def test_a_bribe_demand_that_times_out_demands_the_full_bribe(settings: Settings) -> None:
    repo = new_game(settings)
    state = position(snapshot(repo), current_home())
    path = bribe_path(state)
    while path:  # one move file per run of one player's actions
        seat = path[0][0]
        run = [
            text
            for _, text in path[
                : next((i for i, (s, _) in enumerate(path) if s != seat), len(path))
            ]
        ]
        path = path[len(run) :]
        submit(repo, state.name(seat), "\n".join(run) + "\n", home=current_home())
    state = position(snapshot(repo), current_home())
    decision = engine.pending(state)
    assert decision is not None and decision.kind == "bribe"
    frame = state.stack[-1]
    assert frame["kind"] == "bribe"
    amount = frame["amount"]
    assert amount >= 1
    ruler = state.name(decision.seats[0])
    pending = waiting(repo)
    assert pending is not None and pending.players == (ruler,)
    number = snapshot(repo).next_number
    assert apply_timeouts(repo, current_home(), pending.clock.deadline - SECOND) == []
    done = apply_timeouts(repo, current_home(), pending.clock.deadline + SECOND)
    assert [d.number for d in done] == [number]
    assert move_text(repo, number) == [f"demand {amount}"]
    assert subject(repo).startswith(f"Move {number} for {ruler} (deadline passed): demand {amount}")
    after = engine.pending(position(snapshot(repo), current_home()))
    assert after is None or after.kind != "bribe"


def test_a_decision_taken_in_steps_is_defaulted_to_its_end(walk: Walk) -> None:
    """A move or build that times out is finished (its first step, then `done`), a discard
    down to the hand limit goes on until the limit is met: one move file for all of it."""
    seen: set[str] = set()
    for seed in range(40):
        for state, _, _ in walk(3, seed):
            decision = engine.pending(state)
            if decision is None or decision.kind not in ("move", "build", "discard"):
                continue
            seat = decision.seats[0]
            lines = default_lines(state, seat)
            if len(lines) < 2 or decision.kind in seen:
                continue
            seen.add(decision.kind)
            default = engine.default_action(state, seat)
            assert default is not None and lines[0] == engine.format_action(default)
            depth, after = len(state.stack), state
            for line in lines:
                after = engine.apply(after, seat, engine.parse_action(line, after, seat))
            rest = engine.pending(after)
            assert not (
                rest is not None
                and rest.kind == decision.kind
                and len(after.stack) == depth
                and seat in rest.seats
            )
        if len(seen) == 3:
            return
    assert len(seen) >= 2, seen


def test_no_timeout_while_pushed_moves_wait(settings: Settings) -> None:
    repo = new_game(settings)
    snap = snapshot(repo)
    repo.commit(
        {"moves/0001-alice.txt": b"loyalty russian\n"},
        "alice: move 1",
        parent=snap.commit,
        author=Person("alice", "alice@example.org"),
    )
    pending = waiting(repo)
    assert pending is not None and pending.pushed
    head = repo.head()
    assert apply_timeouts(repo, current_home(), pending.clock.deadline + timedelta(days=1)) == []
    assert repo.head() == head


# -- reminders -------------------------------------------------------------------------------


def queued_messages(settings: Settings) -> list[EmailMessage]:
    """Every message queued (with no smtp_host, delivery writes them to outbox/written)."""
    files = sorted(
        path
        for folder in ("pending", "written")
        for path in (settings.outbox_dir / folder).glob("*.eml")
    )
    parser = BytesParser(policy=policy.default)
    return [parser.parsebytes(p.read_bytes()) for p in files]


def test_a_reminder_is_written_to_the_outbox_once(settings: Settings) -> None:
    repo = new_game(settings)
    change_deadlines(repo, WARSAW_EVE, timezone="Europe/Warsaw", turn_hours=24, reminder_hours=12)
    pending = waiting(repo)
    assert pending is not None and pending.clock.reminder is not None
    remind = pending.clock.reminder
    assert local_text(remind, zone("Europe/Warsaw")) == "2030-10-27 08:00 CET"
    assert run_reminder(settings, "tt", remind - SECOND) == []
    assert queued_messages(settings) == []
    player = decider(repo)
    assert run_reminder(settings, "tt", remind) == [player]
    (message,) = queued_messages(settings)
    assert message["To"] == f"{player} <{player}@example.org>"
    assert message["Subject"] == "[tt] Reminder: your decision is due by 2030-10-27 20:00 CET"
    assert message["Reply-To"].startswith(f"pamir+tt.{player}.")
    body = message.get_content()
    assert "2030-10-27 19:00 UTC" in body and "loyalty afghan" in body
    assert run_reminder(settings, "tt", remind + SECOND) == []  # sent already
    assert len(queued_messages(settings)) == 1
    for folder in ("pending", "written"):  # no temporary file left
        assert not list((settings.outbox_dir / folder).glob(".*"))


def test_a_pause_after_the_reminder_earns_another(settings: Settings) -> None:
    repo = new_game(settings)
    change_deadlines(repo, WARSAW_EVE, timezone="Europe/Warsaw", turn_hours=24, reminder_hours=12)
    first = waiting(repo)
    assert first is not None and first.clock.reminder is not None
    assert run_reminder(settings, "tt", first.clock.reminder) == list(first.players)
    record_pause(repo, "bob", 10, "travel", first.clock.reminder + SECOND)
    second = waiting(repo)
    assert second is not None and second.clock.reminder is not None
    assert second.clock.reminder == first.clock.reminder + timedelta(hours=10)
    assert run_reminder(settings, "tt", first.clock.reminder + timedelta(hours=1)) == []
    assert run_reminder(settings, "tt", second.clock.reminder) == list(first.players)
    assert len(queued_messages(settings)) == 2


# -- pauses ----------------------------------------------------------------------------------


def test_a_pause_is_a_commit_that_moves_the_deadline(settings: Settings) -> None:
    repo = new_game(settings)
    change_deadlines(repo, NEW_YORK_EVE, timezone="America/New_York", turn_hours=24)
    before = waiting(repo)
    assert before is not None
    parent = repo.head()
    made, pause, after = record_pause(repo, "bob", 30, "at sea", NEW_YORK_EVE + timedelta(hours=2))
    assert repo.head() == made
    commit = repo.repo.commit(made)
    assert commit.author.name == "bob" and commit.committer.name == ADJUDICATOR.name
    assert {d.a_path for d in commit.diff(parent)} == {DEADLINES_FILE}
    assert f"Pamir-Deadline: {after.deadline.isoformat()}" in str(commit.message)
    assert pause.start == NEW_YORK_EVE + timedelta(hours=2)
    now = waiting(repo)
    assert now is not None and now.clock == after
    assert after.deadline == before.clock.deadline + timedelta(hours=30)
    assert after.started == before.clock.started  # a pause does not restart the clock
    assert run_deadline(settings, "tt", before.clock.deadline) == []
    assert len(run_deadline(settings, "tt", after.deadline)) == 1
    assert verify(repo, current_home()).ok


def test_pauses_beyond_the_limits_are_refused_and_commit_nothing(settings: Settings) -> None:
    repo = new_game(settings)
    now = datetime.now(UTC)
    record_pause(repo, "alice", 168, "week one", now)
    record_pause(repo, "alice", 168, "week two", now)
    head = repo.head()
    with pytest.raises(PauseRefused) as refused:
        record_pause(repo, "alice", 1, "more", now)
    assert refused.value.code == "pause-limit"
    with pytest.raises(PauseRefused) as refused:
        record_pause(repo, "bob", 169, "long", now)
    assert refused.value.code == "pause-too-long"
    with pytest.raises(PauseRefused) as refused:
        record_pause(repo, "zoe", 1, "who?", now)
    assert refused.value.code == "unknown-player"
    assert repo.head() == head


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="pamir")
    cli_parser.register_service(root.add_subparsers(dest="command", required=True))
    return root


def test_pamir_pause(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    repo = new_game(settings)
    before = waiting(repo)
    assert before is not None
    args = parser().parse_args(
        ["pause", str(repo.path), "--as", "Bob", "--hours", "12", "--reason", "a wedding"]
    )
    args.func(args)
    out = capsys.readouterr().out
    after = waiting(repo)
    assert after is not None and after.clock.deadline == before.clock.deadline + timedelta(hours=12)
    assert out.startswith("tt: clock paused for 12 hours") and "(bob)" in out
    assert "a wedding" in str(repo.repo.commit("HEAD").message)
    args = parser().parse_args(
        ["pause", str(repo.path), "--as", "bob", "--hours", "400", "--reason", "x"]
    )
    with pytest.raises(Refused, match="pause-too-long"):
        args.func(args)


# -- the jobs ------------------------------------------------------------------------------------


def jobs(scheduler: BaseScheduler) -> dict[str, str]:
    return {job.id: job.name for job in scheduler.get_jobs()}


def test_jobs_are_rebuilt_from_the_repositories_after_a_restart(settings: Settings) -> None:
    repo = new_game(settings)
    other = new_game(settings, "uu", turn_hours=72)
    choose_loyalties(other)
    due = {g: waiting(r) for g, r in (("tt", repo), ("uu", other))}
    now = datetime.now(UTC) + timedelta(hours=1)
    first = sched.build_scheduler(settings, clock=lambda: now)
    built = jobs(first)
    assert set(built) == {
        "deadline:tt",
        "reminder:tt",
        "deadline:uu",
        "reminder:uu",
        "poll",
        "fetch",
        "watch",
        "outbox",
        "digest",
        "prune",
    }
    for game_id, pending in due.items():
        assert pending is not None
        assert built[f"deadline:{game_id}"].endswith(pending.clock.deadline.isoformat())
        assert pending.clock.reminder is not None
        assert built[f"reminder:{game_id}"].endswith(pending.clock.reminder.isoformat())
    first.start()
    assert jobs(first) == built
    first.shutdown()
    second = sched.build_scheduler(settings, clock=lambda: now)
    assert jobs(second) == built


def test_refresh_follows_the_game(settings: Settings) -> None:
    repo = new_game(settings)
    now = datetime.now(UTC)
    scheduler = sched.build_scheduler(settings, clock=lambda: now)
    old = jobs(scheduler)["deadline:tt"]
    submit(repo, decider(repo), "loyalty afghan\n", home=current_home())
    sched.refresh_game(scheduler, settings, "tt")
    pending = waiting(repo)
    assert pending is not None
    new = jobs(scheduler)["deadline:tt"]
    assert new != old and new.endswith(pending.clock.deadline.isoformat())
    assert len(scheduler.get_jobs()) == 8  # replaced, not added
    repo.repo.close()
    for path in sorted(repo.path.rglob("*"), reverse=True):
        path.unlink() if not path.is_dir() or path.is_symlink() else path.rmdir()
    repo.path.rmdir()
    sched.refresh_all(scheduler, settings)
    assert set(jobs(scheduler)) == {"poll", "fetch", "watch", "outbox", "digest", "prune"}


def test_no_reminder_job_once_the_reminder_was_sent(settings: Settings) -> None:
    repo = new_game(settings)
    pending = waiting(repo)
    assert pending is not None and pending.clock.reminder is not None
    run_reminder(settings, "tt", pending.clock.reminder)
    reminded = pending.clock.reminder
    scheduler = sched.build_scheduler(settings, clock=lambda: reminded)
    expected = {"deadline:tt", "poll", "fetch", "watch", "outbox", "digest", "prune"}
    assert set(jobs(scheduler)) == expected


def test_the_real_scheduler_applies_defaults_when_deadlines_pass(settings: Settings) -> None:
    """A real BackgroundScheduler on a real repository: the clock runs 1 hour - 1 second
    ahead, so the 1-hour deadline of each decision passes a second after it begins. Both
    loyalties time out in turn, the deadline job rescheduling itself after the first."""
    repo = new_game(settings, turn_hours=1)
    first_to_choose = decider(repo)
    ahead = timedelta(hours=1) - SECOND
    scheduler = sched.build_scheduler(settings, clock=lambda: datetime.now(UTC) + ahead)
    scheduler.start()
    try:
        limit = time.monotonic() + 15
        while snapshot(repo).adjudicated < 2 and time.monotonic() < limit:
            time.sleep(0.1)
    finally:
        scheduler.shutdown(wait=True)
    first, second = (first_to_choose, *(n for n in TWO if n != first_to_choose))
    subjects = [str(c.summary) for c in repo.log()]
    assert subjects[1:3] == [
        f"Move 1 for {first} (deadline passed): loyalty afghan",
        f"Move 2 for {second} (deadline passed): loyalty afghan",
    ]
    assert all(c.author.name == ADJUDICATOR.name for c in repo.log()[1:3])
    assert position(snapshot(repo), current_home()).phase == "play"


def test_a_shutdown_while_a_deadline_job_runs_does_not_hang(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """APScheduler 3 holds its job store lock while it waits for running jobs; a job that
    refreshes its game's jobs then must not wait for that lock."""
    new_game(settings, turn_hours=1)
    running = threading.Event()
    scheduler = sched.build_scheduler(
        settings, clock=lambda: datetime.now(UTC) + timedelta(hours=2)
    )

    def slow_deadline(
        settings: Settings, game_id: str, now: datetime, *, deliver: bool = True
    ) -> list[Adjudication]:
        running.set()
        limit = time.monotonic() + 5
        while not scheduler.pamir_stopping and time.monotonic() < limit:
            time.sleep(0.01)
        time.sleep(0.05)  # the shutdown is under way: refresh_game comes now
        return []

    monkeypatch.setattr(sched, "run_deadline", slow_deadline)
    scheduler.start()
    assert running.wait(5)
    stopper = threading.Thread(target=scheduler.shutdown, daemon=True)
    stopper.start()
    stopper.join(5)
    assert not stopper.is_alive()


# -- through the real mail and forge modules ----------------------------------------------------


def test_reminders_and_timeouts_reach_a_real_mail_server(home: Path) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo = new_game(settings)
        pending = waiting(repo)
        assert pending is not None and pending.clock.reminder is not None
        scheduler = sched.build_scheduler(settings)
        assert scheduler.get_job("outbox").trigger.interval == timedelta(
            seconds=settings.outbox_retry_seconds
        )
        (player,) = pending.players
        assert run_reminder(settings, "tt", pending.clock.reminder) == [player]
        (reminder,) = server.to(f"{player}@example.org")
        assert str(reminder["Subject"]).startswith("[tt] Reminder: your decision is due by")
        assert len(run_deadline(settings, "tt", pending.clock.deadline)) == 1
        reports = [m for m in server.messages if "Reminder" not in str(m["Subject"])]
        assert sorted(str(m["To"]) for m in reports) == [
            "alice <alice@example.org>",
            "bob <bob@example.org>",
        ]
        for report in reports:
            body = report.get_body(("plain",))
            assert body is not None and "the default answer was given" in body.get_content()


def test_the_outbox_job_delivers_what_waited_for_the_mail_server(home: Path) -> None:
    port = free_port()
    settings = settings_for(home, port)
    repo = new_game(settings)
    pending = waiting(repo)
    assert pending is not None
    run_deadline(settings, "tt", pending.clock.deadline)  # the server is down
    waiting_mail = list((settings.outbox_dir / "pending").glob("*.eml"))
    assert waiting_mail
    with mail_server(port) as server:
        retry_outbox(settings)  # not due yet: the retry waits its delay
        assert server.messages == []
        later = datetime.now(UTC) + timedelta(seconds=settings.outbox_retry_seconds + 1)
        outbox.deliver(settings, now=later)
        assert len(server.messages) == len(waiting_mail)


def forge_game(tmp_path: Path, settings: Settings, game_id: str) -> tuple[Path, GameRepo]:
    """A game on a forge simulated by a local bare repository, and the service's clone."""
    origin = tmp_path / "forge" / f"{game_id}.git"
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "--bare", "--initial-branch=main")
    players = [(n, f"{n}@example.org") for n in TWO]
    repo = newgames.create_remote_game(
        settings, str(origin), players, game_id=game_id, secret=SECRET
    )
    return origin, repo


def push_as_player(tmp_path: Path, origin: Path, player: str, text: str) -> None:
    """A player clones the forge's repository and pushes their next move file."""
    clone = tmp_path / f"clone-{player}-{len(list(tmp_path.glob('clone-*')))}"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    number = len(list((clone / "moves").glob("*.txt"))) + 1
    (clone / "moves").mkdir(exist_ok=True)
    (clone / "moves" / f"{number:04d}-{player}.txt").write_text(text)
    git(clone, "add", "moves")
    git(
        clone,
        "-c",
        f"user.email={player}@example.org",
        "-c",
        f"user.name={player}",
        "commit",
        "-q",
        "--author",  # the environment's author would win over user.email
        f"{player} <{player}@example.org>",
        "-m",
        f"{player}: move {number}",
    )
    git(clone, "push", "-q", "origin", "main")


def test_the_fetch_job_fetches_each_forge_hosted_game_in_its_slot_only(
    tmp_path: Path, settings: Settings
) -> None:
    """The polls are spread over time: each run of the fetch job fetches the games of one
    slot, so a game is fetched once every poll_minutes and a run never fetches them all."""
    origin, repo = forge_game(tmp_path, settings, "tt")
    slots = settings.poll_minutes * 60 // sched.FETCH_SLICE_SECONDS
    assert slots > 1
    mine = jobs_module.poll_share("tt", slots)
    player = decider(repo)
    push_as_player(tmp_path, origin, player, "loyalty british\n")
    other = (mine + 1) % slots
    assert poll_remote(settings, (other, slots)) == []
    assert snapshot(repo).adjudicated == 0  # not this game's slot: not fetched
    assert poll_remote(settings, (mine, slots)) == ["tt"]
    assert snapshot(repo).moves[-1].player == player
    scheduler = sched.build_scheduler(settings)
    fetched = sched.fetch_slice(scheduler, settings)  # the slot of this moment
    assert fetched in ([], ["tt"])


def test_forge_hosted_games_are_polled_and_fetched_before_a_timeout(
    tmp_path: Path, settings: Settings
) -> None:
    origin, repo = forge_game(tmp_path, settings, "tt")
    new_game(settings, "uu")  # hosted here: not polled
    player = decider(repo)
    push_as_player(tmp_path, origin, player, "loyalty british\n")
    assert poll_remote(settings) == ["tt"]
    assert snapshot(repo).moves[-1].player == player  # adjudicated from the forge
    assert git(origin, "rev-parse", "main").strip() == repo.head()  # and pushed back
    pending = waiting(repo)
    assert pending is not None
    assert run_deadline(settings, "tt", pending.clock.deadline - SECOND) == []
    # An answer pushed in time wins over the default, though the deadline has passed. Commit
    # times count in whole seconds: the next decision's clock must start after this one's.
    time.sleep(1.1)
    push_as_player(tmp_path, origin, decider(repo), "loyalty russian\n")
    assert run_deadline(settings, "tt", pending.clock.deadline) == []
    assert "loyalty russian" in snapshot(repo).text(snapshot(repo).moves[-1])
    assert git(origin, "rev-parse", "main").strip() == repo.head()


# -- the process -------------------------------------------------------------------------------


def test_pamir_scheduler_once(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    repo = new_game(settings, turn_hours=1)
    repo.repo.close()
    args = parser().parse_args(["scheduler", "--once"])
    args.func(args)
    assert capsys.readouterr().out == ""  # nothing due yet
    later = datetime.now(UTC) + timedelta(hours=2)
    done = run_once(settings, later)
    assert list(done.timed_out) == ["tt"] and done.timed_out["tt"][0].number == 1


def test_run_forever_stops_cleanly_and_is_alone(settings: Settings) -> None:
    new_game(settings)
    stop = threading.Event()
    runner = threading.Thread(target=run_forever, args=(settings, stop))
    runner.start()
    try:
        deadline = time.monotonic() + 5
        while not (settings.home / "locks" / LOCK_FILE).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)
        with pytest.raises(SchedulerRunning):
            run_forever(settings, threading.Event())
    finally:
        stop.set()
        runner.join(10)
    assert not runner.is_alive()


# -- deadlines nobody can game or stall --------------------------------------------------------


def at(monkeypatch: pytest.MonkeyPatch, when: datetime) -> None:
    """Adjudications from now on are committed at `when` (the clock reads commit times)."""
    from adjudicator.games import pipeline, rollback

    monkeypatch.setattr(pipeline, "now", lambda: when)
    monkeypatch.setattr(rollback, "now", lambda: when)


def three_players(settings: Settings) -> GameRepo:
    path = settings.games_dir / "tt"
    players = [(n, f"{n}@example.org") for n in THREE]
    repo = create_game(path, players, home=settings.home, secret=SECRET)
    for _ in THREE:
        submit(repo, decider(repo), "loyalty british\n", home=current_home())
    return repo


def test_agreeing_again_to_a_rollback_is_refused_and_keeps_the_clock(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player who proposed or already agreed cannot agree again: each agreement would
    restart the clock, and the player could extend their own deadline forever."""
    repo = three_players(settings)
    proposed = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    at(monkeypatch, proposed)
    submit(repo, "alice", "rollback 1 I misread the cards\n", home=current_home())
    at(monkeypatch, proposed + timedelta(hours=40))
    head = repo.head()
    with pytest.raises(Refusal) as refused:
        submit(repo, "alice", "agree rollback\n", home=current_home())
    assert refused.value.code == "already-agreed" and "alice" in refused.value.message
    assert repo.head() == head
    submit(repo, "bob", "agree rollback\n", home=current_home())  # a new agreement counts
    agreed = proposed + timedelta(hours=40)
    assert clock_started(repo) == agreed
    head = repo.head()
    at(monkeypatch, agreed + timedelta(hours=40))
    with pytest.raises(Refusal) as refused:
        submit(repo, "bob", "agree rollback\n", home=current_home())
    assert refused.value.code == "already-agreed"
    assert repo.head() == head and clock_started(repo) == agreed
    report = repo.read("reports/0005.md") or ""
    assert "bob agrees" in report and "alice, bob" in report
    assert "bob agrees" in subject(repo)


def test_a_refused_pushed_move_does_not_restart_the_clock(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a move that changes the position or a rollback proposal restarts the clock: a
    pushed move that is refused changes neither, and must not buy its author more time."""
    repo = new_game(settings)
    started = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    at(monkeypatch, started)
    submit(repo, decider(repo), "loyalty british\n", home=current_home())
    player = decider(repo)
    repo.commit(
        {f"moves/0002-{player}.txt": b"loyalty nobody\n"},
        "my move",
        parent=repo.head(),
        author=Person(player, f"{player}@example.org"),
    )
    at(monkeypatch, started + timedelta(hours=47))
    (done,) = adjudicate_pending(repo, current_home())
    assert subject(repo).startswith("Refuse move 2")
    pending = waiting(repo)
    assert pending is not None and pending.clock.started == started
    assert pending.clock.deadline == started + timedelta(hours=48)
    assert local_text(pending.clock.deadline, zone("UTC")) in done.report
    assert verify(repo, current_home()).ok


def test_a_pause_asked_for_after_the_deadline_is_refused(settings: Settings) -> None:
    repo = new_game(settings)
    pending = waiting(repo)
    assert pending is not None
    head = repo.head()
    with pytest.raises(PauseRefused) as refused:
        record_pause(repo, "bob", 10, "ill", pending.clock.deadline + timedelta(hours=1))
    assert refused.value.code == "deadline-passed"
    assert "deadline" in str(refused.value.message) and "passed" in str(refused.value.message)
    assert repo.head() == head
    assert len(run_deadline(settings, "tt", pending.clock.deadline + timedelta(hours=1))) == 1


def allow_late_pauses(repo: GameRepo) -> None:
    text = "[limits]\nlate_pause = true\n"
    repo.commit({DEADLINES_FILE: text.encode()}, "Allow late pauses", parent=repo.head())


def test_a_late_pause_when_allowed_stops_the_clock_before_the_default(settings: Settings) -> None:
    repo = new_game(settings)
    allow_late_pauses(repo)
    before = waiting(repo)
    assert before is not None
    late = before.clock.deadline + timedelta(hours=1)
    _, pause, after = record_pause(repo, "bob", 10, "ill", late)
    assert pause.start == before.clock.deadline - SECOND  # while the clock still ran
    assert after.deadline == before.clock.deadline + timedelta(hours=10)
    now = waiting(repo)
    assert now is not None and now.clock == after
    assert run_deadline(settings, "tt", late) == []  # no default: the pause came first
    assert len(run_deadline(settings, "tt", after.deadline)) == 1
    assert verify(repo, current_home()).ok


def test_a_report_written_during_a_pause_gives_the_deadline_the_scheduler_enforces(
    settings: Settings,
) -> None:
    repo = new_game(settings)
    record_pause(repo, "bob", 12, "a wedding", datetime.now(UTC))
    done = submit(repo, decider(repo), "loyalty british\n", home=current_home())
    pending = waiting(repo)
    assert pending is not None
    due = local_text(pending.clock.deadline, zone(pending.timezone))
    assert f"(by {due})" in done.report
    assert f"(by {due})" in (repo.read("reports/0001.md") or "")
    assert verify(repo, current_home()).ok


def test_a_reminder_says_the_default_is_played(settings: Settings) -> None:
    repo = new_game(settings)
    pending = waiting(repo)
    assert pending is not None and pending.clock.reminder is not None
    run_reminder(settings, "tt", pending.clock.reminder)
    (message,) = queued_messages(settings)
    body = message.get_content()
    assert "the adjudicator plays the default for you: loyalty afghan" in body
    assert "stand-in" not in body


def test_a_reminder_in_a_game_with_the_stand_in_says_the_stand_in_plays(
    settings: Settings,
) -> None:
    repo = new_game(settings)
    change_deadlines(repo, datetime.now(UTC), on_timeout="standin")
    pending = waiting(repo)
    assert pending is not None and pending.clock.reminder is not None
    run_reminder(settings, "tt", pending.clock.reminder)
    (message,) = queued_messages(settings)
    body = message.get_content()
    assert "a stand-in plays your turn for you" in body
    assert "plays the default" not in body
