"""Rule cases: Component Limits [Component Limits, p. 8]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

import engine

WILLIAM_MOORCROFT = 39  # Kandahar, intelligence: spy
ALLAH_QULI_BAHADUR = 91  # Transcaspia, political: tribe, army, spy
BALA_HISSAR = 16  # Kabul, military: army
CHARLES_STODDART = 4  # Kabul, intelligence: spy
SHAH_SHUJAH = 5  # Kabul, political: tribe
HARI_SINGH_NALWA = 35  # Punjab, military: army, army, favored political
PRINCE_AKBAR_KHAN = 3  # Kabul, Afghan patriot; Insurrection
DOMINANCE_CHECK = 101
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 86, 87, 88, 89, 90]


def test_component_limits_example_a_tribe_is_taken_and_placed_as_a_spy() -> None:
    """[Component Limits example, p. 8] "You must place a spy, but you have no cylinders
    remaining in your stock, so you take one of your tribes in play and place it as a spy as
    instructed."
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .cylinders_left("Cati", 0, region="herat")
        .hand("Cati", WILLIAM_MOORCROFT)
        .build()
    )
    state = act(state, "Cati", "play william moorcroft left")
    assert state.tribes["herat"] == [9, 0]
    assert state.spies[WILLIAM_MOORCROFT] == [1, 0]
    assert state.players[0].cylinders == 0


def test_component_limits_the_player_chooses_which_piece_to_take() -> None:
    """[Component Limits, p. 8] "you must take a piece of the required shape/color from
    anywhere in play".
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .tribes("Cati", "kabul", 4)
        .cylinders_left("Cati", 0, region="herat")
        .hand("Cati", WILLIAM_MOORCROFT)
        .build()
    )
    state = act(state, "Cati", "play william moorcroft left")
    assert waiting_for(state) == ("take", ["Cati"])
    assert sorted(options(state, "Cati")) == ["take tribe herat", "take tribe kabul"]
    state = act(state, "Cati", "take tribe kabul")
    assert state.tribes["kabul"] == [3, 0]
    assert state.tribes["herat"] == [6, 0]
    assert state.spies[WILLIAM_MOORCROFT] == [1, 0]


def test_component_limits_a_spy_may_be_taken_and_placed_as_a_tribe() -> None:
    """[Component Limits, p. 8] "In taking and placing a piece this way, you may convert one
    type of unit to another."
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .court("Hope", 40)
        .spies("Cati", 40, 1)
        .cylinders_left("Cati", 0, region="kabul")
        .hand("Cati", 57)
        .build()
    )
    state = act(state, "Cati", "play 57 left")
    assert sorted(options(state, "Cati")) == ["take spy 40", "take tribe kabul"]
    state = act(state, "Cati", "take spy 40")
    assert 40 not in state.spies
    assert state.tribes["herat"] == [1, 0]
    assert state.tribes["kabul"] == [9, 0]


def test_component_limits_never_a_piece_placed_this_turn() -> None:
    """[Component Limits, p. 8] "you must take a piece ... from anywhere in play, excluding
    any pieces placed this turn." The tribe just placed by Allah Quli Bahadur's first icon
    cannot become its spy; an older tribe is taken instead.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .cylinders_left("Cati", 1, region="herat")
        .hand("Cati", ALLAH_QULI_BAHADUR)
        .build()
    )
    state = act(state, "Cati", "play allah quli left")
    assert state.tribes["transcaspia"] == [1, 0]
    assert state.tribes["herat"] == [8, 0]
    assert state.spies[ALLAH_QULI_BAHADUR] == [1, 0]


def test_component_limits_nothing_is_placed_when_no_piece_is_available() -> None:
    """[Component Limits, p. 8] only pieces in play and not placed this turn may be taken;
    when there is none, the spy is not placed.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .cylinders_left("Cati", 1, region="herat")
        .placed_this_turn("tribe:herat:0", 9)
        .hand("Cati", ALLAH_QULI_BAHADUR)
        .build()
    )
    state = act(state, "Cati", "play allah quli left")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.tribes["transcaspia"] == [1, 0]
    assert state.tribes["herat"] == [9, 0]
    assert state.spies == {}
    assert state.armies["transcaspia"]["british"] == 1


def test_component_limits_a_road_is_taken_and_placed_as_an_army() -> None:
    """[Component Limits, p. 8] "take a piece of the required shape/color from anywhere in
    play ... you may convert one type of unit to another." (No British block is left.)
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .roads("kandahar-punjab", "british", 12)
        .armies("kabul", "russian", 2)
        .hand("Cati", BALA_HISSAR)
        .build()
    )
    state = act(state, "Cati", "play bala hissar left")
    assert state.roads["kandahar-punjab"]["british"] == 11
    assert state.armies["kabul"] == {"afghan": 0, "british": 1, "russian": 2}
    assert state.block_supply["british"] == 0


def test_component_limits_blocks_only_of_the_required_colour() -> None:
    """[Component Limits, p. 8] "a piece of the required shape/color": a British army
    placed earlier this turn cannot be taken, and blocks of other coalitions never are.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .armies("punjab", "british", 11)
        .placed_this_turn("army:punjab:british", 11)
        .roads("kabul-punjab", "russian", 3)
        .hand("Cati", HARI_SINGH_NALWA)
        .build()
    )
    state = act(state, "Cati", "play hari singh left")
    assert state.armies["punjab"] == {"afghan": 0, "british": 12, "russian": 0}
    assert state.roads["kabul-punjab"]["russian"] == 3
    assert state.block_supply["british"] == 0
    assert state.favored == "political"


def test_component_limits_taking_the_last_tribe_triggers_the_overthrow_rule() -> None:
    """[Component Limits, p. 8] the taken tribe leaves its region; [The Overthrow Rule, p. 8]
    "if you lose your last tribe in a region, you must immediately discard all political
    cards associated with that region from your court."
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .court("Cati", SHAH_SHUJAH)
        .tribes("Cati", "kabul", 1)
        .cylinders_left("Cati", 0, region="herat")
        .placed_this_turn("tribe:herat:0", 9)
        .hand("Cati", CHARLES_STODDART)
        .build()
    )
    state = act(state, "Cati", "play charles stoddart right", "spy 4")
    assert state.tribes["kabul"] == [0, 0]
    assert SHAH_SHUJAH in state.discard
    assert state.players[0].court == [CHARLES_STODDART]
    assert state.spies[CHARLES_STODDART] == [1, 0]


def test_component_limits_a_gift_is_a_cylinder_in_play_that_may_be_taken() -> None:
    """[Component Limits, p. 8] "you must take a piece of the required shape/color from
    anywhere in play, excluding any pieces placed this turn." [Unsuccessful Check, p. 15] "A
    cylinder is considered to be in play if it is not on a player board." A gift sits on the
    loyalty dial, not on the player board; here it is the only cylinder that may be taken.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .gifts("Cati", 1)
        .cylinders_left("Cati", 0, region="herat")
        .placed_this_turn("tribe:herat:0", 9)
        .hand("Cati", WILLIAM_MOORCROFT)
        .build()
    )
    state = act(state, "Cati", "play william moorcroft left")
    if waiting_for(state) == ("take", ["Cati"]):
        state = act(state, "Cati", options(state, "Cati")[0])
    assert state.spies.get(WILLIAM_MOORCROFT) == [1, 0]
    assert state.players[0].gifts == [False, False, False]


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


def insurrection_with_empty_supply() -> Position:
    """Cati (Afghan) holds Prince Akbar Khan; every Afghan block is in Herat or Persia.

    As many British blocks stand in Punjab, so the check bought is unsuccessful and the
    blocks stay on the map.
    """
    position = (
        Position({"Cati": "afghan", "Hope": "british"})
        .market([DOMINANCE_CHECK, *TOP[1:]], BOTTOM)
        .court("Cati", PRINCE_AKBAR_KHAN)
    )
    blocks = position.state.block_supply["afghan"]
    return (
        position.armies("herat", "afghan", blocks // 2)
        .armies("persia", "afghan", blocks - blocks // 2)
        .armies("punjab", "british", blocks)
    )


def test_component_limits_insurrection_takes_afghan_armies_from_the_board() -> None:
    """[Component Limits, p. 8] "If asked to place a unit and none remain in the supply, you
    must take a piece of the required shape/color from anywhere in play, excluding any
    pieces placed this turn." [Insurrection, Prince Akbar Khan] "Each time a Dominance Check
    finishes resolving, two Afghan armies are placed in Kabul."

    The supply holds no Afghan block: the owner of the card takes both from the board.
    """
    state = act(insurrection_with_empty_supply().build(), "Cati", "purchase 101")
    assert waiting_for(state) == ("take", ["Cati"])
    state = act(state, "Cati", "take army herat", "take army persia")
    assert state.armies["kabul"]["afghan"] == 2
    assert state.block_supply["afghan"] == 0
    assert state.armies["herat"]["afghan"] == state.armies["persia"]["afghan"] == 5
    assert waiting_for(state) == ("turn", ["Cati"])
    assert engine.invariants.violations(state) == []


def test_component_limits_insurrection_takes_only_what_the_supply_lacks() -> None:
    """[Component Limits, p. 8] with one Afghan block left, one army comes from the supply
    and the other from the board.
    """
    position = insurrection_with_empty_supply()
    position.state.armies["persia"]["afghan"] -= 1
    position.state.block_supply["afghan"] += 1
    state = act(position.build(), "Cati", "purchase 101")
    assert state.armies["kabul"]["afghan"] == 1
    assert waiting_for(state) == ("take", ["Cati"])
    state = act(state, "Cati", "take army persia")
    assert state.armies["kabul"]["afghan"] == 2
    assert state.armies["persia"]["afghan"] == 4
    assert state.block_supply["afghan"] == 0
