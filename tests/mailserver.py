"""Helpers for the mail tests: a real SMTP server (aiosmtpd) on 127.0.0.1, service settings
for a test PAMIR_HOME, a game to mail about, a self-signed certificate, and replies.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session
from gitgame import SECRET

from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.repo import GameRepo
from adjudicator.home.settings import Settings
from adjudicator.mail import pictures, tokens

DOMAIN = "pamir.example"
UNDER_CI = os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}
NO_CAIRO = "CairoSVG cannot load the cairo library (Debian: apt-get install -y libcairo2)"


def cairo_loads() -> bool:
    """Whether report mails can carry the board's picture here: CairoSVG needs libcairo."""
    try:
        pictures.cairo_png('<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>', 2)
    except (ImportError, OSError):
        return False
    return True


HAS_CAIRO = cairo_loads()
# Without cairo the board's picture is left out of every mail; under CI that is a failure.
needs_cairo = pytest.mark.skipif(not HAS_CAIRO and not UNDER_CI, reason=NO_CAIRO)
MAIL_FROM = f"Pax Pamir <pamir@{DOMAIN}>"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes

    @property
    def message(self) -> EmailMessage:
        # As a mailbox stores it: newlines, not the wire's CRLF.
        parsed = BytesParser(policy=policy.default).parsebytes(self.data.replace(b"\r\n", b"\n"))
        assert isinstance(parsed, EmailMessage)
        return parsed


class Recorder:
    """An aiosmtpd handler that keeps every message it accepts."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        with self.lock:
            self.received.append(
                Received(str(envelope.mail_from), list(envelope.rcpt_tos), bytes(content))
            )
        return "250 Message accepted for delivery"


class MailServer:
    """A real SMTP server in a thread; `messages` are what it received, parsed."""

    def __init__(self, port: int | None = None, **kwargs: Any) -> None:
        self.recorder = Recorder()
        self.port = port or free_port()
        self.controller = Controller(
            self.recorder, hostname="127.0.0.1", port=self.port, ready_timeout=5, **kwargs
        )

    def __enter__(self) -> MailServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    @property
    def received(self) -> list[Received]:
        with self.recorder.lock:
            return list(self.recorder.received)

    @property
    def messages(self) -> list[EmailMessage]:
        return [r.message for r in self.received]

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if address in str(m["To"])]


@contextmanager
def mail_server(port: int | None = None, **kwargs: Any) -> Iterator[MailServer]:
    with MailServer(port, **kwargs) as server:
        yield server


def settings_for(home: Path, port: int | None, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "home": home,
        "smtp_host": "127.0.0.1" if port else None,
        "smtp_port": port or 587,
        "smtp_security": "none",
        "smtp_timeout": 5.0,
        "mail_from": MAIL_FROM,
        "reply_local": "play",
        "reply_domain": DOMAIN,
        "outbox_retry_seconds": 60,
        # The tests of mail count one report per adjudication, the way `notify every` mails;
        # tests/mail/test_turn_mails.py runs the default, one mail a turn (`per-turn`).
        "notify": "every",
    }
    values.update(overrides)
    return Settings(**values)


def email_of(name: str) -> str:
    return f"{name}@players.example"


def new_game(
    settings: Settings, names: tuple[str, ...] = ("alice", "bob"), game_id: str = "g1"
) -> tuple[GameRepo, Adjudication]:
    """A game under settings.games_dir; the adjudication of move 0 (its creation)."""
    repo = create_game(
        settings.games_dir / game_id,
        [(n, email_of(n)) for n in names],
        home=settings.home,
        secret=SECRET,
    )
    head = repo.head()
    assert head is not None
    report = repo.read("reports/0000.md", head)
    assert report is not None
    return repo, Adjudication(0, head, report)


def plain(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def html(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())


STYLE_ATTRIBUTE = re.compile(r' style="[^"]*"')


def unstyled(markup: str) -> str:
    """A mail's HTML without the inline styles every element carries
    (adjudicator/mail/compose/styles.py), for tests of what it says and how it is built."""
    return STYLE_ATTRIBUTE.sub("", markup)


def reply_to(
    original: EmailMessage,
    body: str,
    *,
    sender: str | None = None,
    to: str | None = None,
    quote: bool = True,
    extra_headers: dict[str, str] | None = None,
) -> bytes:
    """A player's reply as a mail client writes it: their lines, then a signature, then
    the attribution line and the original quoted with `> `."""
    message = EmailMessage()
    message["From"] = sender or str(original["To"])
    message["To"] = to or str(original["Reply-To"])
    message["Subject"] = "Re: " + str(original["Subject"])
    message["Date"] = formatdate()
    message["Message-ID"] = make_msgid(domain="players.example")
    message["In-Reply-To"] = str(original["Message-ID"])
    message["References"] = str(original["Message-ID"])
    for key, value in (extra_headers or {}).items():
        message[key] = value
    text = body
    if quote:
        quoted = "\n".join("> " + line for line in plain(original).splitlines())
        text += (
            "\n-- \nAlice Player\nhttps://players.example/alice\n\n"
            f"On Tue, 3 Mar 2026 at 10:00, Pax Pamir <pamir@{DOMAIN}>\nwrote:\n\n{quoted}\n"
        )
    message.set_content(text)
    return message.as_bytes()


def reply_address(settings: Settings, game_id: str, player: str) -> str:
    return tokens.reply_address(settings, game_id, player)


def self_signed_cert(folder: Path) -> tuple[Path, Path] | None:
    """A certificate for 127.0.0.1 and its key, made with openssl; None without openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    cert, key = folder / "cert.pem", folder / "key.pem"
    done = subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        capture_output=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        return None
    return cert, key


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    return context


class Authenticator:
    """Accepts one user name and password (aiosmtpd's authenticator protocol)."""

    def __init__(self, user: str, password: str) -> None:
        self.user, self.password = user, password
        self.logins: list[str] = []

    def __call__(
        self, server: SMTPServer, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        if isinstance(data, LoginPassword):
            user = data.login.decode()
            if user == self.user and data.password.decode() == self.password:
                self.logins.append(user)
                return AuthResult(success=True)
        return AuthResult(success=False, handled=False)
