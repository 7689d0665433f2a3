"""What `POST /inbound/email` answers: the outcome, never a path of the server.

Whoever can reach the endpoint reads its answers, and only a reply address's token is
needed to get one: an answer names the outbox files it queued by their names alone, and
no reason carries the folders the service runs in; nor does what `pamir inbound-email`
prints, which a mail server may bounce to the sender. Real HTTP to the application on
127.0.0.1, the real `pamir` script, real games, the answers' mail written to the outbox.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from gitgame import PAMIR, create, decider, full_state
from liveserver import Reply, fetch, serving

from adjudicator.home.settings import Settings
from adjudicator.mail.tokens import token
from adjudicator.web import create_app

pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def site(home: Path) -> Iterator[str]:
    with serving(create_app({"home": home})) as url:
        yield url


def run(command: list[str], input: bytes) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, input=input, capture_output=True, env=os.environ, timeout=60)
    text = subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )
    return text


def mail(settings: Settings, game: str, player: str, text: str, sender: str = "") -> bytes:
    message = EmailMessage()
    message["From"] = sender or f"{player}@example.org"
    message["To"] = f"pamir+{game}.{player}.{token(settings, game, player)}@localhost"
    message["Subject"] = f"Re: [{game}] your move"
    message["Message-ID"] = f"<{time.time_ns()}@example.org>"
    message.set_content(text)
    return message.as_bytes()


def answered(site: str, raw: bytes, home: Path) -> Reply:
    reply = fetch(f"{site}/inbound/email", raw)
    for where in {str(home), str(home.resolve()), str(home.parent)}:
        assert where not in reply.text, reply.text
    assert "/tmp/" not in reply.text and "pytest-" not in reply.text, reply.text
    return reply


def test_no_answer_names_a_folder_of_the_server(site: str, home: Path, settings: Settings) -> None:
    game = settings.games_dir / "kabul"
    create(game)
    player, options = decider(full_state(game))
    other = "bob" if player == "alice" else "alice"

    accepted = answered(site, mail(settings, "kabul", player, options[0] + "\n"), home)
    result = accepted.json()["result"]
    assert accepted.status == 200 and result["status"] == "accepted"
    assert result["messages"], "the move's reports and confirmation are queued"
    for name in result["messages"]:  # by name: a file moves from pending/ once sent
        assert "/" not in name and list((home / "outbox").rglob(name)), name

    refused = answered(site, mail(settings, "kabul", other, "loyalty martians\n"), home)
    assert refused.json()["result"]["status"] == "refused"
    assert all(n.endswith(".eml") for n in refused.json()["result"]["messages"])

    stranger = mail(settings, "kabul", other, "pass\n", sender="mallory@example.org")
    assert answered(site, stranger, home).json()["result"]["status"] == "ignored"

    # A valid token of a game the service no longer has, and of one it cannot read: the
    # reasons used to name the games' folder.
    gone = answered(site, mail(settings, "ghost", "alice", "pass\n"), home)
    assert gone.json()["result"]["status"] == "ignored"
    assert "no game 'ghost'" in gone.json()["result"]["reason"]
    (settings.games_dir / "broken").mkdir()
    broken = answered(site, mail(settings, "broken", "alice", "pass\n"), home)
    assert broken.json()["result"]["status"] == "ignored"
    assert "not a Git repository" in broken.json()["result"]["reason"]

    assert answered(site, b"\r\n", home).status == 400
    assert answered(site, b"no headers at all", home).status == 200


def test_pamir_inbound_email_prints_no_folder_of_the_server(home: Path, settings: Settings) -> None:
    """A mail server bounces what the command prints to the sender of a message it ignores."""
    (settings.games_dir / "broken").mkdir(parents=True)
    for game in ("ghost", "broken"):
        done = run([str(PAMIR), "inbound-email"], input=mail(settings, game, "alice", "pass\n"))
        # Its own line, that is; the log's lines (on standard error too) are the operator's.
        (said,) = [line for line in done.stderr.splitlines() if line.startswith("pamir ")]
        assert done.returncode == 2 and "message ignored" in said, done.stderr
        assert "PAMIR_HOME/games" in said or "not a Git repository" in said, said
        assert str(home) not in said and "/tmp/" not in said, said
