"""Delivery over several SMTP sessions at once (`smtp_connections`, docs/email.md#the-outbox),
from the files of the outbox and from its table (PostgreSQL mode), on a real SMTP server:
several players' mail goes out at the same time, each player's in order on one session; a
session that breaks puts off its own messages only, and a refusal for good of one player's
mail leaves the others' alone.

The server's handler answers a message's DATA only once two sessions are in DATA at the
same time (or, after a while alone, refuses it for now): one session sending the messages
one after the other has every message put off.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import Envelope, Session
from mailserver import Authenticator, MailServer, free_port, settings_for
from pgserver import SECRET_KEY, wait_for
from test_cluster import secret_key  # noqa: F401 - the fixture: the key of the database's secrets
from test_outbox_table import database_url  # noqa: F401 - the fixture: a scratch database

from adjudicator.home import database
from adjudicator.home.settings import Settings
from adjudicator.mail import outbox
from adjudicator.mail.outbox.folders import retry_info

ALONE_SECONDS = 4.0  # how long a DATA waits for another session's before it is refused


@dataclass(frozen=True)
class Got:
    session: int  # which SMTP session brought it
    to: str
    subject: str
    began: int  # when its DATA began and was answered, counted in DATA events
    answered: int


class Overlapping:
    """Takes a message's DATA once two sessions are in DATA at once; refuses for good the
    recipients in `refused` and drops the connection of a session sending to `dropped`."""

    def __init__(self, refused: tuple[str, ...] = (), dropped: tuple[str, ...] = ()) -> None:
        self.refused, self.dropped = refused, dropped
        self.inside = self.most = 0
        self.events = 0  # DATA commands begun and answered, counted together
        self.got: list[Got] = []

    async def handle_RCPT(
        self,
        server: SMTPServer,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if address.split("@")[0] in self.refused:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        to = envelope.rcpt_tos[0].split("@")[0]
        if to in self.dropped:
            assert server.transport is not None
            server.transport.close()
            return "421 closing"
        self.inside += 1
        self.most = max(self.most, self.inside)
        began = self.events
        self.events += 1
        try:
            waited = 0.0
            while self.most < 2 and waited < ALONE_SECONDS:
                await asyncio.sleep(0.01)
                waited += 0.01
            if self.most < 2:
                return "451 4.3.0 alone: another session was expected"
            await asyncio.sleep(random.uniform(0, 0.02))  # sessions finish in any order
            content = bytes(envelope.original_content or b"").decode()
            subject = next((line for line in content.splitlines() if "Subject:" in line), "")
            answered = self.events
            self.events += 1
            for address in envelope.rcpt_tos:
                to, title = address.split("@")[0], subject.partition(": ")[2]
                self.got.append(Got(id(session), to, title, began, answered))
            return "250 OK"
        finally:
            self.inside -= 1

    def subjects_to(self, name: str) -> list[str]:
        return [g.subject for g in self.got if g.to == name]

    def sessions_of(self, name: str) -> set[int]:
        return {g.session for g in self.got if g.to == name}

    def one_at_a_time(self, name: str) -> bool:
        """Whether each message to `name` was answered before the next one's DATA began
        (on whichever session): never two of them on their way at once."""
        mine = [g for g in self.got if g.to == name]
        return all(a.answered < b.began for a, b in itertools.pairwise(mine))


def message(name: str, number: int) -> EmailMessage:
    made = EmailMessage()
    made["From"] = "pamir@pamir.example"
    made["To"] = f"{name}@players.example"
    made["Subject"] = f"{name} {number}"
    made["X-Pamir-Game"] = "g1"
    made["X-Pamir-Player"] = name
    made["X-Pamir-Move"] = str(number)
    made.set_content(f"move {number}\n")
    return made


Make = Callable[..., Settings]


@pytest.fixture(params=["files", "table"])
def make(request: pytest.FixtureRequest, home: Path) -> Make:
    """Settings for the outbox's files, or for its table in a scratch database."""

    def made(port: int, **overrides: object) -> Settings:
        values: dict[str, object] = {"smtp_connections": 4, **overrides}
        if request.param == "files":
            return settings_for(home, port, **values)
        request.getfixturevalue("secret_key")
        url = request.getfixturevalue("database_url")
        settings = settings_for(home, port, database_url=url, secret_key=SECRET_KEY, **values)
        database.upgrade(settings)
        return settings

    return made


def queue_in_turn(settings: Settings, names: list[str], moves: int) -> list[Path]:
    """Each move's message to each player, in order (move 1 to all, then move 2, ...)."""
    return [
        outbox.queue(settings, message(name, number), f"g1-{number:04d}-{name}-report-x")
        for number in range(1, moves + 1)
        for name in names
    ]


def serve(handler: Overlapping) -> MailServer:
    server = MailServer(free_port())
    server.controller.handler = handler
    return server


def test_several_players_are_mailed_at_once(make: Make) -> None:
    handler = Overlapping()
    server = serve(handler)
    settings = make(server.port)
    names = ["alice", "bob", "carol", "dave"]
    queued = queue_in_turn(settings, names, 1)
    with server:
        report = outbox.deliver(settings)
    assert handler.most >= 2
    assert sorted(g.to for g in handler.got) == names
    assert len({g.session for g in handler.got}) >= 2
    # The report lists the messages in the order they were queued, whoever sent them first.
    assert [p.name for p in report.sent] == [p.name for p in queued]
    assert report.deferred == [] and report.errors == []


def test_each_players_mail_keeps_its_order_on_one_session(make: Make) -> None:
    handler = Overlapping()
    server = serve(handler)
    settings = make(server.port)
    names = ["alice", "bob", "carol"]
    queue_in_turn(settings, names, 4)
    with server:
        report = outbox.deliver(settings)
    assert len(report.sent) == 12 and handler.most >= 2
    for name in names:
        assert handler.subjects_to(name) == [f"{name} {n}" for n in range(1, 5)]
        assert handler.one_at_a_time(name)


def test_a_player_with_no_mail_left_on_a_session_may_go_on_another(make: Make) -> None:
    """An address is a session's only while it has mail for it: with fewer sessions than
    players (or sessions opened late) a player's next message often goes on another
    session, once the one before was answered, and their order is kept all the same."""
    handler = Overlapping()
    server = serve(handler)
    settings = make(server.port, smtp_connections=2)
    names = ["alice", "bob", "carol"]
    queue_in_turn(settings, names, 4)
    with server:
        report = outbox.deliver(settings)
    assert len(report.sent) == 12
    for name in names:
        assert handler.subjects_to(name) == [f"{name} {n}" for n in range(1, 5)]
        assert handler.one_at_a_time(name)


def test_one_session_lost_puts_off_its_own_messages_only(make: Make) -> None:
    handler = Overlapping(dropped=("bob",))
    server = serve(handler)
    settings = make(server.port)
    queued = queue_in_turn(settings, ["alice", "bob", "carol"], 2)
    with server:
        report = outbox.deliver(settings)
    assert handler.subjects_to("alice") == ["alice 1", "alice 2"]
    assert handler.subjects_to("carol") == ["carol 1", "carol 2"]
    bobs = [p.name for p in queued if "-bob-" in p.name]
    assert [p.name for p in report.deferred] == bobs  # the second one after the first
    assert [p.name for p in report.sent] == [p.name for p in queued if "-bob-" not in p.name]
    pending = outbox.messages_in(settings, outbox.PENDING)
    assert [p.name for p in pending] == bobs
    if settings.database_url is None:
        for path in pending:
            assert retry_info(path)["last_error"].startswith("session lost: ")


def test_a_refusal_for_good_leaves_the_others_mail_alone(make: Make) -> None:
    handler = Overlapping(refused=("bob",))
    server = serve(handler)
    settings = make(server.port)
    queued = queue_in_turn(settings, ["alice", "bob", "carol"], 2)
    with server:
        report = outbox.deliver(settings)
    assert handler.subjects_to("alice") == ["alice 1", "alice 2"]
    assert handler.subjects_to("carol") == ["carol 1", "carol 2"]
    assert [p.name for p in report.failed] == [p.name for p in queued if "-bob-" in p.name]
    assert [p.name for p in report.sent] == [p.name for p in queued if "-bob-" not in p.name]
    assert len(report.errors) == 2 and all("550" in e for e in report.errors)
    assert outbox.messages_in(settings, outbox.PENDING) == []


def test_one_session_sends_in_the_order_queued(make: Make) -> None:
    """`smtp_connections = 1`: the messages one after the other, in the order queued."""
    server = MailServer(free_port())
    settings = make(server.port, smtp_connections=1)
    queued = queue_in_turn(settings, ["alice", "bob"], 2)
    with server:
        report = outbox.deliver(settings)
    assert [str(m["Subject"]) for m in server.messages] == ["alice 1", "bob 1", "alice 2", "bob 2"]
    assert [p.name for p in report.sent] == [p.name for p in queued]


def test_an_unreachable_server_puts_off_every_message(make: Make) -> None:
    settings = make(free_port())  # nothing listens there
    queued = queue_in_turn(settings, ["alice", "bob", "carol"], 1)
    report = outbox.deliver(settings)
    assert [p.name for p in report.deferred] == [p.name for p in queued]
    assert len(report.errors) == 1 and report.errors[0].startswith("cannot reach 127.0.0.1:")
    assert report.sent == []


@dataclass
class Connections:
    """One server's connections open now, and those it turned away."""

    active: int = 0
    refused: int = 0


class OneAtATime(SMTPServer):
    """An SMTP server that takes one connection at a time: another one is told `421 too
    many connections` at once (as servers limiting their clients' connections do)."""

    counted: Connections

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.counted.active += 1
        if self.counted.active > 1:
            self.counted.refused += 1
            assert isinstance(transport, asyncio.WriteTransport)
            transport.write(b"421 4.7.0 too many connections\r\n")  # before the greeting
            transport.close()

    def connection_lost(self, error: Exception | None) -> None:
        self.counted.active -= 1
        super().connection_lost(error)


class Slow:
    def __init__(self, server: MailServer) -> None:
        self.recorder = server.recorder

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        await asyncio.sleep(0.3)  # the other sessions try to connect meanwhile
        return await self.recorder.handle_DATA(server, session, envelope)


def test_sessions_the_server_turns_away_leave_their_mail_to_the_others(make: Make) -> None:
    server = MailServer(free_port())
    server.controller.handler = Slow(server)
    connections = Connections()  # this server's alone (a stopped one's may stay open)

    def one_at_a_time() -> OneAtATime:
        made = OneAtATime(server.controller.handler, **server.controller.SMTP_kwargs)
        made.counted = connections
        return made

    server.controller.factory = one_at_a_time  # type: ignore[method-assign]
    settings = make(server.port)
    queued = queue_in_turn(settings, ["alice", "bob", "carol"], 1)
    with server:
        wait_for(lambda: connections.active == 0, 5, "the controller's own test connection")
        connections.refused = 0
        report = outbox.deliver(settings)
    assert connections.refused >= 1
    assert [p.name for p in report.sent] == [p.name for p in queued]
    assert report.deferred == [] and report.errors == []
    assert sorted(str(m["Subject"]) for m in server.messages) == ["alice 1", "bob 1", "carol 1"]


def test_a_message_to_two_players_keeps_its_place_in_both_their_orders(make: Make) -> None:
    handler = Overlapping()
    server = serve(handler)
    settings = make(server.port)
    both = message("alice", 2)
    both.replace_header("To", "alice@players.example, bob@players.example")
    both.replace_header("Subject", "both 2")
    queue_in_turn(settings, ["alice", "bob", "carol"], 1)
    outbox.queue(settings, both, "g1-0002-both-report-x")
    for number in (3, 4):
        for name in ("alice", "bob", "carol"):
            outbox.queue(settings, message(name, number), f"g1-{number:04d}-{name}-report-x")
    with server:
        report = outbox.deliver(settings)
    assert len(report.sent) == 10 and handler.most >= 2
    assert handler.subjects_to("alice") == ["alice 1", "both 2", "alice 3", "alice 4"]
    assert handler.subjects_to("bob") == ["bob 1", "both 2", "bob 3", "bob 4"]
    assert handler.subjects_to("carol") == ["carol 1", "carol 3", "carol 4"]


@pytest.mark.parametrize("connections", [1, 4])
def test_an_error_opening_a_session_is_raised_as_with_one(make: Make, connections: int) -> None:
    """Opening a session fails with an error other than the network's or SMTP's (smtplib
    cannot send a password that is not ASCII): it is raised, whatever the number of
    sessions, and the messages stay as they were, not put off as if the server could not
    be reached."""
    password = "sécret"
    server = MailServer(
        free_port(), authenticator=Authenticator("pamir", password), auth_require_tls=False
    )
    settings = make(
        server.port, smtp_connections=connections, smtp_user="pamir", smtp_password=password
    )
    queued = queue_in_turn(settings, ["alice", "bob"], 1)
    with server, pytest.raises(UnicodeEncodeError):
        outbox.deliver(settings)
    assert server.messages == []
    assert [p.name for p in outbox.messages_in(settings, outbox.PENDING)] == [
        p.name for p in queued
    ]
    if settings.database_url is None:  # no attempt counted, no wait before the next
        assert all(retry_info(p) == {} for p in queued)
    else:
        assert outbox.of(settings).retries() == []


def test_a_message_put_off_with_a_lost_session_holds_back_its_other_recipients(
    make: Make,
) -> None:
    """Bob's session broke: a later message to Alice and Bob is put off with Bob's, and
    then so is Alice's next one, which must not reach her before the one put off."""
    handler = Overlapping(dropped=("bob",))
    server = serve(handler)
    settings = make(server.port)
    outbox.queue(settings, message("bob", 1), "g1-0001-bob-report-x")
    for number in range(1, 5):  # the others' mail, sent while Bob's session breaks
        for name in ("carol", "dave"):
            outbox.queue(settings, message(name, number), f"g1-{number:04d}-{name}-report-x")
    both = message("alice", 5)
    both.replace_header("To", "alice@players.example, bob@players.example")
    both.replace_header("Subject", "both 5")
    outbox.queue(settings, both, "g1-0005-both-report-x")
    outbox.queue(settings, message("alice", 6), "g1-0006-alice-report-x")
    with server:
        report = outbox.deliver(settings)
    assert handler.subjects_to("carol") == [f"carol {n}" for n in range(1, 5)]
    assert handler.subjects_to("alice") == []  # not "alice 6" before "both 5"
    waiting = [p.name for p in outbox.messages_in(settings, outbox.PENDING)]
    assert [name.partition("-")[2] for name in waiting] == [
        "g1-0001-bob-report-x.eml",
        "g1-0005-both-report-x.eml",
        "g1-0006-alice-report-x.eml",
    ]
    assert [p.name for p in report.deferred] == waiting
