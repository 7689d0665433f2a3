"""The lobby by mail, end to end (docs/lobby.md): the mails of the page's exchange, read
from it, go through `pamir inbound-email` and `handle_message` with a real SMTP server
taking what the service sends; the game is made as `pamir new` makes one.
"""

from __future__ import annotations

import os
import re
import subprocess
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import formatdate, make_msgid
from pathlib import Path

from gitgame import PAMIR
from mailserver import MailServer, mail_server, plain

from adjudicator.games.registry import open_game
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings, load_settings
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.lobby import records

ROOT = Path(__file__).resolve().parents[2]
MAIL_BLOCK = re.compile(r"^```mail\n(.*?)^```", re.M | re.S)


def page_mails() -> list[str]:
    """The mails docs/lobby.md shows, in order: headers, a blank line, the body."""
    return MAIL_BLOCK.findall((ROOT / "docs" / "lobby.md").read_text(encoding="utf-8"))


def mail(text: str, *, to: str | None = None, in_reply_to: str | None = None) -> bytes:
    """A message from the page's text (`to` replaces its To, the seat address the page
    cannot know), with a Date and a Message-ID as a mail client adds them."""
    head, _, body = text.partition("\n\n")
    message = EmailMessage()
    for line in head.splitlines():
        name, _, value = line.partition(": ")
        message[name] = to if name == "To" and to else value
    message["Date"] = formatdate()
    message["Message-ID"] = make_msgid(domain="example.org")
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
    message.set_content(body)
    return message.as_bytes()


def environment(home: Path, port: int, lobby: str | None) -> dict[str, str]:
    """The service's settings as the environment gives them, the lobby's among them."""
    env = {
        "PAMIR_HOME": str(home),
        "PAMIR_SMTP_HOST": "127.0.0.1",
        "PAMIR_SMTP_PORT": str(port),
        "PAMIR_SMTP_SECURITY": "none",
    }
    return env | ({"PAMIR_LOBBY": lobby} if lobby else {})


def inbound(env: dict[str, str], raw: bytes) -> subprocess.CompletedProcess[bytes]:
    """`pamir inbound-email`, as the mail server's pipe runs it."""
    return subprocess.run(
        [str(PAMIR), "inbound-email"],
        input=raw,
        env={**os.environ, **env},
        capture_output=True,
        timeout=120,
        check=False,
    )


def to(server: MailServer, address: str) -> list[EmailMessage]:
    return [m for m in server.messages if address in str(m["To"])]


def settings_of(env: dict[str, str]) -> Settings:
    return load_settings(environ=env, remember=False)


def test_the_page_s_exchange_makes_the_game_and_its_first_mails(home: Path) -> None:
    alice_mail, bob_mail, carol_mail = page_mails()
    with mail_server() as server:
        env = environment(home, server.port, "open")
        done = inbound(env, mail(alice_mail))
        assert done.returncode == 0, done.stderr
        invitations = {who: to(server, f"{who}@example.org") for who in ("bob", "carol")}
        assert all(len(found) == 1 for found in invitations.values()), server.messages
        assert "alice (alice@example.org) invites you" in plain(invitations["bob"][0])
        assert len(to(server, "alice@example.org")) == 1  # the game waits for its players
        settings = settings_of(env)
        for text, who in ((bob_mail, "bob"), (carol_mail, "carol")):
            invitation = invitations[who][0]
            seat = str(invitation["Reply-To"])
            assert seat.startswith("pamir+lobby-") and seat.endswith("@localhost")
            raw = mail(text, to=seat, in_reply_to=str(invitation["Message-ID"]))
            assert handle_message(settings, raw).status == "accepted"
        listed = subprocess.run(
            [str(PAMIR), "games"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert re.search(r"^herat\s+ok$", listed.stdout, re.M), listed
        repo = open_game(settings, "herat")
        game = snapshot(repo).game
        repo.repo.close()
        assert [(p.name, p.email) for p in game.players] == [
            ("alice", "alice@example.org"),
            ("bob", "bob@example.org"),
            ("carol", "carol@example.org"),
        ]
        for who in ("alice", "bob", "carol"):  # the game's own mail, as `pamir new` sends it
            first = [m for m in to(server, f"{who}@example.org") if m["X-Pamir-Game"] == "herat"]
            assert len(first) == 1, who
            assert str(first[0]["Reply-To"]).startswith(f"pamir+herat.{who}.")
        pending = subprocess.run(
            [str(PAMIR), "games", "--pending"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "herat  created" in pending.stdout and "bob@example.org" in pending.stdout
        assert re.search(r"carol@example\.org\s+accepted \d{4}-", pending.stdout), pending.stdout


def test_with_the_lobby_off_the_same_mail_makes_nothing_and_is_answered_once(home: Path) -> None:
    alice_mail = page_mails()[0]
    with mail_server() as server:
        env = environment(home, server.port, None)
        done = inbound(env, mail(alice_mail))
        again = inbound(env, mail(alice_mail))
        assert done.returncode == 0 and again.returncode == 0, (done.stderr, again.stderr)
        answers = server.messages
    assert len(answers) == 1  # the second, the same day, is not answered again
    said = [line for line in plain(answers[0]).splitlines() if line.strip()]
    assert said == ["Nothing was made: this service does not take new games by mail."]
    assert not (home / "games").exists() or not any((home / "games").iterdir())
    assert records.every(settings_of(environment(home, 1, None))) == []


def test_a_reply_to_the_service_s_address_that_is_no_new_game_is_still_ignored(
    home: Path,
) -> None:
    with mail_server() as server:
        env = environment(home, server.port, "open")
        raw = mail("From: alice@example.org\nTo: pamir@localhost\nSubject: hi\n\npass\n")
        done = inbound(env, raw)
    assert done.returncode == 2 and b"no reply address" in done.stderr
    assert server.messages == []


def parse(raw: bytes) -> EmailMessage:
    parsed = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(parsed, EmailMessage)
    return parsed
