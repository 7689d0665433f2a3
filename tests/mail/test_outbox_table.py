"""The outbox as a table in PostgreSQL mode (docs/cluster.md#the-outbox), on a real server
and a real SMTP server: a key queued once, retries, refusals for good, the written mode,
two nodes sending from one table (none twice), and a node killed while it holds a claim.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import psycopg
import pytest
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import Envelope, Session
from gitgame import pamir
from mailserver import MailServer, free_port, mail_server, settings_for
from pgserver import SECRET_KEY, scratch_database, wait_for
from test_cluster import secret_key  # noqa: F401 - the fixture: the key of the database's secrets
from test_mail_delays import Refusing, mail_the_new_game, new_game

from adjudicator.cli.mail import cmd_outbox
from adjudicator.home import database
from adjudicator.home.settings import Settings
from adjudicator.mail import outbox
from adjudicator.mail.outbox.common import header_block

pytestmark = pytest.mark.usefixtures("home", "secret_key")


@pytest.fixture
def database_url() -> Iterator[str]:
    with scratch_database() as url:
        yield url


def clustered(home: Path, port: int | None, url: str, **overrides: object) -> Settings:
    settings = settings_for(home, port, database_url=url, secret_key=SECRET_KEY, **overrides)
    database.upgrade(settings)
    return settings


def message(number: int, player: str = "alice") -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = "pamir@pamir.example"
    mail["To"] = f"{player}@players.example"
    mail["Subject"] = f"message {number}"
    mail["X-Pamir-Game"] = "g1"
    mail["X-Pamir-Player"] = player
    mail["X-Pamir-Move"] = str(number)
    mail.set_content(f"number {number}\n")
    return mail


def rows(url: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as connection:
        return connection.execute(
            "SELECT message_key, state, attempts, claimed_by FROM pamir_outbox ORDER BY id"
        ).fetchall()


def numbers(server: MailServer) -> Counter[str]:
    return Counter(str(m["Subject"]) for m in server.messages)


def test_a_key_is_queued_once_and_sent_once(home: Path, database_url: str) -> None:
    with mail_server() as server:
        settings = clustered(home, server.port, database_url)
        first = outbox.queue(settings, message(1), "g1-0001-alice-report-abc")
        again = outbox.queue(settings, message(1), "g1-0001-alice-report-abc")
        assert first == again and outbox.queued(settings, "g1-0001-alice-report-abc") == first
        assert outbox.is_pending(settings, "g1-0001-alice-report")
        assert outbox.accepted_at(settings, "g1", "g1-0001-alice-report") is None
        listing = pamir("nodes", env={"PAMIR_DATABASE_URL": database_url})
        assert "outbox: 1 messages pending" in listing.stdout, listing.stderr  # the table's
        report = outbox.deliver(settings)
        assert [p.name for p in report.sent] == [first.name]
        assert numbers(server) == Counter({"message 1": 1})
        assert outbox.deliver(settings).sent == []  # nothing twice
        assert not outbox.is_pending(settings, "g1-0001-alice-report")
        accepted = outbox.accepted_at(settings, "g1", "g1-0001-alice-report")
        assert accepted is not None and abs(datetime.now(UTC) - accepted) < timedelta(minutes=1)
        # Sent, the key still holds: queuing it again sends nothing.
        outbox.queue(settings, message(1), "g1-0001-alice-report-abc")
        assert outbox.deliver(settings).sent == []
    assert rows(database_url) == [("g1-0001-alice-report-abc", "sent", 0, None)]
    assert not (home / "outbox").exists()  # no file at all


def test_refusals_for_good_and_for_now_from_the_table(
    home: Path,
    database_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port = free_port()
    server = MailServer(port)
    handler = Refusing(server)
    server.controller.handler = handler
    settings = clustered(home, port, database_url, operator_email="host@example.org")
    repo = new_game(settings, "g1", ("alice", "bob", "carol"))
    with server:
        mail_the_new_game(settings, repo)
        # The operator's alert, queued during the run, goes in the same run.
        to = sorted(str(m["To"]) for m in server.messages)
        assert to == ["alice <alice@example.org>", "host@example.org"]
        failed = outbox.messages_in(settings, outbox.FAILED)
        assert len(failed) == 1 and "-bob-" in failed[0].name
        (bob,) = outbox.undeliverable(settings, "g1")
        assert bob.player == "bob" and "550" in bob.reason
        (carol,) = outbox.messages_in(settings, outbox.PENDING)
        assert "-carol-" in carol.name
        assert outbox.deliver(settings).waiting == [carol]  # its back-off runs

        later = datetime.now(UTC) + timedelta(hours=1)
        handler.rcpts.clear()
        report = outbox.deliver(settings, now=later)
        assert not any(r.startswith("bob@") for r in handler.rcpts)  # never again
        assert any(r.startswith("carol@") for r in handler.rcpts)  # backing off, retried
        assert report.deferred == [carol]
        (alert,) = server.to("host@example.org")  # once
        assert "bob" in alert.get_content() and "550" in alert.get_content()
        assert f"Message: {failed[0].name} (table pamir_outbox)" in alert.get_content()
    states = Counter(str(state) for _, state, _, _ in rows(database_url))
    assert states == Counter({"sent": 2, "failed": 1, "pending": 1})  # sent: alice, the alert
    carol_row = [r for r in rows(database_url) if "-carol-" in str(r[0])]
    assert carol_row[0][2] == 2  # attempts

    monkeypatch.setenv("PAMIR_HOME", str(home))
    monkeypatch.setenv("PAMIR_DATABASE_URL", database_url)
    monkeypatch.setenv("PAMIR_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("PAMIR_SMTP_PORT", str(port))
    cmd_outbox(argparse.Namespace(send=False))
    out = capsys.readouterr().out
    assert "outbox: table pamir_outbox" in out
    assert "pending 1" in out and "2 failed attempts" in out and "451" in out
    assert "failed  1" in out and failed[0].name in out and "550" in out


def test_a_mail_server_away_puts_off_every_due_message(home: Path, database_url: str) -> None:
    settings = clustered(home, free_port(), database_url)  # nothing listens there
    for number in (1, 2, 3):
        outbox.queue(settings, message(number), f"g1-{number:04d}-alice-report-x")
    now = datetime.now(UTC)
    report = outbox.deliver(settings, now)
    assert len(report.deferred) == 3 and "cannot reach" in report.errors[0]
    assert [(r[1], r[2], r[3]) for r in rows(database_url)] == [("pending", 1, None)] * 3
    assert outbox.deliver(settings, now).waiting == outbox.messages_in(settings, "pending")
    later = now + timedelta(seconds=settings.outbox_retry_seconds)
    assert len(outbox.deliver(settings, later).deferred) == 3  # due again: tried again
    with psycopg.connect(database_url) as connection:
        waits = connection.execute(
            "SELECT DISTINCT attempts, next_attempt - %s FROM pamir_outbox", (later,)
        ).fetchall()
    assert waits == [(2, timedelta(seconds=2 * settings.outbox_retry_seconds))]  # doubled


def test_with_no_smtp_host_the_messages_are_written_on_the_delivering_node(
    home: Path, database_url: str
) -> None:
    settings = clustered(home, None, database_url)
    queued = outbox.queue(settings, message(1), "g1-0001-alice-report-abc")
    assert not queued.exists()  # a row, not a file
    (written,) = outbox.deliver(settings).written
    assert written.parent == home / "outbox" / "written" and written.name == queued.name
    assert b"number 1" in written.read_bytes()
    assert outbox.queued(settings, "g1-0001-alice-report-abc") == written
    assert outbox.messages_in(settings, outbox.WRITTEN) == [written]
    assert [r[1] for r in rows(database_url)] == ["written"]
    assert outbox.deliver(settings).written == []


# -- several nodes -----------------------------------------------------------------------

NODE = """
import sys
from adjudicator.home.settings import load_settings
from adjudicator.mail import outbox
home, url, port, name = sys.argv[1:5]
settings = load_settings({"home": home, "database_url": url, "smtp_host": "127.0.0.1",
    "smtp_port": int(port), "smtp_security": "none", "mail_from": "pamir@pamir.example",
    "node_name": name, "outbox_lease_seconds": int(sys.argv[5])})
print("ready", flush=True)
sys.stdin.readline()
report = outbox.deliver(settings)
print(len(report.sent), flush=True)
"""


def start_node(
    home: Path, url: str, port: int, name: str, lease: int = 120
) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", NODE, str(home), url, str(port), name, str(lease)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


class Slow:
    """Accepts every message after a short while, so that the nodes' runs overlap."""

    def __init__(self, server: MailServer, seconds: float) -> None:
        self.recorder = server.recorder
        self.seconds = seconds

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        await asyncio.sleep(self.seconds)
        return await self.recorder.handle_DATA(server, session, envelope)


def test_two_nodes_sending_from_one_table_send_each_message_once(
    tmp_path: Path, database_url: str
) -> None:
    count = 60
    port = free_port()
    server = MailServer(port)
    server.controller.handler = Slow(server, 0.02)
    settings = clustered(tmp_path / "queuing", port, database_url)
    for number in range(count):
        outbox.queue(settings, message(number), f"g1-{number:04d}-alice-report-x")
    with server:
        # Each node has a PAMIR_HOME of its own: the table is all they share.
        nodes = [
            start_node(tmp_path / name, database_url, port, name) for name in ("n1", "n2", "n3")
        ]
        for node in nodes:
            assert node.stdin is not None
            node.stdin.write("go\n")
            node.stdin.flush()
        sent = []
        for node in nodes:
            out, _ = node.communicate(timeout=120)
            assert node.returncode == 0
            sent.append(int(out))
        counted = numbers(server)
    assert sum(sent) == count and len(counted) == count
    assert set(counted.values()) == {1}, [k for k, n in counted.items() if n > 1]
    assert sum(1 for n in sent if n > 0) >= 2, sent  # they did share the work
    assert {r[1] for r in rows(database_url)} == {"sent"}


class Stalling:
    """Takes a message's DATA and never answers (the node is killed meanwhile)."""

    def __init__(self) -> None:
        self.begun = False

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        self.begun = True
        await asyncio.sleep(3600)
        return "451 too late"


def test_a_node_killed_while_it_holds_a_claim_leaves_the_message_to_another(
    tmp_path: Path, database_url: str
) -> None:
    lease = 8  # seconds: the checks below run well within it, even on a busy machine
    stalling_port = free_port()
    stalling = MailServer(stalling_port)
    handler = Stalling()
    stalling.controller.handler = handler
    with stalling, mail_server() as good:
        settings = clustered(tmp_path / "n2", good.port, database_url, outbox_lease_seconds=lease)
        outbox.queue(settings, message(1), "g1-0001-alice-report-x")
        one = start_node(tmp_path / "n1", database_url, stalling_port, "n1", lease)
        assert one.stdin is not None
        one.stdin.write("go\n")
        one.stdin.flush()
        wait_for(lambda: handler.begun, 20, "node one to send the message")
        one.kill()  # SIGKILL: its claim stays in the table
        one.communicate(timeout=10)
        ((key, state, attempts, holder),) = rows(database_url)
        assert attempts == 0  # a claim is no attempt: nothing was refused
        assert state == "pending" and str(holder).startswith("n1 ")
        assert outbox.deliver(settings).sent == []  # the claim holds until its lease ends
        assert good.messages == []
        wait_for(lambda: bool(outbox.deliver(settings).sent), lease + 10, "the lease to end")
        assert numbers(good) == Counter({"message 1": 1})
        assert outbox.deliver(settings).sent == []
    assert rows(database_url) == [(key, "sent", 0, None)]


def test_several_messages_queued_at_once_in_the_table(home: Path, database_url: str) -> None:
    with mail_server() as server:
        settings = clustered(home, server.port, database_url)
        kept = outbox.queue(settings, message(1, "bob"), "g1-0001-bob-report-abc")
        paths = outbox.queue_many(
            settings,
            [
                (message(1, "carol"), "g1-0001-carol-report-abc"),
                (message(2, "bob").as_bytes(), "g1-0001-bob-report-abc"),  # queued before
                (message(1, "alice"), "g1-0001-alice-report-abc"),
                (message(3, "carol"), "g1-0001-carol-report-abc"),  # earlier in the batch
            ],
        )
        assert paths[1] == kept and paths[3] == paths[0]
        assert [k for k, *_ in rows(database_url)] == [
            "g1-0001-bob-report-abc",
            "g1-0001-carol-report-abc",
            "g1-0001-alice-report-abc",
        ]
        assert outbox.messages_in(settings, outbox.PENDING) == [kept, paths[0], paths[2]]
        assert len(outbox.deliver(settings).sent) == 3
        assert sorted(numbers(server).elements()) == ["message 1"] * 3
        sent = outbox.queue_many(settings, [(message(9), "g1-0001-alice-report-abc")])
        assert sent == [settings.outbox_dir / outbox.SENT / paths[2].name]


class Paced:
    """Answers each message's DATA after the seconds `pace` gives its subject (0 if none),
    and keeps what it accepted (the server's recorder)."""

    def __init__(self, server: MailServer, pace: dict[str, float]) -> None:
        self.recorder, self.pace = server.recorder, pace

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        subject = header_block(envelope.original_content or b"").get("Subject", "")
        await asyncio.sleep(self.pace.get(str(subject), 0.0))
        return await self.recorder.handle_DATA(server, session, envelope)


def test_a_row_whose_lease_ran_out_behind_its_recipients_mail_is_sent_once(
    home: Path,
    database_url: str,
    secret_key: None,  # noqa: F811 - the fixture
) -> None:
    """Alice's third message waits behind her first two (3 s each, within the 4 s lease)
    and its lease runs out meanwhile. The session sending Bob's mail runs out of it then
    and asks for more: the run must not claim the row it holds already a second time,
    which would put the same message behind the first and send it twice."""
    server = MailServer(free_port())
    pace = {"message 1": 3.0, "message 2": 3.0, "message 11": 3.0, "message 12": 2.6}
    server.controller.handler = Paced(server, pace)
    settings = clustered(home, server.port, database_url, outbox_lease_seconds=4)
    for number in (1, 2, 3):
        outbox.queue(settings, message(number), f"g1-{number:04d}-alice-report-x")
    for number in (11, 12):
        outbox.queue(settings, message(number, "bob"), f"g1-{number:04d}-bob-report-x")
    with server:
        report = outbox.deliver(settings)
    subjects = Counter(str(m["Subject"]) for m in server.messages)
    assert subjects == Counter(f"message {n}" for n in (1, 2, 3, 11, 12))
    assert len(report.sent) == 5
