"""Rule cases: the build action [Build, p. 13; Action Costs, p. 12; Nation Building (card 112)]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

import engine
from engine.invariants import violations

KANDAHARI_MARKETS = 49  # Kandahar, economic, rank 1: tax, build
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]
NATION_BUILDING = 112  # Riots in Kabul / Nation Building
NATION_BUILDING_BOTTOM = [84, 86, 87, 88, 89, 90]
KABUL_BORDERS = ["herat-kabul", "kabul-kandahar", "kabul-punjab", "kabul-transcaspia"]


def build_example(rupees: int = 4) -> Position:
    """[Build example, p. 13] Cati (British) rules Kabul and nothing else."""
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .market(TOP, BOTTOM)
        .favored("intelligence")
        .court("Cati", KANDAHARI_MARKETS)
        .tribes("Cati", "kabul", 1)
        .rupees("Cati", rupees)
    )


def test_build_example_armies_in_kabul_or_roads_on_its_four_borders() -> None:
    """[Build example, p. 13] "Since Cati rules only Kabul, she can build armies in Kabul or
    roads on any of its four borders."
    """
    state = act(build_example().build(), "Cati", "build 49")
    assert waiting_for(state) == ("build", ["Cati"])
    assert options(state, "Cati") == ["army kabul"] + [f"road {b}" for b in KABUL_BORDERS]


def test_build_example_two_armies_cost_four_rupees_paid_to_the_market() -> None:
    """[Build example, p. 13] "She can place up to three blocks with this action, but
    decides to only place two armies. This costs a total of four rupees which she pays to
    the market."
    """
    state = act(build_example(rupees=6).build(), "Cati", "build 49", "army kabul", "army kabul")
    assert "done" in options(state, "Cati")
    state = act(state, "Cati", "done")
    assert state.armies["kabul"]["british"] == 2
    assert state.block_supply["british"] == 10
    assert state.players[0].rupees == 2
    assert sum(map(sum, state.market_rupees)) == 4
    assert state.out_of_game == 0
    assert waiting_for(state) == ("turn", ["Cati"])
    assert violations(state) == []


def test_build_example_four_rupees_one_to_each_of_the_rightmost_cards() -> None:
    """[Build example, p. 13] "This costs a total of four rupees which she pays to the
    market." [Action Costs, p. 12] "rupees equal to the cost should be placed on the
    rightmost market cards of both rows, with a single rupee being paid to each card."
    """
    state = act(build_example().build(), "Cati", "build 49", "army kabul", "army kabul")
    assert state.players[0].rupees == 0
    assert state.market_rupees == [[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 1, 1]]


def test_build_three_blocks_cost_is_paid_as_one_action_cost() -> None:
    """[Action Costs, p. 12] "with a single rupee being paid to each card. ... If the market
    does not contain enough cards to take the spent rupees, any excess rupees are taken out
    of the game." Six rupees for three blocks, with one card left in each row.
    """
    position = build_example(rupees=6).market(
        [None, None, TOP[2], None, None, None], [None, BOTTOM[1], None, None, None, None]
    )
    state = act(position.build(), "Cati", "build 49", "army kabul", "army kabul", "army kabul")
    assert state.market_rupees == [[0, 0, 1, 0, 0, 0], [0, 1, 0, 0, 0, 0]]
    assert state.out_of_game == 4
    assert state.players[0].rupees == 0
    assert violations(state) == []


def test_build_up_to_three_blocks() -> None:
    """[Build, p. 13] "Place up to three armies and/or roads ... Any combination of different
    units may be purchased."
    """
    state = act(
        build_example(rupees=10).build(),
        "Cati",
        "build 49",
        "army kabul",
        "road kabul-punjab",
        "road kabul-punjab",
    )
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.armies["kabul"]["british"] == 1
    assert state.roads["kabul-punjab"]["british"] == 2
    assert state.players[0].rupees == 4


def test_build_two_rupees_per_unit_placed() -> None:
    """[Build, p. 13] "The cost of this action is equal to two rupees per unit placed." With
    three rupees only one block can be paid for; with one, none.
    """
    state = act(build_example(rupees=3).build(), "Cati", "build 49", "army kabul")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.players[0].rupees == 1
    assert state.armies["kabul"]["british"] == 1
    assert "build 49" not in options(build_example(rupees=1).build(), "Cati")


def test_build_only_in_regions_you_rule() -> None:
    """[Build, p. 13] "Place up to three armies and/or roads among any regions that you
    rule. Roads may be placed on any adjacent borders." Cati is tied in Herat and Hope rules
    Punjab: only Kabul and its borders are open to her.
    """
    state = (
        build_example()
        .tribes("Cati", "herat", 1)
        .tribes("Hope", "herat", 1)
        .tribes("Cati", "punjab", 1)
        .tribes("Hope", "punjab", 1)
        .armies("punjab", "russian", 1)
        .build()
    )
    state = act(state, "Cati", "build 49")
    assert options(state, "Cati") == ["army kabul"] + [f"road {b}" for b in KABUL_BORDERS]


def test_build_roads_on_borders_of_every_region_you_rule() -> None:
    """[Build, p. 13] "Roads may be placed on any adjacent borders." Ruling Kabul and Punjab,
    Cati may build on the borders of either (their shared border once).
    """
    state = build_example().tribes("Cati", "punjab", 1).build()
    state = act(state, "Cati", "build 49")
    assert options(state, "Cati") == [
        "army kabul",
        "army punjab",
        "road herat-kabul",
        "road kabul-kandahar",
        "road kabul-punjab",
        "road kabul-transcaspia",
        "road kandahar-punjab",
    ]


def test_build_not_without_ruling_a_region() -> None:
    """[Build, p. 13] "among any regions that you rule" — no region, no build."""
    state = build_example().tribes("Hope", "kabul", 1).build()
    assert "build 49" not in options(state, "Cati")


# Nation Building (card 112, bottom half)


def nation_building(rupees: int) -> engine.State:
    """Cati (British) rules Kabul, holds Kandahari Markets, and Nation Building is free."""
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .market([NATION_BUILDING, *TOP[1:]], NATION_BUILDING_BOTTOM)
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
