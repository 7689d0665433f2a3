"""Once the game is over, mail invites nothing: the last report's mail asks for neither a
move nor a rollback, and a move sent afterwards is refused without asking for a corrected
one."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path

from gitgame import THREE, create, opened, play

from adjudicator.games.outputs import Adjudication
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import notices, report_mails


def read(path: Path) -> EmailMessage:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def plain(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def test_the_last_report_and_a_late_move_invite_nothing(settings: Settings) -> None:
    path = settings.games_dir / "ended"
    create(path, THREE)
    assert play(path, 600, seed=5, whole_turn=True) < 600  # the game ended
    with opened(path) as repo:
        snap = snapshot(repo)
        assert snap.commit is not None
        last = Adjudication(snap.adjudicated, snap.commit, repo.read("reports/0000.md") or "")
        written = report_mails.notify(settings, repo, [last], deliver_now=False)
        refused = notices.notify_refusal(
            settings, repo, "alice", "pass\n", "game-over: the game is over", deliver_now=False
        )
    assert written
    for message in map(read, written):
        text = plain(message)
        assert "The game is over" in text
        assert "`rollback N REASON`" not in text and "Reply to this message" not in text
    text = plain(read(refused))
    assert "The game is over: no move can be made any more." in text
    assert "corrected move" not in text
