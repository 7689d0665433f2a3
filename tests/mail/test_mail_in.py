"""Mail in: players' replies become moves. A real SMTP server receives what the service
sends; the replies are written as a mail client would (quoting, signature, footers) and
fed to `handle_message`, and once to the `pamir inbound-email` command on standard input.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid
from pathlib import Path

import pytest
from gitgame import PAMIR, git, isolate
from mailserver import (
    DOMAIN,
    MAIL_FROM,
    MailServer,
    email_of,
    html,
    mail_server,
    new_game,
    plain,
    reply_to,
    settings_for,
    unstyled,
)

from adjudicator.games.moves import apply_submission
from adjudicator.games.pipeline import position
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import report_mails, tokens
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.replytext import body_text, reply_lines
from engine.errors import MoveError

OPTION = re.compile(r"^- `([^`]+)`(?: — .*)?$", re.MULTILINE)


@dataclass
class Table:
    """A game with its first reports sent through a real SMTP server."""

    settings: Settings
    server: MailServer
    repo: GameRepo

    def head(self) -> str:
        head = self.repo.head()
        assert head is not None
        return head

    def deciding(self) -> tuple[str, EmailMessage]:
        """The player who must decide now and the last report they were sent."""
        latest: dict[str, EmailMessage] = {}
        for message in self.server.messages:
            if message["X-Pamir-Kind"] == "report":
                latest[str(message["X-Pamir-Player"])] = message
        deciding = [(p, m) for p, m in latest.items() if "It is your decision." in plain(m)]
        assert len(deciding) == 1, sorted(latest)
        return deciding[0]

    def outbox_files(self) -> list[Path]:
        return sorted(self.settings.outbox_dir.rglob("*.eml"))


@contextmanager
def mail_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    """A game by mail in a fresh PAMIR_HOME, its first reports sent to a real SMTP server."""
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        try:
            yield Table(settings, server, repo)
        finally:
            repo.repo.close()


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    with mail_table(tmp_path, monkeypatch) as made:
        assert len(made.server.messages) == 2
        yield made


def options(message: EmailMessage) -> list[str]:
    found = OPTION.findall(plain(message))
    assert found, "the report lists the player's legal actions"
    return found


def token_of(address: str) -> str:
    match = tokens.ADDRESS.match(address)
    assert match is not None
    return match.group("token")


def move_files(repo: GameRepo) -> list[str]:
    return repo.names("moves")


def test_a_reply_by_email_is_played_and_the_next_reports_go_out(table: Table) -> None:
    player, report = table.deciding()
    choice = options(report)[-1]
    raw = reply_to(report, f"{choice}\n\nSent from my iPhone\n")
    before = table.head()

    result = handle_message(table.settings, raw)

    assert (result.status, result.game, result.player, result.number) == (
        "accepted",
        "g1",
        player,
        1,
    )
    assert move_files(table.repo) == [f"0001-{player}.txt"]
    assert table.repo.read(f"moves/0001-{player}.txt") == choice + "\n"
    assert git(table.repo.path, "rev-parse", "HEAD^").strip() == before
    author = git(table.repo.path, "log", "-1", "--format=%an <%ae>").strip()
    assert author == f"{player} <{email_of(player)}>"

    messages = table.server.messages
    assert len(messages) == 5  # 2 reports of move 0, 2 of move 1, 1 confirmation
    reports = [
        m for m in messages[2:] if str(m["X-Pamir-Move"]) == "1" and "Re:" not in str(m["Subject"])
    ]
    assert sorted(str(m["X-Pamir-Player"]) for m in reports) == ["alice", "bob"]
    for message in reports:
        assert "# g1: move 1 by " + player in plain(message)
        first = next(m for m in messages[:2] if m["X-Pamir-Player"] == message["X-Pamir-Player"])
        assert str(message["In-Reply-To"]) == str(first["Message-ID"])
    (confirmation,) = [m for m in messages if str(m["Subject"]).startswith("Re:")]
    assert str(confirmation["To"]) == f"{player} <{email_of(player)}>"
    assert str(confirmation["In-Reply-To"]) == str(parsed(raw)["Message-ID"])
    assert "move 1 accepted" in plain(confirmation)
    # The other player chooses their loyalty next, and their report of move 1 says so.
    following, next_report = table.deciding()
    assert following != player and str(next_report["X-Pamir-Move"]) == "1"
    assert f"| {player} | {choice.split()[1]} |" in plain(next_report)  # the players table


def parsed(raw: bytes) -> EmailMessage:
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return message


def test_the_inbound_email_command_reads_a_message_on_stdin(table: Table) -> None:
    player, report = table.deciding()
    choice = options(report)[0]
    raw = reply_to(report, choice + "\n")
    help_text = subprocess.run([str(PAMIR), "--help"], capture_output=True, text=True).stdout
    if "inbound-email" in help_text:
        command = [str(PAMIR), "inbound-email"]
    else:  # the same command, registered on its own parser
        command = [sys.executable, "-m", "adjudicator.mail.incoming"]
    env = {
        **os.environ,
        "PAMIR_HOME": str(table.settings.home),
        "PAMIR_SMTP_HOST": "127.0.0.1",
        "PAMIR_SMTP_PORT": str(table.server.port),
        "PAMIR_SMTP_SECURITY": "none",
        "PAMIR_MAIL_FROM": MAIL_FROM,
        "PAMIR_REPLY_LOCAL": "play",
        "PAMIR_REPLY_DOMAIN": DOMAIN,
    }
    done = subprocess.run(command, input=raw, env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert b"accepted: move 1 adjudicated" in done.stdout
    assert table.repo.read(f"moves/0001-{player}.txt") == choice + "\n"
    assert len(table.server.messages) == 5

    # An invalid message: exit status 2, the reason on standard error, nothing changes.
    head = table.head()
    forged = reply_to(report, choice + "\n", to=f"play+g1.{player}.{'0' * 20}@{DOMAIN}")
    done = subprocess.run(command, input=forged, env=env, capture_output=True, timeout=60)
    assert done.returncode == 2
    assert b"ignored: invalid reply token" in done.stderr
    assert table.head() == head and len(table.server.messages) == 5


def test_an_illegal_move_gets_the_engines_refusal_by_email(table: Table) -> None:
    player, report = table.deciding()
    choice = options(report)[0]
    text = f"{choice}\npurchase 1\n"
    try:
        apply_submission(position(snapshot(table.repo), table.settings.home), player, text)
    except MoveError as error:
        expected = str(error)
    else:
        raise AssertionError("the second line should be refused")
    assert expected.startswith("line 2: ")
    head = table.head()
    raw = reply_to(report, text)

    result = handle_message(table.settings, raw)

    assert result.status == "refused" and result.reason == expected
    assert table.head() == head and move_files(table.repo) == []
    assert len(table.server.messages) == 3
    refusal = table.server.messages[-1]
    assert str(refusal["To"]) == f"{player} <{email_of(player)}>"
    assert str(refusal["In-Reply-To"]) == str(parsed(raw)["Message-ID"])
    assert str(refusal["Subject"]) == "Re: " + str(report["Subject"])
    body = plain(refusal)
    assert "your move was not accepted" in body and "Nothing was changed" in body
    for line in expected.splitlines():
        assert "    " + line in body
    assert "  2  purchase 1" in body  # what was read, numbered as the refusal counts
    assert "<code>" + expected.split(":")[0] in unstyled(html(refusal))  # shown as code in the HTML


@pytest.mark.parametrize(
    "case",
    ["wrong token", "wrong sender", "oversized", "no reply address", "auto-reply", "garbage"],
)
def test_invalid_mail_changes_nothing(
    table: Table, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    player, report = table.deciding()
    choice = options(report)[0]
    settings = table.settings
    reply = tokens.reply_address(settings, "g1", player)
    if case == "wrong token":
        other = "bob" if player == "alice" else "alice"
        own = token_of(reply)
        stolen = token_of(tokens.reply_address(settings, "g1", other))
        assert own != stolen
        raw = reply_to(report, choice, to=reply.replace(own, stolen))
        reason = "invalid reply token"
    elif case == "wrong sender":
        raw = reply_to(report, choice, sender=f"mallory <{player}@elsewhere.example>")
        reason = "is not the address game g1 has for"
    elif case == "oversized":
        raw = reply_to(report, choice + "\n" + "x" * settings.max_inbound_bytes)
        reason = "exceeds max_inbound_bytes"
    elif case == "no reply address":
        raw = reply_to(report, choice, to=f"pamir@{DOMAIN}")
        reason = "no reply address"
    elif case == "auto-reply":
        raw = reply_to(report, "I am away.", extra_headers={"Auto-Submitted": "auto-replied"})
        reason = "automatic message"
    else:
        raw = b"\x00\xff not a message at all"
        reason = "malformed message"
    head, files, count = table.head(), table.outbox_files(), len(table.server.messages)

    with caplog.at_level(logging.WARNING, logger="adjudicator.mail.incoming"):
        result = handle_message(settings, raw)

    assert result.status == "ignored" and reason in result.reason
    assert result.exit_status == 2
    assert f"inbound mail ignored: {result.reason}" in caplog.text
    assert table.head() == head and move_files(table.repo) == []
    assert table.outbox_files() == files and len(table.server.messages) == count


def test_the_same_message_delivered_twice_is_played_once(table: Table) -> None:
    _, report = table.deciding()
    raw = reply_to(report, options(report)[0])
    first = handle_message(table.settings, raw)
    assert first.status == "accepted"
    head, count = table.head(), len(table.server.messages)
    again = handle_message(table.settings, raw)
    # The same outcome as the first time, without adjudicating or mailing anything again.
    assert (again.status, again.number, again.reason) == ("accepted", first.number, first.reason)
    assert again.duplicate and again.exit_status == 0
    assert table.head() == head and len(table.server.messages) == count


def test_an_html_only_reply_from_a_webmail_client_is_read(table: Table) -> None:
    player, report = table.deciding()
    choice = options(report)[1]
    message = EmailMessage()
    message["From"] = email_of(player).upper()  # addresses compare case-insensitively
    message["To"] = "someone@example.org"
    message["Cc"] = str(report["Reply-To"])
    message["Subject"] = "Re: " + str(report["Subject"])
    message["Message-ID"] = make_msgid()
    message.set_content(
        f'<div dir="ltr"><code>{choice}</code><br></div><br>'
        '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Tue, 3 Mar 2026 at '
        f"10:00, Pax Pamir &lt;pamir@{DOMAIN}&gt; wrote:<br></div>"
        f'<blockquote class="gmail_quote">{html(report)}</blockquote></div>',
        subtype="html",
    )
    result = handle_message(table.settings, message.as_bytes())
    assert result.status == "accepted", result.reason
    assert table.repo.read(f"moves/0001-{player}.txt") == choice + "\n"


# -- reading replies -----------------------------------------------------------------------


def test_quoted_text_signatures_and_footers_are_dropped() -> None:
    top_posted = "purchase 43\r\n- `play 43 left`\r\n\r\n-- \r\nAlice\r\n> old line\r\n"
    assert reply_lines(top_posted) == ["purchase 43", "play 43 left"]
    bottom_posted = (
        "On Mon, 2 Mar 2026 at 09:12, Pax Pamir <pamir@pamir.example>\n"
        "wrote:\n"
        "> ## For alice only\n"
        "> - `tax 61`\n"
        "\n"
        "tax 61\n"
        "collect bob\n"
        "\n"
        "Envoyé de mon iPhone\n"
        "purchase 99\n"
    )
    assert reply_lines(bottom_posted) == ["tax 61", "collect bob"]
    outlook = (
        "pass\n\n"
        "________________________________\n"
        "From: Pax Pamir <pamir@pamir.example>\n"
        "Sent: Monday, 2 March 2026 09:12\n"
        "To: alice\n"
        "Subject: Pax Pamir game g1\n\n"
        "- `pass`\n- `purchase 1`\n"
    )
    assert reply_lines(outlook) == ["pass"]
    # A blank line inside the move is kept (the notation allows it), a "--" signature too.
    assert reply_lines("\n\nbuild army kabul\n\n# then\ndone\n--\nA.\n") == [
        "build army kabul",
        "",
        "# then",
        "done",
    ]
    assert reply_lines("Get Outlook for Android\n") == []


def test_the_text_of_a_message_prefers_plain_text_and_reads_html_otherwise() -> None:
    both = EmailMessage()
    both.set_content("purchase 43\n")
    both.add_alternative("<p>something else</p>", subtype="html")
    assert body_text(both) == "purchase 43\n"
    only_html = EmailMessage()
    only_html.set_content(
        "<html><head><style>p{}</style></head><body><p>pass&nbsp;</p>"
        "<blockquote><p>quoted</p></blockquote></body></html>",
        subtype="html",
    )
    text = body_text(only_html)
    assert text is not None and reply_lines(text) == ["pass"]
    assert "> quoted" in text
