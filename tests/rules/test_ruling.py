"""Rule cases: ruling a region [Ruling a Region, p. 7]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

import engine
from engine.cards import RegionId

KANDAHARI_MARKETS = 49  # Kandahar, economic: road, favored political
KHYBER_PASS = 29  # Punjab, economic: road, road
SHAH_SHUJAH = 5  # Kabul, political: tribe
BUKHARAN_JEWS = 85  # Transcaspia, intelligence: spy, leverage, favor economic; no patriot


def ruler(state: engine.State, region: RegionId) -> str | None:
    ruler: str | None = engine.view(state)["regions"][region]["ruler"]
    return ruler


def three_players() -> Position:
    return Position({"You": "afghan", "Brit": "british", "Russ": "russian"})


def test_ruling_example_tribe_and_two_loyal_armies_beat_four_enemy_armies() -> None:
    """[Ruling a Region example, p. 7] "You have three ruling pieces in Kandahar (one tribe
    and two Afghan armies loyal to you). There are also four additional armies not loyal to
    you (two British, two Russian). Because you have at least one tribe in the region and
    the most ruling pieces, you take the ruler token."
    """
    state = (
        three_players()
        .tribes("You", "kandahar", 1)
        .armies("kandahar", "afghan", 2)
        .armies("kandahar", "british", 2)
        .armies("kandahar", "russian", 2)
        .hand("Brit", KANDAHARI_MARKETS)
        .active("Brit")
        .build()
    )
    assert ruler(state, "kandahar") == "You"
    state = act(state, "Brit", "play kandahari markets left")
    assert waiting_for(state) == ("bribe", ["You"])
    assert options(state, "You") == ["demand 0", "demand 1"]


def test_ruling_a_tie_rules_no_one() -> None:
    """[Ruling a Region, p. 7] "If there is a tie, no player rules the region."."""
    state = (
        three_players()
        .tribes("You", "kandahar", 1)
        .armies("kandahar", "afghan", 1)
        .tribes("Brit", "kandahar", 2)
        .hand("Russ", KANDAHARI_MARKETS)
        .active("Russ")
        .build()
    )
    assert ruler(state, "kandahar") is None
    state = act(state, "Russ", "play kandahari markets left")
    assert waiting_for(state) == ("road", ["Russ"])
    assert state.players[2].rupees == 4


def test_ruling_needs_at_least_one_tribe() -> None:
    """[Ruling a Region, p. 7] "In order to take a ruler token, you must have at least one
    tribe and a plurality of ruling pieces".
    """
    state = (
        three_players()
        .armies("kandahar", "british", 3)
        .tribes("You", "kandahar", 1)
        .hand("Russ", KANDAHARI_MARKETS)
        .active("Russ")
        .build()
    )
    assert ruler(state, "kandahar") is None
    state = act(state, "Russ", "play kandahari markets left")
    assert waiting_for(state) == ("road", ["Russ"])


def test_ruling_lone_tribe_rules() -> None:
    """[Ruling a Region, p. 7] one tribe and no other ruling pieces: a plurality."""
    state = three_players().tribes("Russ", "punjab", 1).build()
    assert ruler(state, "punjab") == "Russ"
    assert ruler(state, "kabul") is None


def test_ruling_enemy_armies_prevent_rule_without_enemy_tribes() -> None:
    """[Ruling a Region, p. 7] "Armies belonging to enemy coalitions can prevent you from
    taking a ruler token, even if there are no enemy tribes."
    """
    state = three_players().tribes("You", "kabul", 2).armies("kabul", "russian", 2).build()
    assert ruler(state, "kabul") is None
    state = three_players().tribes("You", "kabul", 2).armies("kabul", "russian", 1).build()
    assert ruler(state, "kabul") == "You"


def test_ruling_armies_of_a_coalition_no_player_is_loyal_to_still_count() -> None:
    """[Ruling a Region, p. 7] "a plurality of ruling pieces (more than all others
    individually). ... Armies belonging to enemy coalitions can prevent you from taking a
    ruler token, even if there are no enemy tribes." Armies of a coalition no player is
    loyal to are nobody's ruling pieces, but each such coalition's armies are one of the
    "others": two Russian armies beat one tribe, one Afghan army does not.
    """
    position = (
        Position({"Cati": "british", "Hope": "british"})
        .tribes("Cati", "punjab", 2)
        .armies("punjab", "russian", 2)
        .armies("punjab", "afghan", 1)
        .hand("Hope", KHYBER_PASS)
        .active("Hope")
    )
    assert ruler(position.build(), "punjab") is None
    state = act(position.build(), "Hope", "play khyber left")
    assert waiting_for(state) == ("road", ["Hope"])
    state = position.tribes("Cati", "punjab", 1).build()
    assert ruler(state, "punjab") == "Cati"
    state = act(state, "Hope", "play khyber left")
    assert waiting_for(state) == ("bribe", ["Cati"])


def test_ruling_loyal_armies_count_for_every_player_of_that_coalition() -> None:
    """[Ruling a Region, p. 7] "Tribes and loyal armies are considered ruling pieces." and a
    ruler needs "more than all others individually".
    """
    state = (
        Position({"Cati": "british", "Hope": "british", "Blake": "russian"})
        .tribes("Cati", "herat", 1)
        .tribes("Hope", "herat", 2)
        .armies("herat", "british", 2)
        .tribes("Blake", "herat", 3)
        .build()
    )
    assert ruler(state, "herat") == "Hope"


def test_ruling_a_plurality_not_a_majority() -> None:
    """[Ruling a Region, p. 7] "a plurality of ruling pieces (more than all others
    individually)."
    """
    state = (
        three_players()
        .tribes("You", "persia", 2)
        .tribes("Brit", "persia", 1)
        .tribes("Russ", "persia", 1)
        .build()
    )
    assert ruler(state, "persia") == "You"


def test_ruling_changes_at_once_when_pieces_change() -> None:
    """[Ruling a Region, p. 7] "If a player does rule a region, they should immediately take
    the associated ruler token". Playing a tribe makes the player ruler for the next play.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", SHAH_SHUJAH)
        .hand("Hope", 9)
        .build()
    )
    assert ruler(state, "kabul") is None
    state = act(state, "Cati", "play shah shujah left", "pass")
    assert ruler(state, "kabul") == "Cati"
    state = act(state, "Hope", "play 9 left")
    assert waiting_for(state) == ("bribe", ["Cati"])
    assert options(state, "Cati") == ["demand 0", "demand 1"]


def test_ruling_lost_when_an_enemy_army_ties() -> None:
    """[Ruling a Region, p. 7] "if a player ceases ruling a region, the associated ruler
    token should be immediately returned to the board." An army played by an enemy ties.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .tribes("Cati", "kabul", 1)
        .hand("Hope", 15)
        .active("Hope")
        .build()
    )
    assert ruler(state, "kabul") == "Cati"
    state = act(state, "Hope", "play 15 left")
    state = act(state, "Cati", "waive")
    assert state.armies["kabul"]["russian"] == 1
    assert ruler(state, "kabul") is None


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
