"""Rule cases: ruling a region, Nation Building, Insurrection and Wakhan's seat and moves.

Each case quotes the rulebook section or card it follows [Ruling a Region, p. 7; Component
Limits, p. 8; Nation Building (card 112); Playing with Wakhan, pp. 16-18].
"""

from __future__ import annotations

from positions import Position, act, waiting_for
from test_wakhan import WAKHAN, WakhanPosition, wakhan_does

import engine
from engine.cards import RegionId

BUKHARAN_JEWS = 85  # Transcaspia, intelligence: spy, leverage, favor economic; no patriot


def ruler(state: engine.State, region: RegionId) -> str | None:
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


# Nation Building (card 112, bottom half)

NATION_BUILDING = 112  # Riots in Kabul / Nation Building
KANDAHARI_MARKETS = 49  # Kandahar, economic, rank 1: tax, build
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 86, 87, 88, 89, 90]


def nation_building(rupees: int) -> engine.State:
    """Cati (British) rules Kabul, holds Kandahari Markets, and Nation Building is free."""
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .market([NATION_BUILDING, *TOP[1:]], BOTTOM)
        .favored("intelligence")
        .court("Cati", KANDAHARI_MARKETS)
        .tribes("Cati", "kabul", 1)
        .rupees("Cati", rupees)
        .build()
    )


def test_nation_building_place_twice_as_many_blocks_for_the_rupees() -> None:
    """[Nation Building, card 112] "Place twice as many blocks when you take the build
    action" (engine/data/events.json: "the purchaser places double the normal number of
    blocks with each build action"); [Build, p. 13] "two rupees per unit placed".

    Each block paid for places two: four rupees build four armies, not two.
    """
    state = act(nation_building(4), "Cati", "purchase 112", "build 49")
    state = act(state, "Cati", *["army kabul"] * 4)
    assert state.armies["kabul"]["british"] == 4
    assert state.players[state.seat("Cati")].rupees == 0
    assert waiting_for(state) == ("turn", ["Hope"])
    assert sum(map(sum, state.market_rupees)) == 4
    assert engine.invariants.violations(state) == []


def test_nation_building_an_odd_block_costs_as_a_pair() -> None:
    """[Nation Building, card 112] two blocks for each two rupees: three blocks cost four
    rupees, as the third is paid for as a pair of which only one is placed.
    """
    state = act(nation_building(14), "Cati", "purchase 112", "build 49")
    state = act(state, "Cati", *["army kabul"] * 3, "done")
    assert state.armies["kabul"]["british"] == 3
    assert state.players[state.seat("Cati")].rupees == 10
    assert waiting_for(state) == ("turn", ["Hope"])


def test_nation_building_three_rupees_build_two_blocks() -> None:
    """[Nation Building, card 112] with three rupees only one pair is paid for."""
    state = act(nation_building(3), "Cati", "purchase 112", "build 49")
    state = act(state, "Cati", "army kabul", "road kabul-punjab")
    assert state.roads["kabul-punjab"]["british"] == 1
    assert state.players[state.seat("Cati")].rupees == 1
    assert waiting_for(state) == ("turn", ["Hope"])


# Insurrection (Prince Akbar Khan) and Component Limits, p. 8

PRINCE_AKBAR_KHAN = 3  # Kabul, Afghan patriot; Insurrection
DOMINANCE_CHECK = 101


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


# Playing with Wakhan: Setting Up, p. 16


def wakhan_game_where_first_to_choose_is(first: str) -> engine.State:
    for seed in range(50):
        state = engine.new_game(["alice", "bob"], seed, {"wakhan": True})
        if state.log[0].startswith(f"{first} chooses loyalty first"):
            return state
    raise AssertionError(first)


def choose_loyalties(state: engine.State, *coalitions: str) -> engine.State:
    for coalition in coalitions:
        decision = engine.pending(state)
        assert decision is not None and decision.kind == "loyalty"
        state = engine.apply(state, decision.seats[0], engine.Action("loyalty", (coalition,)))
    return state


def test_setting_up_wakhan_sits_to_the_right_of_the_last_to_choose_loyalty() -> None:
    """[Playing with Wakhan: Setting Up, p. 16] "Place Wakhan's pieces to the right of the
    player who chooses their loyalty last. Wakhan will take the first turn of the game."
    [Sequence of Play, p. 9] "play continues clockwise to the next player".

    Clockwise, the player to Wakhan's left plays after her: the last to choose a loyalty
    plays second and the first to choose plays third.
    """
    for first, last in (("alice", "bob"), ("bob", "alice")):
        state = wakhan_game_where_first_to_choose_is(first)
        assert waiting_for(state) == ("loyalty", [first])
        state = choose_loyalties(state, "british", "russian")
        assert state.turn == 2
        assert waiting_for(state) == ("turn", [last])
        state = act(state, last, "pass")
        assert waiting_for(state) == ("turn", [first])


# Playing with Wakhan: Wakhan's Card-Based Actions, Move, p. 18

IMPERIAL_SURVEYORS = 87  # Transcaspia, intelligence, rank 1: move, gift, build
GHILZAI_NOMADS = 13  # Kabul, economic, rank 2: tax, move


def test_move_wakhan_takes_armies_from_any_region_she_would_not_stop_ruling() -> None:
    """[Wakhan's Card-Based Actions: Move, p. 18] "When moving, Wakhan will only move her
    armies to adjacent regions where other players have tribes ... She will seek to have
    only as many armies as there are tribes in that region. Wakhan will not move Armies if
    doing so would cause her to lose a ruler token."

    Losing a ruler token is the only limit on where her armies come from: her one army in
    Kabul, where alice has two tribes, goes to Herat, where alice has one and she has none.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, IMPERIAL_SURVEYORS)
        .armies("kabul", "russian", 1)
        .tribes("alice", "kabul", 2)
        .tribes("alice", "herat", 1)
        .build()
    )
    state, kind = wakhan_does(state, "move")
    assert kind == "core"
    assert state.armies["kabul"]["russian"] == 0
    assert state.armies["herat"]["russian"] == 1


def test_move_wakhan_counts_every_tribe_of_the_destination_hers_included() -> None:
    """[Wakhan's Card-Based Actions: Move, p. 18] "She will seek to have only as many armies
    as there are tribes in that region": in Punjab alice and Wakhan have a tribe each, so
    one army there is not enough and a second comes from Kabul.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, GHILZAI_NOMADS)
        .armies("kabul", "russian", 2)
        .tribes("alice", "punjab", 1)
        .tribes(WAKHAN, "punjab", 1)
        .armies("punjab", "russian", 1)
        .build()
    )
    state, kind = wakhan_does(state, "move")
    assert kind == "core"
    assert state.armies["punjab"]["russian"] == 2
    assert state.armies["kabul"]["russian"] == 1
