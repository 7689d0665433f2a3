"""A mail server that is slow, refuses, or is down never stalls or games the deadlines.

Three cases, each through a real server: a socket that accepts and never answers (the
scheduler's game work must not wait on it inside a game's lock), an aiosmtpd server that
refuses one recipient for good (550) and another for now (451), and a server that is down
while a player's turn mail waits in the outbox (their clock must not run meanwhile).
"""

from __future__ import annotations

import argparse
import fcntl
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import Envelope, Session
from gitgame import SECRET
from mailserver import MailServer, free_port, mail_server, settings_for

from adjudicator.cli.mail import cmd_outbox
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.repo import GameRepo
from adjudicator.home.settings import Settings
from adjudicator.mail import outbox, report_mails
from adjudicator.mail.links import page_links
from adjudicator.mail.outbox.folders import failure_info, retry_info
from adjudicator.schedule import jobs
from adjudicator.schedule import scheduler as sched
from adjudicator.schedule.clock import waiting
from adjudicator.web import create_app

pytestmark = pytest.mark.usefixtures("home")


def new_game(
    settings: Settings, game_id: str, names: tuple[str, ...] = ("alice", "bob")
) -> GameRepo:
    players = [(n, f"{n}@example.org") for n in names]
    return create_game(settings.games_dir / game_id, players, home=settings.home, secret=SECRET)


def mail_the_new_game(settings: Settings, repo: GameRepo) -> None:
    head = repo.head()
    assert head is not None
    report_mails.notify(settings, repo, [Adjudication(0, head, repo.read("reports/0000.md") or "")])


def deadline_of(repo: GameRepo) -> datetime:
    pending = waiting(repo)
    assert pending is not None
    return pending.clock.deadline


# -- a server that accepts and never answers ---------------------------------------------------


class SilentServer:
    """Accepts connections and never writes a byte. At each connection it notes which game
    locks another process could take at that moment."""

    def __init__(self, settings: Settings, games: list[str]) -> None:
        self.settings, self.games = settings, games
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.held_at_connection: list[list[str]] = []
        self.connections: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _held_locks(self) -> list[str]:
        held = []
        for game_id in self.games:
            path = self.settings.home / "locks" / f"{game_id}.lock"
            if not path.exists():
                continue
            with open(path, "a", encoding="ascii") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    held.append(game_id)
                else:
                    fcntl.flock(handle, fcntl.LOCK_UN)
        return held

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held_at_connection.append(self._held_locks())
            self.connections.append(connection)  # kept open, never answered


@contextmanager
def silent_server(settings: Settings, games: list[str]) -> Iterator[SilentServer]:
    server = SilentServer(settings, games)
    server.thread.start()
    try:
        yield server
    finally:
        server.listener.close()
        for connection in server.connections:
            connection.close()


GAMES = ["s1", "s2", "s3", "s4"]


def test_a_silent_mail_server_never_holds_up_the_games_deadlines(home: Path) -> None:
    """The scheduler's tick plays every due default, and only then, with every game lock
    released, tries the mail server: once, not once per game."""
    plain = settings_for(home, None)
    repos = [new_game(plain, game_id) for game_id in GAMES]
    due = max(deadline_of(repo) for repo in repos) + timedelta(seconds=1)
    with silent_server(plain, GAMES) as server:
        settings = settings_for(home, server.port, smtp_timeout=2.0, smtp_connections=2)
        done = jobs.run_once(settings, due)
        assert sorted(done.timed_out) == GAMES
        # One attempt (its two sessions, opened at once), no game lock held.
        assert server.held_at_connection == [[], []]
    pending = outbox.messages_in(settings, outbox.PENDING)
    assert len(pending) == 2 * len(GAMES)  # each game's report to both players waits
    assert all(retry_info(p)["attempts"] == 1 for p in pending)


def test_the_deadline_jobs_leave_the_sending_to_the_outbox_job(home: Path) -> None:
    plain = settings_for(home, None)
    repos = [new_game(plain, game_id) for game_id in GAMES]
    due = max(deadline_of(repo) for repo in repos) + timedelta(seconds=1)
    with silent_server(plain, GAMES) as server:
        settings = settings_for(home, server.port, smtp_timeout=2.0)
        scheduler = sched.build_scheduler(settings, clock=lambda: due)
        for game_id in GAMES:
            sched.deadline_job(scheduler, settings, game_id)
        assert server.held_at_connection == []  # nothing sent from inside the game work
        assert len(outbox.messages_in(settings, outbox.PENDING)) == 2 * len(GAMES)
        outbox_job = scheduler.get_job(sched.OUTBOX_JOB)
        assert outbox_job.next_run_time <= datetime.now(UTC) + timedelta(seconds=1)


# -- permanent and temporary refusals ----------------------------------------------------------


class Refusing:
    """Refuses bob for good and carol for now; accepts everyone else."""

    def __init__(self, server: MailServer) -> None:
        self.recorder = server.recorder
        self.rcpts: list[str] = []

    async def handle_RCPT(
        self,
        server: SMTPServer,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        self.rcpts.append(address)
        if address.startswith("bob@"):
            return "550 5.1.1 <bob@example.org>: mailbox unavailable"
        if address.startswith("carol@"):
            return "451 4.7.1 greylisted, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        return await self.recorder.handle_DATA(server, session, envelope)


def test_a_permanent_refusal_stops_retries_and_tells_the_host(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    server = MailServer(port)
    handler = Refusing(server)
    server.controller.handler = handler
    settings = settings_for(home, port, operator_email="host@example.org")
    repo = new_game(settings, "g1", ("alice", "bob", "carol"))
    head = repo.head()
    assert head is not None
    report = repo.read("reports/0000.md", head) or ""
    with server:
        report_mails.notify(settings, repo, [Adjudication(0, head, report)])
        assert [str(m["To"]) for m in server.messages] == ["alice <alice@example.org>"]
        failed = outbox.messages_in(settings, outbox.FAILED)
        assert len(failed) == 1 and "-bob-" in failed[0].name
        assert "550" in failure_info(failed[0])["reason"]
        waiting_mail = outbox.messages_in(settings, outbox.PENDING)
        assert sum("-carol-" in p.name for p in waiting_mail) == 1

        later = datetime.now(UTC) + timedelta(hours=1)
        handler.rcpts.clear()
        outbox.deliver(settings, now=later)
        assert not any(r.startswith("bob@") for r in handler.rcpts)  # never again
        assert any(r.startswith("carol@") for r in handler.rcpts)  # backing off, retried
        (carol,) = outbox.messages_in(settings, outbox.PENDING)
        assert retry_info(carol)["attempts"] == 2
        (alert,) = server.to("host@example.org")
        text = alert.get_content()
        assert "bob" in text and "550" in text and "g1" in str(alert["Subject"])

    page = create_app({"home": home, "TESTING": True}).test_client().get("/games/g1").text
    assert "mail to bob cannot be delivered: 550" in page
    assert "bob@example.org" not in page  # the page never shows an address

    monkeypatch.setenv("PAMIR_HOME", str(home))
    monkeypatch.setenv("PAMIR_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PAMIR_SMTP_PORT", str(port))
    cmd_outbox(argparse.Namespace(send=False))
    out = capsys.readouterr().out
    assert "failed  1" in out and failed[0].name in out and "550" in out


# -- the clock waits for the turn mail -----------------------------------------------------


def test_no_default_while_the_turn_mail_waits_and_no_late_reminder(home: Path) -> None:
    """The server is down when the game starts: the deadline counts from the moment the
    player's turn mail was accepted, and a reminder that could only arrive after the
    deadline is not sent; the report of the default tells the player instead."""
    port = free_port()
    settings = settings_for(home, port)
    repo = new_game(settings, "tt")
    head = repo.head()
    assert head is not None
    report = repo.read("reports/0000.md", head) or ""
    report_mails.notify(settings, repo, [Adjudication(0, head, report)])  # the server is down
    pending = waiting(repo)
    assert pending is not None and pending.clock.reminder is not None
    (player,) = pending.players
    first, remind = pending.clock, pending.clock.reminder
    assert jobs.run_reminder(settings, "tt", remind) == []
    assert jobs.run_deadline(settings, "tt", first.deadline + timedelta(hours=1)) == []

    accepted = first.started + timedelta(hours=5)
    with mail_server(port) as server:
        outbox.deliver(settings, now=accepted, force=True)
        assert len(server.messages) == 2
    assert jobs.run_deadline(settings, "tt", first.deadline + timedelta(hours=1)) == []
    deadline = first.deadline + timedelta(hours=5)
    # The server is down again when the reminder is written, and back after the deadline.
    assert jobs.run_reminder(settings, "tt", deadline - timedelta(hours=11)) == [player]
    assert len(jobs.run_deadline(settings, "tt", deadline + timedelta(seconds=1))) == 1
    with mail_server(port) as server:
        outbox.deliver(settings, now=deadline + timedelta(minutes=2), force=True)
        subjects = [str(m["Subject"]) for m in server.to(f"{player}@example.org")]
        assert subjects and not any("Reminder" in s for s in subjects)
        (told,) = server.to(f"{player}@example.org")
        body = told.get_body(("plain",))
        assert body is not None and "the default answer was given" in body.get_content()
    assert outbox.messages_in(settings, outbox.PENDING) == []


def test_without_smtp_host_the_clock_runs_from_the_commit(home: Path) -> None:
    settings = settings_for(home, None)
    repo = new_game(settings, "tt")
    mail_the_new_game(settings, repo)
    deadline = deadline_of(repo)
    assert len(jobs.run_deadline(settings, "tt", deadline + timedelta(seconds=1))) == 1


def test_the_pages_show_the_deadline_the_scheduler_enforces(home: Path) -> None:
    """A late turn mail delays the enforced deadline: the game page and the player's own
    page say so while the mail waits, and then give the delayed deadline."""
    port = free_port()
    settings = settings_for(home, port)
    repo = new_game(settings, "tt")
    mail_the_new_game(settings, repo)
    pending = waiting(repo)
    assert pending is not None
    (player,) = pending.players
    app = create_app({"home": home, "smtp_host": "127.0.0.1", "smtp_port": port, "TESTING": True})
    private = page_links(settings, "tt", player).private.removeprefix(settings.base_url)

    def shown(path: str) -> str:
        return app.test_client().get(path).text

    committed = f"{pending.clock.deadline:%Y-%m-%d %H:%M} UTC"
    for path in ("/games/tt", private):
        assert "at the earliest (the turn mail waits to be sent" in shown(path)

    accepted = pending.clock.started + timedelta(hours=5)
    with mail_server(port):
        outbox.deliver(settings, now=accepted, force=True)
    enforced = f"{pending.clock.deadline + timedelta(hours=5):%Y-%m-%d %H:%M} UTC"
    for path in ("/games/tt", private):
        text = shown(path)
        # The status line; the committed report below keeps what it said at the commit.
        assert f", by {enforced}:" in text and f", by {committed}:" not in text
        assert "at the earliest" not in text
