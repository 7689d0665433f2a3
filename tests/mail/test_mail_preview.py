"""A preview by mail: a reply whose subject says `preview` (or `podgląd`), or whose first
line is `preview`, is answered with what its move would do, to its author alone, and no
move is made. A real SMTP server receives what the service sends."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from gitgame import SECRET, isolate
from mailserver import (
    MailServer,
    email_of,
    mail_server,
    plain,
    reply_to,
    settings_for,
)

import engine
from adjudicator.drawing.labels import card_in_words
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words
from adjudicator.mail import ledger, report_mails
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.replytext import preview_asked
from engine.game import legal_seat_actions


@dataclass
class Table:
    settings: Settings
    server: MailServer
    repo: GameRepo

    def first_report(self, player: str) -> EmailMessage:
        return next(
            m
            for m in self.server.messages
            if m["X-Pamir-Kind"] == "report" and str(m["X-Pamir-Player"]) == player
        )


@contextmanager
def mail_table(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    language: str = "en",
    game_id: str = "g1",
    **overrides: str,
) -> Iterator[Table]:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port, **overrides)
        names = ("alice", "bob")
        repo = create_game(
            settings.games_dir / game_id,
            [(n, email_of(n)) for n in names],
            home=settings.home,
            secret=SECRET,
            languages={n: language for n in names},
        )
        head = repo.head()
        assert head is not None
        created = Adjudication(0, head, repo.read("reports/0000.md", head) or "")
        report_mails.notify(settings, repo, [created])
        try:
            yield Table(settings, server, repo)
        finally:
            repo.repo.close()


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    with mail_table(tmp_path, monkeypatch) as made:
        yield made


def decider(repo: GameRepo, home: Path) -> tuple[str, list[str]]:
    state = position(snapshot(repo), home)
    seat, _ = legal_seat_actions(state)[0]
    name = state.name(seat)
    return name, [engine.format_action(a) for p, a in engine.legal_actions(state) if p == name]


def with_subject(raw: bytes, subject: str) -> bytes:
    message = BytesParser(policy=policy.default).parsebytes(raw)
    del message["Subject"]
    message["Subject"] = subject
    return message.as_bytes()


def answers_since(table: Table, before: int) -> list[EmailMessage]:
    return table.server.messages[before:]


def test_the_word_is_found_in_the_subject_or_as_the_first_line() -> None:
    assert preview_asked("Re: [g1] your turn preview", ["pass"]) == (True, ["pass"])
    assert preview_asked("Re: PREVIEW", ["pass"]) == (True, ["pass"])
    assert preview_asked("Re: podgląd", ["pass"]) == (True, ["pass"])
    assert preview_asked("Re: your turn", ["", "Preview", "pass"]) == (True, ["pass"])
    assert preview_asked("Re: previews", ["pass"]) == (False, ["pass"])
    assert preview_asked("Re: your turn", ["pass", "preview"]) == (False, ["pass", "preview"])


def test_a_preview_by_subject_is_answered_and_nothing_is_played(table: Table) -> None:
    player, options = decider(table.repo, table.settings.home)
    report = table.first_report(player)
    raw = reply_to(report, f"{options[0]}\n")
    raw = with_subject(raw, "Re: " + str(report["Subject"]) + " preview")
    head, sent = table.repo.head(), len(table.server.messages)

    result = handle_message(table.settings, raw)

    assert result.status == "accepted", result.reason
    assert table.repo.head() == head
    assert table.repo.names("moves") == []
    (answer,) = answers_since(table, sent)
    assert str(answer["To"]) == f"{player} <{email_of(player)}>"
    text = plain(answer)
    assert f"Preview of move 1 by {player}" in text
    assert "Actions: Choose" in text and "Your rupees: " in text
    assert "Then the game waits for " in text
    # Nothing recorded: the same lines sent later as a move are played.
    key_record = ledger.inbound_record(table.settings, "g1", result_key(raw))
    assert key_record is None
    played = handle_message(table.settings, reply_to(report, f"{options[0]}\n"))
    assert (played.status, played.number) == ("accepted", 1), played.reason
    assert table.repo.names("moves") == [f"0001-{player}.txt"]


def result_key(raw: bytes) -> str:
    message = BytesParser(policy=policy.default).parsebytes(raw)
    return ledger.inbound_key(str(message["Message-ID"]), raw, None)


def test_a_preview_by_its_first_line_leaves_that_line_out(table: Table) -> None:
    player, options = decider(table.repo, table.settings.home)
    report = table.first_report(player)
    head, sent = table.repo.head(), len(table.server.messages)
    raw = reply_to(report, f"preview\n{options[0]}\n")

    result = handle_message(table.settings, raw)
    again = handle_message(table.settings, raw)  # the same mail twice: answered once

    assert (result.status, again.status) == ("accepted", "accepted"), result.reason
    assert table.repo.head() == head
    (answer,) = answers_since(table, sent)
    assert "Actions: Choose" in plain(answer)


def test_a_refused_preview_says_why_and_changes_nothing(table: Table) -> None:
    player, options = decider(table.repo, table.settings.home)
    report = table.first_report(player)
    head, sent = table.repo.head(), len(table.server.messages)

    result = handle_message(table.settings, reply_to(report, "preview\npurchase 99\n"))

    assert result.status == "refused"
    assert table.repo.head() == head
    (answer,) = answers_since(table, sent)
    text = plain(answer)
    assert "This move would be refused: " in text
    assert options[0] in text  # the author's own legal actions
    # The reply address is still good: the real move is played.
    played = handle_message(table.settings, reply_to(report, f"{options[0]}\n"))
    assert played.status == "accepted", played.reason


def test_the_answer_holds_the_hand_of_its_author_only(table: Table) -> None:
    home = table.settings.home
    rng = random.Random(7)
    while True:  # play on until both players hold cards
        state = position(snapshot(table.repo), home)
        hands = [list(p.hand) for p in state.players]
        if all(hands) and legal_seat_actions(state):
            break
        seat, action = rng.choice(legal_seat_actions(state))
        submit(table.repo, state.name(seat), engine.format_action(action) + "\n", home=home)
    player, options = decider(table.repo, home)
    other = next(p.name for p in state.players if p.name != player)
    theirs = next(list(p.hand) for p in state.players if p.name == other)
    mine = next(list(p.hand) for p in state.players if p.name == player)
    head, sent = table.repo.head(), len(table.server.messages)
    report = table.first_report(player)

    result = handle_message(table.settings, reply_to(report, f"preview\n{options[0]}\n"))

    assert result.status == "accepted", result.reason
    assert table.repo.head() == head
    (answer,) = answers_since(table, sent)
    assert str(answer["To"]) == f"{player} <{email_of(player)}>"
    text = plain(answer)
    english = Words()
    assert "Your hand: " in text
    assert any(card_in_words(int(card), english) in text for card in mine)
    for card in theirs:
        assert card_in_words(int(card), english) not in text


def test_a_game_named_preview_is_no_preview(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mail_table(tmp_path, monkeypatch, game_id="preview-cup") as table:
        player, options = decider(table.repo, table.settings.home)
        report = table.first_report(player)
        assert "preview-cup" in str(report["Subject"])

        result = handle_message(table.settings, reply_to(report, f"{options[0]}\n"))

        assert (result.status, result.number) == ("accepted", 1), result.reason


def test_a_preview_in_polish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with mail_table(tmp_path, monkeypatch, language="pl") as table:
        player, _ = decider(table.repo, table.settings.home)
        report = table.first_report(player)
        raw = reply_to(report, "lojalność afgańczycy\n")
        raw = with_subject(raw, "Re: podgląd")
        head, sent = table.repo.head(), len(table.server.messages)

        result = handle_message(table.settings, raw)

        assert result.status == "accepted", result.reason
        assert table.repo.head() == head
        (answer,) = answers_since(table, sent)
        text = plain(answer)
        assert f"Podgląd ruchu 1 gracza {player}" in text
        assert "Akcje: " in text and "Twoje rupie: " in text


def test_a_forged_preview_gets_what_a_forged_move_gets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mail_table(tmp_path, monkeypatch, mail_auth="dkim") as table:
        player, options = decider(table.repo, table.settings.home)
        report = table.first_report(player)
        head = table.repo.head()

        move = handle_message(table.settings, reply_to(report, f"{options[0]}\n"))
        forged = handle_message(table.settings, reply_to(report, f"preview\n{options[0]}\n"))

        assert move.status == forged.status == "refused"
        assert move.reason.startswith("not authenticated")
        assert forged.reason.startswith("not authenticated")
        assert table.repo.head() == head
        assert not any("Preview of move" in plain(m) for m in table.server.messages)


def test_a_rollback_request_is_previewed_not_proposed(table: Table) -> None:
    home = table.settings.home
    player, options = decider(table.repo, home)
    submit(table.repo, player, options[0] + "\n", home=home)
    head, sent = table.repo.head(), len(table.server.messages)
    report = table.first_report(player)

    result = handle_message(table.settings, reply_to(report, "preview\nrollback 0 misclick\n"))

    assert result.status == "accepted", result.reason
    assert table.repo.head() == head
    assert snapshot(table.repo).rollbacks.proposal is None
    (answer,) = answers_since(table, sent)
    assert "This rollback request would do this:" in plain(answer)
