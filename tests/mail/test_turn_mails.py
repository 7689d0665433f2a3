"""One mail a turn (`notify per-turn`, the default): a turn of several moves is one mail to
each player who watched it, whatever asks a player to decide goes at once, and a move
whose report answers its author gets no confirmation beside it (docs/email.md#how-much-mail).
Through the real inbound path and a real SMTP server."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest
from bribes import rest_of_turn, to_a_bribe
from gitgame import isolate
from mailserver import MailServer, email_of, mail_server, new_game, plain, reply_to, settings_for

from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import position
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import report_mails
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.preferences import set_notify_preference

THREE = ("alice", "bob", "carol")


def last_to(server: MailServer, player: str) -> EmailMessage:
    return server.to(email_of(player))[-1]


def count(server: MailServer) -> dict[str, int]:
    return {name: len(server.to(email_of(name))) for name in THREE}


def at_a_bribe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: MailServer
) -> tuple[Settings, GameRepo, str, str, str, str]:
    """A 3-player game brought to a bribe, every player mailed the position: (settings,
    the game, the mover, their bribing action, the ruler, the third player)."""
    home = isolate(tmp_path, monkeypatch)
    settings = settings_for(home, server.port, notify="per-turn")  # the default
    repo, _ = new_game(settings, THREE)
    mover, action, ruler = to_a_bribe(repo, home)
    snap = snapshot(repo)
    report = repo.read(f"reports/{snap.adjudicated:04d}.md") or ""
    last = Adjudication(snap.adjudicated, snap.commit or "", report)
    # Every player gets the position's report (as the moves before would have given it).
    report_mails.notify(settings.model_copy(update={"notify": "every"}), repo, [last])
    third = next(n for n in THREE if n not in (mover, ruler))
    return settings, repo, mover, action, ruler, third


def test_a_turn_across_a_bribe_is_one_mail_to_the_player_who_watched_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mail_server() as server:
        settings, repo, mover, action, ruler, third = at_a_bribe(tmp_path, monkeypatch, server)
        state = position(snapshot(repo), settings.home)
        rest = rest_of_turn(state, mover, action, "demand 0")
        before = count(server)

        text = "\n".join([action, *rest]) + "\n"
        answer = handle_message(settings, reply_to(last_to(server, mover), text))

        assert answer.status == "accepted", answer.reason
        after = count(server)
        # The mover: a confirmation saying what waits; the ruler: the report asking them;
        # the third player: nothing yet.
        assert after[mover] - before[mover] == 1
        confirmation = last_to(server, mover)
        assert str(confirmation["X-Pamir-Kind"]) != "report"
        assert f"waits for {ruler}" in plain(confirmation)
        assert after[ruler] - before[ruler] == 1
        assert "may demand a bribe" in plain(last_to(server, ruler))
        assert after[third] == before[third]

        answered = handle_message(settings, reply_to(last_to(server, ruler), "demand 0\n"))

        assert answered.status == "accepted", answered.reason
        done = count(server)
        subjects = {
            n: [str(m["Subject"]) for m in server.to(email_of(n))[after[n] :]] for n in THREE
        }
        assert done == {name: after[name] + 1 for name in THREE}, subjects  # one mail each
        turn = plain(last_to(server, third))
        # The third player's one mail holds the turn's three reports, in order.
        numbers = [answer.number or 0, (answer.number or 0) + 1, (answer.number or 0) + 2]
        at = [turn.index(f"# g1: move {n} ") for n in numbers]
        assert at == sorted(at)
        repo.repo.close()


def test_a_move_that_ends_the_turn_answers_its_author_with_the_report_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mail_server() as server:
        settings, repo, mover, _, _, _ = at_a_bribe(tmp_path, monkeypatch, server)
        before = count(server)

        answer = handle_message(settings, reply_to(last_to(server, mover), "pass\n"))

        assert answer.status == "accepted", answer.reason
        after = count(server)
        assert after == {name: before[name] + 1 for name in THREE}
        assert str(last_to(server, mover)["X-Pamir-Kind"]) == "report"
        repo.repo.close()


def test_notify_every_keeps_a_report_per_move_and_the_confirmation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mail_server() as server:
        settings, repo, mover, action, ruler, third = at_a_bribe(tmp_path, monkeypatch, server)
        for player in THREE:
            set_notify_preference(settings, "g1", player, "every")
        before = count(server)

        answer = handle_message(settings, reply_to(last_to(server, mover), f"{action}\n"))

        assert answer.status == "accepted", answer.reason
        after = count(server)
        assert after[mover] - before[mover] == 2  # the report and the confirmation
        assert after[ruler] - before[ruler] == 1 and after[third] - before[third] == 1
        repo.repo.close()


def test_the_mail_offers_the_standing_policy_that_saves_a_round_trip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with mail_server() as server:
        settings, repo, mover, action, ruler, _ = at_a_bribe(tmp_path, monkeypatch, server)
        assert "`policy pay N`" in plain(last_to(server, mover))

        handle_message(settings, reply_to(last_to(server, mover), f"{action}\n"))

        asked = plain(last_to(server, ruler))
        assert f"`policy demand {mover} N`" in asked
        assert "`policy pay N`" not in asked
        repo.repo.close()


def test_one_mail_a_turn_is_the_default(tmp_path: Path) -> None:
    assert Settings(home=tmp_path).notify == "per-turn"
