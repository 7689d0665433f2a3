"""A reply is read line by line: when a line leaves its author a follow-up question (where
to place a spy, say), the next line must answer it, and a refusal says which line asked."""

from __future__ import annotations

import random

import pytest

import engine
from adjudicator.games.moves import apply_submission


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
