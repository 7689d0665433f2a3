"""What a preview says (games/preview.py), in each reader's words."""

from __future__ import annotations

import engine
from adjudicator.games.preview import Accepted, preview_text
from adjudicator.home.translations import Words


def accepted(continuation: list[str]) -> Accepted:
    state = engine.new_game(["alice", "bob"], 3)
    return Accepted(
        1,
        "alice",
        ["loyalty afghan"],
        ["alice chose Afghan loyalty"],
        engine.view(state, "alice"),
        ["bob"],
        engine.pending_phrase(state),
        continuation,
    )


def test_lines_kept_for_after_another_players_decision_are_named() -> None:
    text = preview_text(accepted(["purchase 3", "pass"]), Words())
    assert "The rest (purchase 3; pass) will be played after bob decides." in text
    polish = preview_text(accepted(["purchase 3"]), Words("pl"))
    assert "Reszta (purchase 3) zostanie rozegrana, gdy bob zdecyduje." in polish


def test_no_continuation_says_nothing_of_one() -> None:
    text = preview_text(accepted([]), Words())
    assert "The rest" not in text
    assert "Actions: Choose Afghan loyalty." in text
    assert "Then the game waits for bob: " in text
