"""Rule cases: Sequence of Play [Sequence of Play, p. 9; Access to Actions, p. 8]."""

from __future__ import annotations

import pytest
from positions import Position, act, options, waiting_for

import engine
from engine import IllegalActionError

TOP = [61, 62, 63, 64, 65, 60]
BOTTOM = [67, 9, 10, 12, 13, 14]


def three_players() -> engine.State:
    return (
        Position({"alice": "british", "bob": "russian", "cati": "afghan"})
        .market(TOP, BOTTOM)
        .rupees("alice", 10)
        .build()
    )


def test_sequence_of_play_two_actions_then_the_turn_ends_by_itself() -> None:
    """[Sequence of Play, p. 9] "Each turn, the active player performs up to two actions
    ... After you have completed your turn, perform cleanup. Then play continues clockwise
    to the next player."
    """
    state = three_players()
    state = act(state, "alice", "purchase 61")
    assert waiting_for(state) == ("turn", ["alice"])
    assert state.actions_used == 1
    state = act(state, "alice", "purchase 67")
    assert state.players[0].hand == [61, 67]
    assert waiting_for(state) == ("turn", ["bob"])
    assert state.active == 1
    assert state.turn == 2


def test_sequence_of_play_a_player_may_take_no_action_at_all() -> None:
    """[Sequence of Play, p. 9] "You may opt to take only a single action or no action at
    all."
    """
    state = three_players()
    state = act(state, "alice", "pass")
    assert waiting_for(state) == ("turn", ["bob"])
    assert state.players[0].hand == []
    assert state.players[0].rupees == 10


def test_sequence_of_play_a_player_may_take_a_single_action_then_pass() -> None:
    """[Sequence of Play, p. 9] "You may opt to take only a single action"."""
    state = three_players()
    state = act(state, "alice", "purchase 62")
    assert "pass" in options(state, "alice")
    state = act(state, "alice", "pass")
    assert state.players[0].hand == [62]
    assert waiting_for(state) == ("turn", ["bob"])


def test_sequence_of_play_continues_clockwise() -> None:
    """[Sequence of Play, p. 9] "Then play continues clockwise to the next player"."""
    state = three_players()
    seen = []
    for _ in range(4):
        seen.append(state.name(state.active))
        state = act(state, state.name(state.active), "pass")
    assert seen == ["alice", "bob", "cati", "alice"]


def test_sequence_of_play_core_actions_always_available() -> None:
    """[Access to Actions, p. 8] "You always have access to the following core actions:
    purchase and play."
    """
    state = Position({"alice": "british", "bob": "russian"}).hand("alice", 1).build()
    legal = options(state, "alice")
    assert any(a.startswith("purchase ") for a in legal)
    assert "play 1 left" in legal and "play 1 right" in legal
    assert legal[-1] == "pass"


def test_sequence_of_play_the_same_action_may_be_taken_twice() -> None:
    """[Sequence of Play, p. 9] "the active player performs up to two actions" (any two:
    here two plays).
    """
    state = Position({"alice": "british", "bob": "russian"}).hand("alice", 9, 13).build()
    state = act(state, "alice", "play 9 left", "road kabul-punjab")
    state = act(state, "alice", "play 13 right", "road herat-kabul", "road herat-kabul")
    assert state.players[0].court == [9, 13]
    assert waiting_for(state) == ("turn", ["bob"])


def test_sequence_of_play_only_the_active_player_acts() -> None:
    """[Sequence of Play, p. 9] "Each turn, the active player performs up to two actions"."""
    state = three_players()
    with pytest.raises(IllegalActionError) as caught:
        act(state, "bob", "pass")
    assert caught.value.code == "not-your-decision"
    assert options(state, "bob") == []


def test_sequence_of_play_cleanup_runs_before_the_next_player() -> None:
    """[Sequence of Play, p. 9] "After you have completed your turn, perform cleanup. Then
    play continues clockwise". [Cleanup, p. 9] hand limit 2.
    """
    state = Position({"alice": "british", "bob": "russian"}).hand("alice", 1, 2, 4).build()
    state = act(state, "alice", "pass")
    assert waiting_for(state) == ("discard", ["alice"])
    state = act(state, "alice", "discard 2")
    assert waiting_for(state) == ("turn", ["bob"])
    assert state.players[0].hand == [1, 4]
