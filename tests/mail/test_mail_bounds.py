"""Inbound mail is bounded before it is parsed (adjudicator/mail/bounds.py).

Each hostile message here is about 1 MB, under `max_inbound_bytes`, from a player's own
address to their valid reply address (the worst case: the sender knows the address).
Parsed whole with `email.policy.default` they would take from hundreds of megabytes to
many gigabytes; bounded, each is refused unread, `too-complex`, at every way in: the
MTA's pipe (`pamir inbound-email`), `POST /inbound/email` and `handle_message`. Ordinary
replies (a plain one, one with encoded words, a multipart one with an attachment) are
played as before. Real parts: an SMTP server, a Git game, HTTP on 127.0.0.1.
"""

from __future__ import annotations

import os
import random
import subprocess
import tracemalloc
from collections.abc import Callable, Iterator
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from pathlib import Path

import pytest
from gitgame import PAMIR
from liveserver import fetch, serving
from mailserver import (
    DOMAIN,
    MAIL_FROM,
    email_of,
    plain,
    reply_to,
)
from test_mail_in import Table, mail_table, options
from test_metrics import app_of, changed, samples

from adjudicator.mail import bounds, tokens
from adjudicator.mail.incoming import handle_message

SIZE = 1_000_000 - 4096  # just under max_inbound_bytes (1,000,000)
TOO_COMPLEX = "message too complex to read: "


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    """A game by mail, its first reports sent (as in tests/mail/test_mail_in.py)."""
    with mail_table(tmp_path, monkeypatch) as made:
        yield made


def head_of(table: Table, player: str) -> bytes:
    address = tokens.reply_address(table.settings, "g1", player)
    return (
        f"From: {email_of(player)}\nTo: {address}\nDate: Tue, 3 Mar 2026 10:00:00 +0000\n"
        "MIME-Version: 1.0\n"
    ).encode()


def padded(message: bytes) -> bytes:
    """The message with a plain body that brings it to about 1 MB."""
    body = b"policy pay 2\n" + b"x" * 70 + b"\n"
    return message + body * ((SIZE - len(message)) // len(body))


def words(count: int) -> bytes:
    return b" ".join([b"=?utf-8?q?=C5=BC?="] * count)


def folded(name: bytes, value: bytes, width: int = 900) -> bytes:
    lines = [value[i : i + width] for i in range(0, len(value), width)]
    return name + b": " + b"\n ".join(lines) + b"\n"


Hostile = Callable[[bytes], bytes]
HOSTILE: dict[str, Hostile] = {
    # A Subject of 64 KB of encoded words: 150 MB to parse whole, and 1 MB of them gigabytes.
    "subject-encoded-words": lambda h: padded(
        h + folded(b"Subject", words(3600)) + b"Message-ID: <a@players.example>\n\n"
    ),
    "subject-1mb": lambda h: folded(b"Subject", words(SIZE // 19)) + h + b"\nx\n",
    "from-encoded-words": lambda h: padded(
        h.replace(b"From: ", b"From: " + words(3600) + b" <", 1).replace(b"\nTo:", b">\nTo:", 1)
        + b"\n"
    ),
    "to-encoded-words": lambda h: padded(folded(b"Cc", words(3600)) + h + b"\n"),
    "message-id-encoded-words": lambda h: padded(
        h + folded(b"Message-ID", b"<" + words(3600) + b"@x>") + b"\n"
    ),
    "subject-100-encoded-words": lambda h: padded(h + b"Subject: " + words(100) + b"\n\n"),
    "encoded-words-in-many-fields": lambda h: padded(
        h + b"".join(b"X-Note-%d: %s\n" % (i, words(60)) for i in range(400)) + b"\n"
    ),
    "thousands-of-headers": lambda h: h + b"X-Filler: x\n" * (SIZE // 12) + b"\nx\n",
    "thousands-of-folded-lines": lambda h: padded(
        h
        + b"".join(b"X-Filler-%d: x\n%s" % (i, (b" " + b"x" * 70 + b"\n") * 40) for i in range(80))
        + b"\n"
    ),
    "short-lines": lambda h: h + b"\n" + b"x\n" * (SIZE // 2),
    "deep-nesting": lambda h: padded(
        h
        + b"".join(
            b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (i, i) for i in range(15000)
        )
        + b"\n"
    ),
    "message-in-message": lambda h: h + b"Content-Type: message/rfc822\n\n" * (SIZE // 31),
    "many-parts": lambda h: (
        h
        + b"Content-Type: multipart/mixed; boundary=b\n\n"
        + b"--b\nContent-Type: text/plain\n\npolicy pay 2\n" * (SIZE // 45)
        + b"--b--\n"
    ),
    "content-type-comments": lambda h: padded(
        h + b"Content-Type: text/plain; " + b"(c) " * 400 + b"\n\n"
    ),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_message_of_1_mb_is_refused_unread_at_little_cost(
    table: Table, kind: str
) -> None:
    player, _ = table.deciding()
    raw = HOSTILE[kind](head_of(table, player))
    assert len(raw) <= table.settings.max_inbound_bytes
    head = table.head()
    tracemalloc.start()
    try:
        result = handle_message(table.settings, raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 1024 * 1024, f"{peak / 1e6:.0f} MB"
    assert (result.status, result.exit_status) == ("ignored", 2)
    assert result.reason.startswith(TOO_COMPLEX), result.reason
    assert table.head() == head and len(table.server.messages) == 2


def test_a_hostile_message_is_refused_on_the_pipe_and_over_http_and_counted(
    table: Table,
) -> None:
    player, _ = table.deciding()
    raw = HOSTILE["subject-1mb"](head_of(table, player))
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
    done = subprocess.run(
        [str(PAMIR), "inbound-email"], input=raw, env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 2
    assert b"message ignored: " + TOO_COMPLEX.encode() in done.stderr

    with serving(app_of(table.settings)) as site:
        before = samples(fetch(f"{site}/metrics").text)
        answer = fetch(f"{site}/inbound/email", data=raw, method="POST")
        after = samples(fetch(f"{site}/metrics").text)
    assert answer.status == 200
    assert answer.json()["result"]["status"] == "ignored"
    assert answer.json()["result"]["reason"].startswith(TOO_COMPLEX)
    assert changed(before, after, "pamir_inbound_refused_total", reason="too-complex") == 1
    assert len(table.server.messages) == 2


def test_each_bound_is_named_in_the_refusal(table: Table) -> None:
    player, _ = table.deciding()
    said = {
        kind: bounds.too_complex(make(head_of(table, player))) for kind, make in HOSTILE.items()
    }
    assert said["subject-1mb"] == "the Subject field longer than 16384 bytes"
    assert said["subject-100-encoded-words"] == (
        "100 encoded words in the Subject field (at most 64 a field)"
    )
    assert said["encoded-words-in-many-fields"] == "more than 256 encoded words in its headers"
    assert said["thousands-of-headers"] == "more than 300 header fields in one part"
    assert said["thousands-of-folded-lines"] == "more than 3000 header lines"
    assert said["short-lines"] == "more than 100000 lines"
    assert said["deep-nesting"] == "MIME parts nested more than 8 deep"
    assert said["message-in-message"] == "MIME parts nested more than 8 deep"
    assert said["many-parts"] == "more than 64 MIME parts"
    assert said["content-type-comments"] is not None
    assert "not written plainly" in said["content-type-comments"]


# -- ordinary replies are read as before -----------------------------------------------------


def accepted(table: Table, raw: bytes, player: str, choice: str) -> None:
    result = handle_message(table.settings, raw)
    assert (result.status, result.player, result.number) == ("accepted", player, 1), result.reason
    assert table.repo.read(f"moves/0001-{player}.txt") == choice + "\n"


def test_an_ordinary_reply_is_played(table: Table) -> None:
    player, report = table.deciding()
    choice = options(report)[-1]
    accepted(table, reply_to(report, choice + "\n"), player, choice)


def test_a_reply_with_a_few_encoded_words_is_played_and_answered_in_its_thread(
    table: Table,
) -> None:
    player, report = table.deciding()
    choice = options(report)[-1]
    raw = reply_to(
        report,
        choice + "\n",
        sender=f"Zoë Żółw <{email_of(player)}>",
        extra_headers={"Cc": "Ünïcode Friend <friend@players.example>"},
    ).replace(b"Subject: Re: ", b"Subject: =?utf-8?q?Odpowied=C5=BA:?= Re: ", 1)
    assert raw.count(b"=?utf-8?") >= 3  # From, Cc and Subject each hold encoded words
    accepted(table, raw, player, choice)
    (confirmation,) = [m for m in table.server.messages if "move 1 accepted" in plain(m)]
    assert str(confirmation["Subject"]).startswith("Re: Odpowiedź: Re: ")


def test_a_multipart_reply_with_html_and_an_attachment_is_played(table: Table) -> None:
    player, report = table.deciding()
    choice = options(report)[-1]
    message = BytesParser(policy=policy.default).parsebytes(reply_to(report, choice + "\n"))
    assert isinstance(message, EmailMessage)
    message.add_alternative(f"<p>{choice}</p><blockquote>the report</blockquote>", subtype="html")
    message.add_attachment(
        b"\x89PNG\r\n\x1a\n" + bytes(2000), maintype="image", subtype="png", filename="plansza.png"
    )
    raw = message.as_bytes()
    shape = bounds.measure(raw)
    assert (shape.depth, shape.parts) == (2, 4)  # mixed: (alternative: plain, html), png
    accepted(table, raw, player, choice)


# -- the scan agrees with the email package --------------------------------------------------


def tree(message: Message) -> tuple[int, int]:
    """The depth of a parsed message's parts and how many there are."""
    deepest, count = 0, 0
    payload = message.get_payload()
    if isinstance(payload, list):
        for part in payload:
            assert isinstance(part, Message)
            depth, inner = tree(part)
            deepest, count = max(deepest, depth + 1), count + inner + 1
    return deepest, count


@pytest.fixture
def mails(table: Table) -> Iterator[list[bytes]]:
    """The service's own report mails (multipart, with the board as a picture), a reply
    that forwards one as an attachment, and the same with CRLF and CR line ends."""
    sent = [m.as_bytes() for m in table.server.messages]
    _, report = table.deciding()
    forward = BytesParser(policy=policy.default).parsebytes(reply_to(report, "pass\n"))
    assert isinstance(forward, EmailMessage)
    forward.add_attachment(report)
    made = forward.as_bytes()
    yield [*sent, made, made.replace(b"\n", b"\r\n"), made.replace(b"\n", b"\r")]


def test_the_parts_found_before_parsing_are_the_email_packages(mails: list[bytes]) -> None:
    for raw in mails:
        shape = bounds.measure(raw)
        parsed = BytesParser(policy=policy.default).parsebytes(raw)
        assert isinstance(parsed, EmailMessage)
        assert (shape.depth, shape.parts) == tree(parsed)
        assert plain(parsed)  # and the text is found where it was
    assert any(bounds.measure(raw).depth >= 3 for raw in mails)


PIECES = [
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"--",
    b"=?",
    b":",
    b";",
    b'"',
    b"\\",
    b"(",
    b"boundary=",
    b"; boundary=q",
    b"Content-Type: ",
    b"CONTENT-TYPE:",
    b"multipart/mixed",
    b"multipart/digest",
    b"message/rfc822",
    b"message/delivery-status",
    b"--q",
    b"--q--",
]


def test_the_scan_never_finds_fewer_parts_than_the_email_package(mails: list[bytes]) -> None:
    """Messages mangled at random (seeded): the scan refuses them, or finds at least the
    parts the email package makes of them, as deep; it raises nothing else."""
    rng = random.Random(2026)
    seeds = [*mails[-3:], DIGEST]
    checked = 0
    for _ in range(400):
        raw = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(raw) + 1)
            roll = rng.random()
            if roll < 0.4:
                raw[at:at] = rng.choice(PIECES)
            elif roll < 0.7:
                del raw[at : at + rng.randint(1, 20)]
            else:
                start = rng.randrange(len(raw) + 1)
                raw[at:at] = raw[start : start + rng.randint(1, 60)]
        try:
            shape = bounds.measure(bytes(raw))
        except bounds.TooComplex:
            continue
        parsed = BytesParser(policy=policy.default).parsebytes(bytes(raw))
        depth, parts = tree(parsed)
        assert shape.depth >= depth and shape.parts >= parts, bytes(raw)
        checked += 1
    assert checked > 200


DIGEST = (
    b"From: a@players.example\nContent-Type: multipart/digest; boundary=q\n\n--q\n\n"
    b"From: b@players.example\n\nx\n--q\nContent-Type: message/delivery-status\n\n"
    b"Reporting-MTA: dns; mx.example\n\nFinal-Recipient: rfc822; b@players.example\n"
    b"\n--q--\n"
)
