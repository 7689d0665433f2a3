"""Rule cases: ruling a region, Nation Building, Insurrection and Wakhan's seat and moves.

Each case quotes the rulebook section or card it follows [Ruling a Region, p. 7; Component
Limits, p. 8; Nation Building (card 112); Playing with Wakhan, pp. 16-18].
"""

from __future__ import annotations

from positions import Position, act, waiting_for

import engine

BUKHARAN_JEWS = 85  # Transcaspia, intelligence: spy, leverage, favor economic; no patriot


def ruler(state: engine.State, region: str) -> str | None:
    ruler: str | None = engine.view(state)["regions"][region]["ruler"]
    return ruler


# Ruling a Region, p. 7


def two_british(russian_armies: int) -> engine.State:
    return (
        Position({"Cati": "british", "Hope": "british"})
        .tribes("Cati", "transcaspia", 1)
        .armies("transcaspia", "russian", russian_armies)
        .hand("Hope", BUKHARAN_JEWS)
        .active("Hope")
        .build()
    )


def test_ruling_a_region_enemy_armies_without_loyal_player_block_rule() -> None:
    """[Ruling a Region, p. 7] "you must have at least one tribe and a plurality of ruling
    pieces (more than all others individually). ... Armies belonging to enemy coalitions can
    prevent you from taking a ruler token, even if there are no enemy tribes."

    One British tribe and one Russian army, no one Russian: a tie, so no one rules
    Transcaspia and no bribe is owed for a Transcaspia card.
    """
    state = two_british(russian_armies=1)
    assert ruler(state, "transcaspia") is None
    state = act(state, "Hope", "play 85 left")
    assert waiting_for(state) != ("bribe", ["Cati"])
    assert BUKHARAN_JEWS in state.players[state.seat("Hope")].court


def test_ruling_a_region_more_enemy_armies_than_tribes_rule_no_one() -> None:
    """[Ruling a Region, p. 7] three Russian armies beat one tribe "individually"."""
    assert ruler(two_british(russian_armies=3), "transcaspia") is None


def test_ruling_a_region_fewer_enemy_armies_than_tribes_do_not_prevent_rule() -> None:
    """[Ruling a Region, p. 7] two tribes are more than one Russian army: Cati rules."""
    state = (
        Position({"Cati": "british", "Hope": "british"})
        .tribes("Cati", "transcaspia", 2)
        .armies("transcaspia", "russian", 1)
        .armies("transcaspia", "afghan", 1)
        .build()
    )
    assert ruler(state, "transcaspia") == "Cati"
