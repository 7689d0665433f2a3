"""The end of a game on resignation (`on_resign = "end"`), scored by the rulebook's end of
game on the position as it stands: "the player with the most victory points wins. If one
or more players have the same number of victory points when the game ends, the player with
the most red stars in their court among the tied players wins. If there is still a tie,
the player with the most rupees among the tied players wins." (Game End and Victory, p. 9)
The resigned player cannot win."""

from __future__ import annotations

import pytest

import engine


def position(vp: dict[str, int], rupees: dict[str, int]) -> engine.State:
    state = engine.new_game(["alice", "bob", "carol"], 3)
    for player in state.players:
        player.vp, player.rupees = vp[player.name], rupees[player.name]
    return state


def test_the_most_victory_points_among_the_others_wins() -> None:
    state = position({"alice": 9, "bob": 6, "carol": 4}, {"alice": 1, "bob": 1, "carol": 9})
    after = engine.resign(state, "alice")
    assert after.phase == "over" and [after.name(s) for s in after.winners] == ["bob"]
    assert state.phase != "over"  # pure: the position given is unchanged
    assert engine.view(after)["pending"] is None and engine.legal_actions(after) == []


def test_a_tie_goes_to_rupees_when_military_stars_are_equal() -> None:
    state = position({"alice": 2, "bob": 5, "carol": 5}, {"alice": 0, "bob": 3, "carol": 4})
    after = engine.resign(state, "alice")
    assert [after.name(s) for s in after.winners] == ["carol"]
    assert "alice resigned: the game ends as it stands" in " ".join(after.log)


def test_a_full_tie_shares_the_win() -> None:
    state = position({"alice": 0, "bob": 0, "carol": 0}, {"alice": 4, "bob": 4, "carol": 4})
    assert [state.name(s) for s in engine.resign(state, "carol").winners] == ["alice", "bob"]


def test_no_resignation_once_the_game_is_over() -> None:
    state = position({"alice": 0, "bob": 0, "carol": 0}, {"alice": 4, "bob": 4, "carol": 4})
    with pytest.raises(engine.IllegalActionError):
        engine.resign(engine.resign(state, "alice"), "bob")
