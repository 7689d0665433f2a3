"""Rule cases the other rule tests left open [Component Limits, p. 8]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

HARI_SINGH_NALWA = 35  # Punjab, military: army, army, favored political


def test_component_limits_no_block_placed_this_turn_in_another_region() -> None:
    """[Component Limits, p. 8] "If asked to place a unit and none remain in the supply, you
    must take a piece of the required shape/color from anywhere in play, excluding any pieces
    placed this turn." Hari Singh Nalwa places two British armies in Punjab with one British
    block in the supply. The ten British armies in Kabul were placed this turn: they are not
    in the target region, yet they cannot be taken; the older road on Herat-Kabul is the only
    piece that may be.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .armies("kabul", "british", 10)
        .placed_this_turn("army:kabul:british", 10)
        .roads("herat-kabul", "british", 1)
        .hand("Cati", HARI_SINGH_NALWA)
        .build()
    )
    assert state.block_supply["british"] == 1
    state = act(state, "Cati", "play hari singh left")
    if waiting_for(state) == ("take", ["Cati"]):
        assert options(state, "Cati") == ["take road herat-kabul"]
        state = act(state, "Cati", "take road herat-kabul")
    assert state.armies["kabul"]["british"] == 10
    assert state.roads["herat-kabul"]["british"] == 0
    assert state.armies["punjab"]["british"] == 2


def test_component_limits_nothing_placed_when_only_blocks_of_this_turn_are_elsewhere() -> None:
    """[Component Limits, p. 8] "excluding any pieces placed this turn": with the British
    supply empty after Hari Singh Nalwa's first army, and every other British block (armies in
    Kabul, a road on Herat-Kabul) placed this turn, the second army is not placed at all.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .armies("kabul", "british", 10)
        .placed_this_turn("army:kabul:british", 10)
        .roads("herat-kabul", "british", 1)
        .placed_this_turn("road:herat-kabul:british", 1)
        .hand("Cati", HARI_SINGH_NALWA)
        .build()
    )
    state = act(state, "Cati", "play hari singh left")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.armies["kabul"]["british"] == 10
    assert state.roads["herat-kabul"]["british"] == 1
    assert state.armies["punjab"]["british"] == 1
    assert state.block_supply["british"] == 0
