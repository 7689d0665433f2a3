"""What a mail is, at a glance in the inbox: the subject says whether the reader must act
(`[GAME] Your turn (move N): ...`) or what happened (`[GAME] Move N by P: ...`); every
message of a game carries its List-Id, and a reminder comes in the player's thread."""

from __future__ import annotations

import email
import email.policy
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from gitgame import SECRET, TWO

import engine
from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import report_mails, tokens
from adjudicator.mail.compose.messages import compose
from adjudicator.mail.compose.reports import report_subject
from adjudicator.schedule.clock import waiting
from adjudicator.schedule.reminders import compose_reminder


def read(path: Path) -> EmailMessage:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def moved(settings: Settings, repo: GameRepo) -> list[EmailMessage]:
    state = position(snapshot(repo), settings.home)
    player, action = engine.legal_actions(state)[0]
    done = submit(repo, player, engine.format_action(action) + "\n", home=settings.home)
    return [read(p) for p in report_mails.notify(settings, repo, [done], deliver_now=False)]


def test_the_subject_says_who_must_act_and_what_happened(settings: Settings) -> None:
    players = [(n, f"{n}@example.org") for n in TWO]
    repo = create_game(settings.games_dir / "subj", players, home=settings.home, secret=SECRET)
    mails = moved(settings, repo)
    subjects = {str(m["X-Pamir-Player"]): " ".join(str(m["Subject"]).split()) for m in mails}
    turn = [s for s in subjects.values() if s.startswith("[subj] Your turn (move 2): ")]
    news = [s for s in subjects.values() if s.startswith("[subj] Move 1 by ")]
    assert len(turn) == 1 and len(news) == 1, subjects
    assert "loyalty." in news[0]  # the move in words: "Choose Afghan loyalty."
    for message in mails:
        player = str(message["X-Pamir-Player"])
        assert (
            str(message["List-Id"]) == f"Pax Pamir game subj <subj.games.{settings.reply_domain}>"
        )
        address = tokens.reply_address(settings, "subj", player)
        assert str(message["List-Unsubscribe"]).startswith(f"<mailto:{address}?")


def test_the_end_and_a_refusal_have_their_own_subjects() -> None:
    over = report_subject("g", 90, {"view": {"phase": "over"}}, decides=False, over=True)
    assert over == "[g] The game is over (move 90)"
    refused = {"last": {"player": "bob", "refused": "not legal"}, "view": {}}
    assert report_subject("g", 7, refused, decides=False, over=False) == (
        "[g] Move 7 by bob was refused"
    )
    long = {"view": {"pending": {"prompt": "x" * 300 + ": more"}}}
    assert len(report_subject("g", 1, long, decides=True, over=False)) == 110


def test_a_reminder_comes_in_the_players_thread(settings: Settings) -> None:
    players = [(n, f"{n}@example.org") for n in TWO]
    repo = create_game(settings.games_dir / "rem", players, home=settings.home, secret=SECRET)
    mails = moved(settings, repo)
    pending = waiting(repo)
    assert pending is not None
    player = pending.players[0]
    last = next(m for m in mails if str(m["X-Pamir-Player"]) == player.lower())
    now = pending.clock.deadline - timedelta(hours=3)
    reminder = compose_reminder(settings, repo, pending, player, now)
    assert str(reminder["In-Reply-To"]) == str(last["Message-ID"])
    assert str(reminder["References"]).split()[-1] == str(last["Message-ID"])
    assert str(reminder["List-Id"]) == str(last["List-Id"])


def test_list_unsubscribe_is_written_as_its_url_on_one_line(settings: Settings) -> None:
    """RFC 2369: mail programs read `<mailto:...>` as it stands. The email package made a
    value longer than a line into encoded words (`=?utf-8?q?=3Cmailto=3A...?=`), which no
    program takes for a URL, and the unsubscribe button never showed."""
    players = [(n, f"{n}@example.org") for n in TWO]
    repo = create_game(settings.games_dir / "unsub", players, home=settings.home, secret=SECRET)
    state = position(snapshot(repo), settings.home)
    player, action = engine.legal_actions(state)[0]
    done = submit(repo, player, engine.format_action(action) + "\n", home=settings.home)
    paths = report_mails.notify(settings, repo, [done], deliver_now=False)
    pending = waiting(repo)
    assert pending is not None
    due = pending.players[0]
    reminder = compose_reminder(
        settings, repo, pending, due, pending.clock.deadline - timedelta(hours=3)
    )
    raws = [p.read_bytes() for p in paths] + [reminder.as_bytes()]
    for raw, name in zip(raws, [*TWO, due.lower()], strict=True):
        header = raw.split(b"\n\n", 1)[0].decode("ascii")
        [line] = [line for line in header.split("\n") if line.startswith("List-Unsubscribe:")]
        address = tokens.reply_address(settings, "unsub", name)
        assert line.startswith(f"List-Unsubscribe: <mailto:{address}?subject=settings%20notify")
        assert line.endswith(">") and "=?" not in line


def test_a_polish_subject_keeps_its_spaces_between_encoded_words(settings: Settings) -> None:
    """The email package folded `akcję (pozostało` as `=?utf-8?q?akcj=C4=99?=` and
    `=?utf-8?q?=28pozosta=C5=82o?=` on the next line: the space between two encoded words is
    no part of the text (RFC 2047 6.2), and every reader showed "akcję(pozostało". Each
    subject, written out as the outbox keeps it and parsed back, is the text it was."""
    for game, who in [("g1", "Zbigniew"), ("kabul", "alice"), ("x" * 12, "ala")]:
        for number in range(1, 200, 3):
            subject = (
                f"[{game}] Twoja kolej (ruch {number}): {who} wykonuje akcję "
                "(pozostało 2 z 2) albo pasuje"
            )
            message = compose(
                settings, game, "ala", subject, "tekst\n", thread_root="<r@x>",
                in_reply_to=None, to="ala@example.org",
            )  # fmt: skip
            raw = message.as_bytes()
            head = raw.split(b"\n\n", 1)[0].decode("ascii")  # encoded words only
            assert all(len(line) <= 78 for line in head.split("\n") if "?=" in line)
            parsed = email.message_from_bytes(raw, policy=email.policy.default)
            assert str(parsed["Subject"]) == subject


def test_the_subjects_of_polish_reports_read_back_as_written(settings: Settings) -> None:
    """Through the outbox's files: each Polish report's Subject, parsed back with the email
    package, is the subject `report_subject` made, spaces and all."""
    players = [(n, f"{n}@example.org") for n in ("Zbigniew", "Ala")]
    repo = create_game(
        settings.games_dir / "g1",
        players,
        home=settings.home,
        secret=SECRET,
        languages={"Zbigniew": "pl", "Ala": "pl"},
    )
    for _ in range(3):
        for message in moved(settings, repo):
            subject = str(message["Subject"])
            assert "  " not in subject and "ę(" not in subject, subject
            assert not any(word.startswith("=?") for word in subject.split()), subject
