"""A reply to an old turn's mail is not played as new (adjudicator/mail/staleness.py).

The game: alice and bob choose their loyalties by mail (moves 1 and 2); then bob has two
actions. He takes the first on his private page (`submit`, as the page does, its reports
mailed), and a late reply to the turn mail of move 2 arrives with a purchase that is
still legal. It was written for his first action, not his second: it is refused, and he
is told why, with his legal actions as they stand. A real SMTP server and Git game.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailserver import plain, reply_to
from test_mail_in import Table, mail_table, options

import engine
from adjudicator.games.pipeline import position, submit
from adjudicator.games.snapshot import snapshot
from adjudicator.mail import envelope, report_mails, staleness
from adjudicator.mail.incoming import handle_message

STALE = "stale-reply: this answers move 2; the game is at move 3"


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    """The game by mail after both loyalties, bob to take his first action (move 3)."""
    with mail_table(tmp_path, monkeypatch) as table:
        for number in (1, 2):
            _, report = table.deciding()
            reply = reply_to(report, options(report)[0] + "\n")
            result = handle_message(table.settings, reply)
            assert (result.status, result.number) == ("accepted", number), result.reason
        assert table.deciding()[0] == "bob"
        yield table


def latest(table: Table, player: str) -> EmailMessage:
    return [m for m in table.server.messages if str(m["X-Pamir-Player"]) == player][-1]


def on_the_page(table: Table, player: str, text: str) -> None:
    """A move made another way than by mail (the private page), its reports mailed."""
    done = submit(table.repo, player, text, home=table.settings.home)
    report_mails.notify(table.settings, table.repo, [done])


def bobs_turn(table: Table) -> tuple[EmailMessage, str, str]:
    """Bob's turn mail (move 2), the purchase he makes on the page, and another that is
    still legal after it."""
    _, turn_mail = table.deciding()
    first, *others = [o for o in options(turn_mail) if o.startswith("purchase ")]
    on_the_page(table, "bob", first + "\n")
    state = position(snapshot(table.repo), table.settings.home)
    now = {engine.format_action(a) for name, a in engine.legal_actions(state) if name == "bob"}
    still = next(o for o in others if o in now)
    return turn_mail, first, still


def test_a_late_reply_to_an_old_turn_mail_is_refused_though_legal_now(table: Table) -> None:
    turn_mail, _, still = bobs_turn(table)
    head = table.head()

    result = handle_message(table.settings, reply_to(turn_mail, still + "\n"))

    assert result.status == "refused" and result.reason.startswith(STALE), result.reason
    assert table.head() == head and len(table.repo.names("moves")) == 3
    refusal = plain(latest(table, "bob"))
    assert "your move was not accepted" in refusal and STALE in refusal
    assert f"- `{still}`" in refusal  # his legal actions as they stand, to answer again


def test_a_reply_to_the_refusal_or_to_the_newest_mail_is_played(table: Table) -> None:
    turn_mail, _, still = bobs_turn(table)
    assert handle_message(table.settings, reply_to(turn_mail, still + "\n")).status == "refused"
    refusal = latest(table, "bob")

    result = handle_message(table.settings, reply_to(refusal, still + "\n"))

    assert (result.status, result.number) == ("accepted", 4), result.reason


def test_a_fresh_message_to_the_reply_address_is_played_as_it_stands(table: Table) -> None:
    turn_mail, _, still = bobs_turn(table)
    raw = reply_to(turn_mail, still + "\n", quote=False)
    raw = re.sub(rb"(?m)^(In-Reply-To|References): .*\n", b"", raw)
    result = handle_message(table.settings, raw)
    assert (result.status, result.number) == ("accepted", 4), result.reason


def test_only_references_names_the_mail_answered_when_in_reply_to_is_missing(
    table: Table,
) -> None:
    turn_mail, _, still = bobs_turn(table)
    raw = re.sub(rb"(?m)^In-Reply-To: .*\n", b"", reply_to(turn_mail, still + "\n"))
    result = handle_message(table.settings, raw)
    assert result.status == "refused" and result.reason.startswith(STALE), result.reason


def test_an_old_mail_whose_decision_is_still_the_current_one_may_be_answered(
    table: Table,
) -> None:
    """alice proposes a rollback (move 3): the position, and bob's decision, stay as they
    were. His reply to the turn mail of move 2 answers the decision he still faces."""
    _, turn_mail = table.deciding()
    choice = next(o for o in options(turn_mail) if o.startswith("purchase "))
    proposed = handle_message(
        table.settings, reply_to(latest(table, "alice"), "rollback 1 I chose in haste\n")
    )
    assert (proposed.status, proposed.number) == ("accepted", 3), proposed.reason

    result = handle_message(table.settings, reply_to(turn_mail, choice + "\n"))

    assert (result.status, result.number) == ("accepted", 4), result.reason
    assert table.repo.read("moves/0004-bob.txt") == choice + "\n"


def test_the_same_message_delivered_again_later_gets_its_outcome(table: Table) -> None:
    _, turn_mail = table.deciding()
    choice = next(o for o in options(turn_mail) if o.startswith("purchase "))
    raw = reply_to(turn_mail, choice + "\n")
    assert handle_message(table.settings, raw).number == 3
    again = handle_message(table.settings, raw)  # the game is at move 3 now
    assert (again.status, again.number, again.duplicate) == ("accepted", 3, True)


def test_only_this_games_mails_to_this_player_name_the_move_answered(table: Table) -> None:
    bobs = str(latest(table, "bob")["Message-ID"])
    alices = str(latest(table, "alice")["Message-ID"])
    assert re.fullmatch(r"<g1\.0002\.bob\.[0-9a-f]+@pamir\.example>", bobs), bobs

    def answered(parent: str) -> int | None:
        raw = b"In-Reply-To: " + parent.encode() + b"\nReferences: <a@b> " + parent.encode()
        return staleness.answered(table.settings, envelope.read(raw + b"\n\n"), "g1", "bob")

    assert answered(bobs) == 2
    assert answered(bobs.upper()) == 2
    assert answered(alices) is None  # another player's mail
    assert answered(bobs.replace("<g1.", "<g2.", 1)) is None  # another game's
    assert answered(bobs.replace("@pamir.example", "@elsewhere.example")) is None
    assert answered("<CAF00@mail.players.example>") is None  # the player's own, say
