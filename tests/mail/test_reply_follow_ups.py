"""A reply is read line by line: when a line leaves its author a follow-up question (where
to place a spy, say), the next line must answer it, and a refusal says which line asked.
The turn mail lists, in advance, the follow-ups the player's legal actions may raise."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from gitgame import isolate
from mailserver import mail_server, new_game, plain, reply_to, settings_for

import engine
from adjudicator.games.moves import apply_submission
from adjudicator.games.pipeline import position, submit
from adjudicator.games.snapshot import snapshot
from adjudicator.mail import report_mails
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.links import page_links
from adjudicator.web import create_app


def a_play_that_asks_for_a_spy() -> tuple[engine.State, str, str, list[str]]:
    """A position where a player's card play is followed by their own spy placement; the
    play, and the lines that answer the follow-up."""
    rng = random.Random(3)
    state = engine.new_game(["alice", "bob"], 11)
    while state.phase != "over":
        for player, action in engine.legal_actions(state):
            if action.verb != "play":
                continue
            after = engine.apply(state, player, action)
            answers = [
                engine.format_action(a) for p, a in engine.legal_actions(after) if p == player
            ]
            if answers and all(answer.startswith("spy ") for answer in answers):
                return state, player, engine.format_action(action), answers
        player, action = rng.choice(engine.legal_actions(state))
        state = engine.apply(state, player, action)
    raise AssertionError("no such position in the game")


def test_a_line_after_a_follow_up_is_read_as_its_answer() -> None:
    state, player, play, answers = a_play_that_asks_for_a_spy()
    outcome = apply_submission(state, player, f"{play}\n{answers[0]}\n")
    assert outcome.actions == [play, answers[0]]


def test_a_refusal_names_the_line_that_asked_the_follow_up() -> None:
    state, player, play, answers = a_play_that_asks_for_a_spy()
    with pytest.raises(engine.MoveError) as refused:
        apply_submission(state, player, f"{play}\npass\n")
    message = str(refused.value)
    assert message.startswith("line 2: wrong-decision:")
    assert f"(line 1, `{play}`, asked this first" in message
    assert all(answer in message for answer in answers)  # the lines that would answer it


def test_the_follow_ups_of_legal_actions_are_found_by_kind_and_answer() -> None:
    state, player, _, _ = a_play_that_asks_for_a_spy()
    found = engine.follow_ups(state, player)
    spy = [f for f in found if (f.verb, f.kind) == ("play", "spy")]
    assert spy and spy[0].answer == "`spy CARD`" and "spy" in spy[0].asks
    # Only the player's own follow-ups: another player's decision (a bribe) is not one.
    assert all(f.kind != "bribe" for f in found)
    other = next(name for name in ("alice", "bob") if name != player)
    assert engine.follow_ups(state, other) == []  # nothing to decide, nothing to ask


def test_a_turn_mail_lists_the_follow_ups_and_a_two_step_reply_is_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the real inbound path and a real SMTP server: the turn mail says that
    playing a card may ask where to place its spy, and a reply of two lines (the play,
    then its spy) is played as one move."""
    home = isolate(tmp_path, monkeypatch)
    rng = random.Random(5)
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, _ = new_game(settings)
        while True:
            state = position(snapshot(repo), settings.home)
            asking = _play_asking_for_a_spy(state)
            if asking is not None:
                break
            player, action = rng.choice(engine.legal_actions(state))
            last = submit(repo, player, engine.format_action(action) + "\n", home=home)
        player, play, spy = asking
        report_mails.notify(settings, repo, [last])
        (mail,) = [
            m
            for m in server.messages
            if str(m["X-Pamir-Player"]) == player and str(m["X-Pamir-Move"]) == str(last.number)
        ]
        text = plain(mail)
        assert "`play ...` may then ask" in text and "spy (`spy CARD`)" in text
        private = page_links(settings, "g1", player).private.removeprefix(settings.base_url)
        page = create_app({"home": home, "TESTING": True}).test_client().get(private).text
        assert "may then ask where to place the card&#39;s spy (<code>spy CARD</code>)" in page

        result = handle_message(settings, reply_to(mail, f"{play}\n{spy}\n"))

        assert result.status == "accepted", result.reason
        move = repo.read(f"moves/{last.number + 1:04d}-{player}.txt") or ""
        assert [line for line in move.splitlines() if not line.startswith("#")] == [play, spy]
        repo.repo.close()


def _play_asking_for_a_spy(state: engine.State) -> tuple[str, str, str] | None:
    """(player, a play whose follow-up is their spy, an answer), when the position has one."""
    for player, action in engine.legal_actions(state):
        if action.verb != "play":
            continue
        after = engine.apply(state, player, action)
        answers = [engine.format_action(a) for p, a in engine.legal_actions(after) if p == player]
        if answers and all(answer.startswith("spy ") for answer in answers):
            return player, engine.format_action(action), answers[0]
    return None
