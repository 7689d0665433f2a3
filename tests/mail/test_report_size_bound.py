"""The cheap upper bound of a report's size (adjudicator/mail/compose/reports.py `size_at_most`),
which spares writing a report out to learn whether the board's picture fits beside it:
it is never below the size written out, whatever the headers and the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.home.settings import Settings
from adjudicator.mail.compose.messages import compose
from adjudicator.mail.compose.reports import size_at_most

NAMES = ["alice", "Zażółć Gęślą-Jaźń " * 4, '=?utf-8?q?x?= "quoted" <odd>', "ó" * 200]
TEXTS = ["", "plain words\n" * 500, "żółw = ó\t\n" * 2000, "x" * 5000 + "\n", "ą" * 3000]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("text", TEXTS)
def test_the_bound_is_never_below_the_written_size(tmp_path: Path, name: str, text: str) -> None:
    settings = Settings(home=tmp_path, mail_from="Pax Pamir ąę <pamir@pamir.example>")
    message = compose(
        settings,
        "kabul",
        name.strip(),  # the display name of To
        f"[kabul] Move 44 by {name}: " + "Tax with Baluchi Chiefs (12)… " * 6,
        text,
        thread_root="<root.0000.alice.0123456789abcdef@pamir.example>",
        in_reply_to="<kabul.0043.alice.0123456789abcdef@pamir.example>",
        number=44,
        message_id="<kabul.0044.alice.0123456789abcdef@pamir.example>",
        to="alice@example.org",
        html=f"<p>{text}</p>" * 3,
    )
    assert size_at_most(message) >= len(message.as_bytes())
