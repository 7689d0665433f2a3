"""Mail out through a real SMTP server (aiosmtpd on 127.0.0.1): message structure, threads,
private sections, the outbox when the server is down, no SMTP at all, TLS and STARTTLS.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import smtplib
import ssl
from datetime import UTC, datetime, timedelta
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any, ClassVar

import pytest
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import Envelope, Session
from gitgame import bot_submission, current_home, git
from mailserver import (
    DOMAIN,
    HAS_CAIRO,
    MAIL_FROM,
    UNDER_CI,
    Authenticator,
    email_of,
    free_port,
    html,
    mail_server,
    new_game,
    plain,
    self_signed_cert,
    server_context,
    settings_for,
    unstyled,
)

import engine
from adjudicator.cli import parser as cli_parser
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.reports import without_board_image
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words
from adjudicator.mail import outbox, report_mails, smtp, tokens
from adjudicator.mail.compose.messages import board_line, compose
from adjudicator.mail.outbox.common import retry_delay
from adjudicator.mail.outbox.folders import retry_info
from engine.cards import card_name

MESSAGE_ID = re.compile(r"^<g1\.(\d{4})\.([a-z]+)\.[0-9a-f]{16}@pamir\.example>$")


pytestmark = pytest.mark.usefixtures("home")


def play_moves(repo: GameRepo, count: int, seed: int = 7) -> list[Adjudication]:
    """Bot moves through the pipeline, one adjudication each."""
    rng = random.Random(seed)
    done: list[Adjudication] = []
    for _ in range(count):
        state = position(snapshot(repo), current_home())
        player, text = bot_submission(state, rng, whole_turn=True)
        done.append(submit(repo, player, text, home=current_home()))
    return done


def folder(settings: Settings, name: str) -> list[Path]:
    return outbox.messages_in(settings, name)


def test_a_report_is_multipart_alternative_with_the_markdown_and_its_html(home: Path) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        paths = report_mails.notify(settings, repo, [created])
        assert len(paths) == 2
        received = server.received
    assert len(received) == 2
    assert sorted(r.rcpt_tos[0] for r in received) == [email_of("alice"), email_of("bob")]
    for item in received:
        message = item.message
        player = item.rcpt_tos[0].partition("@")[0]
        assert message.get_content_type() == "multipart/alternative"
        parts = list(message.iter_parts())
        # The HTML travels with the board's picture (tests/mail/test_mail_board.py), which
        # needs the cairo library.
        if HAS_CAIRO or UNDER_CI:
            assert [p.get_content_type() for p in parts] == ["text/plain", "multipart/related"]
            related = [p.get_content_type() for p in parts[1].iter_parts()]
            assert related == ["text/html", "image/png"]
        else:
            assert [p.get_content_type() for p in parts] == ["text/plain", "text/html"]
        assert str(message["From"]) == MAIL_FROM
        assert item.mail_from == f"pamir@{DOMAIN}"
        assert str(message["To"]) == f"{player} <{email_of(player)}>"
        assert tokens.read_address(settings, str(message["Reply-To"])) == ("g1", player)
        assert str(message["Auto-Submitted"]) == "auto-generated"
        text = plain(message)
        # The text part is the Markdown itself: the report, then the private section; the
        # report's picture of board.svg is a line saying where the board is.
        board = board_line(Words(), f"{settings.base_url.rstrip('/')}/games/g1/turns/0")
        assert text.startswith(without_board_image(created.report, board))
        assert "![" not in text
        private = (home / "private" / "g1" / f"0000-{player}.md").read_text(encoding="utf-8")
        assert private.rstrip("\n") in text
        assert "## Playing by email" in text
        page = unstyled(html(message))
        assert "<table>" in page and "<h1>g1: a new game</h1>" in page
        assert "| Region | Ruler |" not in page  # the table is rendered, not left as text
        assert "<th>Region</th>" in page
    # Every message went through the outbox and ended in outbox/sent.
    assert folder(settings, "pending") == []
    assert len(folder(settings, "sent")) == 2


def test_private_sections_go_to_their_owner_only(home: Path) -> None:
    names = ("alice", "bob", "carol")
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, _ = new_game(settings, names)
        results = play_moves(repo, 6)
        report_mails.notify(settings, repo, results[-1:])
        messages = {m["X-Pamir-Player"]: plain(m) for m in server.messages}
    assert sorted(messages) == list(names)
    state = position(snapshot(repo), home)
    hands: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        hand = engine.view(state, name)["players"][i]["hand"]
        assert hand is not None  # a player's own view shows their hand
        hands[name] = hand
    assert any(hands.values()), "the test needs cards in some hand"
    number = results[-1].number
    sections = {
        name: (home / "private" / "g1" / f"{number:04d}-{name}.md").read_text(encoding="utf-8")
        for name in names
    }
    for name, text in messages.items():
        assert text.count(" only\n") == 1 and f"## For {name} only" in text
        assert sections[name].rstrip("\n") in text
        own = re.search(r"^Your hand: (.*)$", text, re.MULTILINE)
        assert own is not None
        expected = "; ".join(f"{c} {card_name(c)}" for c in hands[name]) or "empty"
        assert own.group(1) == expected + "."
        private = text.split(f"## For {name} only")[1].split("## Playing by email")[0]
        for other in names:
            if other == name:
                continue
            assert f"For {other} only" not in text
            assert sections[other].rstrip("\n") not in text
            for card in set(hands[other]) - set(hands[name]):
                assert f"{card} {card_name(card)}" not in private
    # Only the players who must decide are told so.
    pending = engine.view(state)["pending"]
    assert pending is not None
    waiting = pending["players"]
    for name, text in messages.items():
        assert ("It is your decision." in text) == (name in waiting)


def test_messages_of_a_game_form_one_thread_per_player(home: Path) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        first = {m["X-Pamir-Player"]: m for m in server.messages}
        results = play_moves(repo, 2)
        report_mails.notify(settings, repo, results)
        later = server.messages[2:]
    assert len(later) == 4
    roots = {player: str(m["Message-ID"]) for player, m in first.items()}
    assert len(set(roots.values())) == 2
    for player, message in first.items():
        match = MESSAGE_ID.match(roots[player])
        assert match is not None and match.groups() == ("0000", player)
        assert message["In-Reply-To"] is None and message["References"] is None
    previous = dict(roots)
    for message in later:  # in order: move 1 (alice, bob), move 2 (alice, bob)
        player = str(message["X-Pamir-Player"])
        own = str(message["Message-ID"])
        match = MESSAGE_ID.match(own)
        assert match is not None and match.group(2) == player
        assert int(match.group(1)) == int(str(message["X-Pamir-Move"]))
        assert str(message["In-Reply-To"]) == previous[player]
        references = str(message["References"]).split()
        assert references[0] == roots[player]
        assert references[-1] == previous[player]
        # Each subject says what its message is; the game's tag starts every one, and the
        # thread holds by In-Reply-To and References (and the List-Id).
        subject = str(message["Subject"]).strip()  # a long one is folded
        assert subject.startswith(("[g1] Move ", "[g1] Your turn (move ")), subject
        assert str(message["List-Id"]) == str(first[player]["List-Id"])
        previous[player] = own
    # The thread state lives in PAMIR_HOME, not in the game repository.
    threads = json.loads((home / "mail" / "threads" / "g1.json").read_text(encoding="utf-8"))
    assert threads["alice"] == {"root": roots["alice"], "last": previous["alice"]}
    tracked = git(repo.path, "ls-tree", "-r", "--name-only", "main")
    assert "mail" not in tracked and "threads" not in tracked


def test_messages_wait_while_the_server_is_down_then_all_arrive_once(home: Path) -> None:
    port = free_port()  # nothing listens there yet
    settings = settings_for(home, port, outbox_retry_seconds=60)
    repo, created = new_game(settings)
    paths = report_mails.notify(settings, repo, [created])
    assert sorted(folder(settings, "pending")) == sorted(paths) and len(paths) == 2
    info = retry_info(paths[0])
    assert info["attempts"] == 1 and "cannot reach" in info["last_error"]
    first_retry = datetime.fromisoformat(info["next_attempt"])

    # Not due yet: nothing is attempted.
    report = outbox.deliver(settings)
    assert report.waiting == sorted(paths) and not report.deferred
    # Due again and still down: the wait doubles.
    report = outbox.deliver(settings, now=first_retry + timedelta(seconds=1))
    assert len(report.deferred) == 2
    second = retry_info(paths[0])
    assert second["attempts"] == 2
    assert datetime.fromisoformat(second["next_attempt"]) - first_retry == timedelta(seconds=121)
    assert retry_delay(settings, 30) == outbox.MAX_RETRY_SECONDS

    # More mail is written while the server is down (and the service restarts: the
    # outbox is all on disk).
    more = report_mails.notify(settings, repo, play_moves(repo, 1))
    assert len(folder(settings, "pending")) == 4

    later = datetime.now(UTC) + timedelta(days=1)
    with mail_server(port) as server:
        report = outbox.deliver(settings, now=later)
        assert len(report.sent) == 4 and not report.deferred
        again = outbox.deliver(settings, now=later + timedelta(days=1))
        assert again.sent == [] and again.deferred == []
        received = server.messages
    assert folder(settings, "pending") == []
    assert not list((settings.outbox_dir / "pending").glob("*.json"))
    assert len(folder(settings, "sent")) == 4
    ids = [str(m["Message-ID"]) for m in received]
    assert len(ids) == 4 and len(set(ids)) == 4
    written = {
        str(BytesParser(policy=policy.default).parsebytes(p.read_bytes())["Message-ID"])
        for p in folder(settings, "sent")
    }
    assert set(ids) == written
    assert len(paths + more) == 4


def test_without_smtp_the_messages_are_written_and_the_log_says_where(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = settings_for(home, None)
    assert settings.smtp_host is None
    repo, created = new_game(settings)
    with caplog.at_level(logging.INFO, logger="adjudicator.mail.outbox"):
        report_mails.notify(settings, repo, [created])
    written = folder(settings, "written")
    assert len(written) == 2 and folder(settings, "pending") == []
    for path in written:
        assert str(path) in caplog.text
        message = BytesParser(policy=policy.default).parsebytes(path.read_bytes())
        assert message.get_content_type() == "multipart/alternative"
    assert "no smtp_host configured" in caplog.text


def test_a_message_is_never_half_written_in_the_outbox(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_for(home, None)
    repo, created = new_game(settings)

    def broken_replace(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        report_mails.notify(settings, repo, [created])
    pending = settings.outbox_dir / "pending"
    assert list(pending.iterdir()) == []  # no partial file, no temporary file left


class FakeSMTP:
    """Records how smtplib would have been used."""

    calls: ClassVar[list[tuple[str, Any]]] = []

    def __init__(self, host: str, port: int, **kwargs: Any) -> None:
        self.calls.append((type(self).__name__, (host, port, kwargs.get("timeout"))))
        if "context" in kwargs:
            self.calls.append(("context", kwargs["context"]))

    def ehlo(self) -> None:
        self.calls.append(("ehlo", None))

    def starttls(self, context: ssl.SSLContext | None = None) -> None:
        self.calls.append(("starttls", context))

    def login(self, user: str, password: str) -> None:
        self.calls.append(("login", (user, password)))

    def close(self) -> None:
        pass


class FakeSSL(FakeSMTP):
    pass


@pytest.mark.parametrize(
    ("security", "user", "expected"),
    [
        ("none", None, ["FakeSMTP"]),
        ("starttls", None, ["FakeSMTP", "ehlo", "starttls", "ehlo"]),
        ("tls", None, ["FakeSSL", "context"]),
        ("starttls", "me", ["FakeSMTP", "ehlo", "starttls", "ehlo", "login"]),
        ("tls", "me", ["FakeSSL", "context", "login"]),
    ],
)
def test_the_security_setting_selects_the_smtplib_path(
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    security: str,
    user: str | None,
    expected: list[str],
) -> None:
    FakeSMTP.calls = []
    monkeypatch.setattr(smtplib, "SMTP", FakeSMTP)
    monkeypatch.setattr(smtplib, "SMTP_SSL", FakeSSL)
    settings = settings_for(
        home,
        2525,
        smtp_security=security,
        smtp_user=user,
        smtp_password="pw" if user else None,
        smtp_timeout=3.5,
    )
    smtp.connect(settings)
    assert [name for name, _ in FakeSMTP.calls] == expected
    assert FakeSMTP.calls[0][1] == ("127.0.0.1", 2525, 3.5)
    if user:
        assert ("login", ("me", "pw")) in FakeSMTP.calls
    for name, context in FakeSMTP.calls:
        if name in ("starttls", "context"):
            assert context.verify_mode.name == "CERT_REQUIRED" and context.check_hostname


@pytest.mark.parametrize("security", ["starttls", "tls"])
def test_real_tls_and_starttls_with_a_self_signed_certificate(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, security: str
) -> None:
    made = self_signed_cert(tmp_path)
    if made is None:
        pytest.skip("openssl is not available to make a self-signed certificate")
    cert, key = made
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trust it, as an operator would
    authenticator = Authenticator("pamir", "secret")
    context = server_context(cert, key)
    options: dict[str, Any] = {"authenticator": authenticator, "auth_require_tls": True}
    if security == "tls":
        # aiosmtpd only counts STARTTLS as TLS; here the whole session is TLS.
        options.update(ssl_context=context, auth_require_tls=False)
    else:
        options.update(tls_context=context, require_starttls=True)
    with mail_server(**options) as server:
        settings = settings_for(
            home, server.port, smtp_security=security, smtp_user="pamir", smtp_password="secret"
        )
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        assert len(server.messages) == 2
        # Without trusting the certificate, nothing is sent and the messages wait. (The
        # sessions kept from the first run are closed: a new one meets the certificate.)
        smtp.forget_kept_sessions()
        monkeypatch.setattr(smtp, "ssl_context", _untrusting_context)
        report_mails.notify(settings, repo, play_moves(repo, 1))
        assert len(server.messages) == 2
        assert len(folder(settings, "pending")) == 2
    # One session per player's message, each logged in over TLS (smtp_connections).
    assert authenticator.logins == ["pamir", "pamir"]


def _untrusting_context() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, but trusts no certificate


def test_a_refused_recipient_waits_without_holding_up_the_others(home: Path) -> None:
    class Picky:
        async def handle_RCPT(
            self,
            server: SMTPServer,
            session: Session,
            envelope: Envelope,
            address: str,
            options: list[str],
        ) -> str:
            if address.startswith("bob@"):
                return "450 try again later"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(
            self, server: SMTPServer, session: Session, envelope: Envelope
        ) -> str:
            self.got = [*getattr(self, "got", []), envelope.rcpt_tos[0]]
            return "250 OK"

    from aiosmtpd.controller import Controller

    handler = Picky()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port, ready_timeout=5)
    controller.start()
    try:
        settings = settings_for(home, port)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
    finally:
        controller.stop()
    assert handler.got == [email_of("alice")]
    (left,) = folder(settings, "pending")
    assert "-bob-" in left.name
    assert "450" in retry_info(left)["last_error"]


def test_pamir_outbox_lists_the_folders_and_sends(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    settings = settings_for(home, port)
    repo, created = new_game(settings)
    report_mails.notify(settings, repo, [created])  # the server is down: both wait
    for key, value in (("SMTP_HOST", "127.0.0.1"), ("SMTP_PORT", str(port))):
        monkeypatch.setenv(f"PAMIR_{key}", value)
    monkeypatch.setenv("PAMIR_SMTP_SECURITY", "none")
    parser = argparse.ArgumentParser(prog="pamir")
    cli_parser.register_mail(parser.add_subparsers(dest="command", required=True))

    args = parser.parse_args(["outbox"])
    args.func(args)
    out = capsys.readouterr().out
    assert "pending 2" in out and "sent    0" in out and "1 failed attempt" in out

    with mail_server(port) as server:
        args = parser.parse_args(["outbox", "--send"])  # sends now, though not due yet
        args.func(args)
        assert len(server.messages) == 2
    out = capsys.readouterr().out
    assert "delivery: sent 2" in out and "pending 0" in out and "sent    2" in out


def test_compose_shows_raw_html_as_text_and_threads_to_the_root(home: Path) -> None:
    settings = settings_for(home, None)
    message = compose(
        settings,
        "g1",
        "alice",
        "Pax Pamir game g1",
        "# g1\n\n- rollback 3 <script>alert(1)</script> & more\n",
        thread_root="<root@pamir.example>",
        in_reply_to=None,
        number=7,
        to="alice@players.example",
    )
    page = html(message)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert plain(message) == "# g1\n\n- rollback 3 <script>alert(1)</script> & more\n"
    match = MESSAGE_ID.match(str(message["Message-ID"]))
    assert match is not None and match.groups() == ("0007", "alice")
    assert str(message["In-Reply-To"]) == "<root@pamir.example>"
    assert str(message["References"]) == "<root@pamir.example>"
