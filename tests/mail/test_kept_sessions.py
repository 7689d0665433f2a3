"""SMTP sessions kept between delivery runs (adjudicator/mail/smtp.py): the next run sends
on a session the last one left open, after a NOOP; a session the server closed, one kept
too long, a broken one, or one more than `smtp_connections` is never used again."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import Envelope, Session
from mailserver import MailServer, Recorder, settings_for

from adjudicator.home.settings import Settings
from adjudicator.mail import outbox, smtp
from adjudicator.mail.compose.messages import ServiceMessage

pytestmark = pytest.mark.usefixtures("home")


class Sessions(Recorder):
    """Notes the SMTP session each message came on, and how many sessions said EHLO."""

    def __init__(self) -> None:
        super().__init__()
        self.sessions: list[int] = []
        self.greeted = 0

    async def handle_EHLO(
        self,
        server: SMTPServer,
        session: Session,
        envelope: Envelope,
        hostname: str,
        responses: list[str],
    ) -> list[str]:
        self.greeted += 1
        session.host_name = hostname  # aiosmtpd leaves this to a handler with the hook
        return responses

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        self.sessions.append(id(session))
        return await super().handle_DATA(server, session, envelope)


def queued(settings: Settings, count: int, start: int = 0) -> None:
    for number in range(start, start + count):
        message = ServiceMessage()
        message["From"], message["To"] = settings.mail_from, f"p{number}@players.example"
        message["Subject"] = f"message {number}"
        message.set_content("hello\n")
        outbox.queue(settings, message)


def server_with(handler: Sessions, port: int | None = None) -> MailServer:
    server = MailServer(port)
    server.controller.handler = server.recorder = handler
    return server


def test_the_next_run_sends_on_the_session_the_last_one_kept(home: Path) -> None:
    handler = Sessions()
    with server_with(handler) as server:
        settings = settings_for(home, server.port, smtp_connections=1)
        queued(settings, 2)
        assert len(outbox.deliver(settings).sent) == 2
        queued(settings, 2, start=2)
        assert len(outbox.deliver(settings).sent) == 2
        assert len(server.messages) == 4
    assert handler.greeted == 1
    assert len(set(handler.sessions)) == 1


def test_no_more_sessions_are_kept_than_smtp_connections(home: Path) -> None:
    handler = Sessions()
    with server_with(handler) as server:
        settings = settings_for(home, server.port, smtp_connections=3)
        queued(settings, 3)
        outbox.deliver(settings)
        assert len(set(handler.sessions)) == 3
        # Fewer allowed now: the run takes one kept session, and the others are closed
        # as they come back rather than kept beyond the setting.
        fewer = settings_for(home, server.port, smtp_connections=1)
        queued(fewer, 1, start=3)
        outbox.deliver(fewer)
        queued(fewer, 1, start=4)
        outbox.deliver(fewer)
    assert handler.greeted == 3  # no session opened for the later runs
    assert len(set(handler.sessions)) == 3


def test_a_session_the_server_closed_is_not_used(home: Path) -> None:
    handler = Sessions()
    server = server_with(handler)
    with server:
        settings = settings_for(home, server.port, smtp_connections=1)
        queued(settings, 1)
        outbox.deliver(settings)
    # The server goes away and comes back at the same port: the kept session is dead.
    again = Sessions()
    with server_with(again, server.port) as restarted:
        queued(settings, 1, start=1)
        assert len(outbox.deliver(settings).sent) == 1
        assert len(restarted.messages) == 1
    assert again.greeted == 1


def test_a_session_kept_too_long_is_closed_not_used(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = Sessions()
    with server_with(handler) as server:
        settings = settings_for(home, server.port, smtp_connections=1)
        queued(settings, 1)
        outbox.deliver(settings)
        monkeypatch.setattr(smtp, "KEPT_SECONDS", 0.0)
        queued(settings, 1, start=1)
        outbox.deliver(settings)
        assert len(server.messages) == 2
    assert handler.greeted == 2


def test_a_session_that_broke_is_not_kept(home: Path) -> None:
    class Dropping(Sessions):
        async def handle_DATA(
            self, server: SMTPServer, session: Session, envelope: Envelope
        ) -> str:
            if "p0@" in str(envelope.rcpt_tos):
                assert server.transport is not None
                server.transport.close()  # the connection drops during the first DATA
                return "421 closing"
            return await super().handle_DATA(server, session, envelope)

    handler = Dropping()
    with server_with(handler) as server:
        settings = settings_for(home, server.port, smtp_connections=1)
        queued(settings, 1)
        assert outbox.deliver(settings).deferred  # lost with its session
        queued(settings, 1, start=1)
        assert len(outbox.deliver(settings).sent) >= 1
    assert handler.greeted == 2
