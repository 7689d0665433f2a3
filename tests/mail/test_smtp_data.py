"""A message's DATA on a real SMTP server (`adjudicator.mail.smtp.connect`): a message
with no line that starts with a period is sent as it is, one with such lines has them
doubled (RFC 5321 4.5.2); either way the server receives what smtplib's own DATA
delivers, and a message as it was written."""

from __future__ import annotations

import smtplib
from pathlib import Path

import pytest
from mailserver import mail_server, settings_for

from adjudicator.mail.smtp import connect

MESSAGES = {
    "no period at a line's start": b"Subject: a\r\n\r\nline one\r\nline. two\r\n",
    "a line that starts with a period": b"Subject: b\r\n\r\nline one\r\n.hidden\r\n..two\r\n",
    "a message that starts with one": b".Subject: c\r\n\r\nbody\r\n",
    "no line ending at the end": b"Subject: d\r\n\r\nthe last line",
    "a lone newline before a period": b"Subject: e\r\n\r\nline one\n.hidden\r\n",
}
AS_WRITTEN = [name for name in MESSAGES if "lone newline" not in name]


@pytest.mark.parametrize("name", list(MESSAGES))
def test_the_server_receives_what_smtplib_delivers(tmp_path: Path, name: str) -> None:
    data = MESSAGES[name]
    with mail_server() as server:
        ours = connect(settings_for(tmp_path, server.port))
        theirs = smtplib.SMTP("127.0.0.1", server.port, timeout=5)
        try:
            ours.sendmail("pamir@example.org", ["alice@players.example"], data)
            theirs.sendmail("pamir@example.org", ["alice@players.example"], data)
        finally:
            ours.quit()
            theirs.quit()
        got, expected = server.received
    assert got.data == expected.data
    if name in AS_WRITTEN:  # a lone newline is no line's end to the server
        written = data if data.endswith(b"\r\n") else data + b"\r\n"
        assert got.data.replace(b"\r\n", b"\n") == written.replace(b"\r\n", b"\n")
