"""Rule cases: Dominance Checks, game end and victory [Dominance Checks, p. 15; p. 9]."""

from __future__ import annotations

import pytest
from positions import Position, act, blocks_on_map

import engine

TOP = [62, 63, 64, 65, 60, 61]
BOTTOM = [67, 9, 10, 12, 13, 14]
SUPPLIES_FROM_ORENBURG = 95  # Russian patriot
RUSSIAN_REGULARS = 84  # Russian patriot
COUNT_PEROVSKY = 100  # Russian patriot
BRITISH_PATRIOTS = (32, 36, 37)  # Army of the Indus, Bengal Native Infantry, Seaforth


def check_in_market(players: dict[str, str], *, final: bool = False) -> Position:
    """A Dominance Check in the leftmost market column, ready to be bought for nothing.

    With `final`, the other three checks have already been resolved.
    """
    position = Position(players).market([104 if final else 101, *TOP[1:]], BOTTOM)
    if final:
        position.checks_resolved(101, 102, 103)
    return position


def buy_check(state: engine.State) -> engine.State:
    card = state.market[0][0]
    assert card in (101, 102, 103, 104)
    return act(state, state.name(state.active), f"purchase {card}")


def vps(state: engine.State) -> list[int]:
    return [p.vp for p in state.players]


def test_dominance_examples_successful_russian_check() -> None:
    """[Dominance Examples, p. 15] "The third dominance check has just been bought in a
    three player game with Cati (blue), Blake (red), and Hope (gray). The Russian Coalition
    is dominant. Cati and Blake are both loyal to that coalition. Cati has the most influence
    and scores five points, Blake scores three. Because the check was successful, all of the
    blocks are now cleared from the board."
    """
    state = (
        Position({"Cati": "russian", "Blake": "russian", "Hope": "british"})
        .market([103, *TOP[1:]], BOTTOM)
        .checks_resolved(101, 102)
        .court("Cati", SUPPLIES_FROM_ORENBURG)
        .armies("kabul", "russian", 4)
        .roads("herat-kabul", "russian", 2)
        .armies("punjab", "british", 2)
        .tribes("Hope", "punjab", 2)
        .tribes("Blake", "herat", 1)
        .active("Hope")
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [5, 3, 0]
    assert all(blocks_on_map(state, c) == 0 for c in ("afghan", "british", "russian"))
    assert state.block_supply == {"afghan": 12, "british": 12, "russian": 12}
    assert state.tribes["punjab"] == [0, 0, 2]
    assert state.tribes["herat"] == [0, 1, 0]
    assert state.checks_resolved == 3
    assert state.phase == "play"


def test_dominance_examples_final_unsuccessful_check_doubles_then_splits_the_tie() -> None:
    """[Dominance Examples, p. 15] "A few turns later the fourth dominance check appears in
    the market and is bought. For the sake of example, there are no spies or gifts in play.
    No Coalition is dominant. Blake has the most cylinders in play so he would score six
    points (3 x 2 for the final dominance check) Cati and Hope would each score one
    (1x2÷2)." [Final Dominance Check, p. 15] "This doubling occurs before any victory points
    are split".
    """
    state = (
        check_in_market({"Cati": "russian", "Blake": "russian", "Hope": "british"}, final=True)
        .vp("Cati", 5)
        .vp("Blake", 3)
        .tribes("Blake", "herat", 3)
        .tribes("Cati", "kabul", 1)
        .tribes("Hope", "punjab", 1)
        .armies("punjab", "british", 3)
        .armies("kabul", "russian", 1)
        .active("Hope")
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [5 + 1, 3 + 6, 0 + 1]
    assert state.phase == "over"
    assert state.winners == [1]
    assert engine.legal_actions(state) == []


def test_dominance_checks_example_eight_blocks_against_four_and_four() -> None:
    """[Dominance Checks, p. 15] "If a single coalition has the most blocks in play and at
    least four more than all other coalitions (uncombined), the Dominance Check is
    successful. ... Example: If the British coalition has eight blocks and the other two
    coalitions both have four blocks, the British Coalition would be dominant."
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian"})
        .armies("kabul", "british", 6)
        .roads("kabul-punjab", "british", 2)
        .armies("persia", "russian", 4)
        .roads("herat-persia", "afghan", 4)
        .tribes("Hope", "persia", 5)
        .vp("Hope", 2)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [5, 2]
    assert all(blocks_on_map(state, c) == 0 for c in ("afghan", "british", "russian"))


@pytest.mark.parametrize(("british", "russian", "afghan"), [(7, 4, 0), (8, 5, 0), (8, 0, 5)])
def test_dominance_check_less_than_four_more_than_any_coalition_is_unsuccessful(
    british: int, russian: int, afghan: int
) -> None:
    """[Dominance Checks, p. 15] "at least four more than all other coalitions (uncombined)
    ... Otherwise the check is unsuccessful." [Unsuccessful Check, p. 15] "Players will score
    points based on the number of cylinders they have in play".
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian"})
        .armies("kabul", "british", british)
        .armies("punjab", "russian", russian)
        .armies("herat", "afghan", afghan)
        .tribes("Hope", "persia", 2)
        .tribes("Cati", "persia", 1)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [1, 3]
    assert blocks_on_map(state, "british") == british
    assert blocks_on_map(state, "russian") == russian


def test_dominance_check_successful_scores_five_three_one_by_influence() -> None:
    """[Successful Check, p. 15] "The player with the most influence scores five victory
    points. The player with the second most scores three victory points. The player with the
    third most scores one victory point."
    """
    state = (
        check_in_market({"A": "russian", "B": "russian", "C": "russian", "D": "british"})
        .court("B", SUPPLIES_FROM_ORENBURG, RUSSIAN_REGULARS)
        .court("C", COUNT_PEROVSKY)
        .armies("transcaspia", "russian", 4)
        .tribes("D", "punjab", 5)
        .vp("D", 3)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [1, 5, 3, 3]


def test_dominance_check_influence_counts_patriots_prizes_and_gifts() -> None:
    """[Successful Check, p. 15] "Each loyal player has one influence point plus the sum of
    their gifts, prizes, and the number of patriots in their court."
    """
    state = (
        check_in_market({"A": "russian", "B": "russian", "C": "russian"})
        .court("A", SUPPLIES_FROM_ORENBURG)
        .gifts("B", 1)
        .prizes("C", 2)
        .prizes("C", 13)
        .armies("transcaspia", "russian", 4)
        .vp("A", 1)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [1 + 2, 2, 5]


@pytest.mark.parametrize(
    ("gifts", "points"),
    [((1, 1, 0), [4, 4, 1]), ((0, 0, 0), [3, 3, 3]), ((2, 0, 0), [5, 2, 2])],
)
def test_dominance_check_successful_ties_share_the_sum_rounded_down(
    gifts: tuple[int, int, int], points: list[int]
) -> None:
    """[Successful Check, p. 15] "If there is a tie, add up the victory points for the tied
    places and then divide that number by the number of tied players (rounding down)."
    """
    position = check_in_market({"A": "afghan", "B": "afghan", "C": "afghan"})
    for name, count in zip("ABC", gifts, strict=True):
        position.gifts(name, count)
    state = buy_check(position.armies("kabul", "afghan", 4).vp("A", 2).vp("B", 2).build())
    assert vps(state) == [p + v for p, v in zip(points, [2, 2, 0], strict=True)]


def test_dominance_check_successful_players_of_other_coalitions_score_nothing() -> None:
    """[Successful Check, p. 15] "Players loyal to the Dominant Coalition score victory
    points based on their influence points".
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian", "Blake": "afghan"})
        .armies("kabul", "russian", 4)
        .tribes("Cati", "kabul", 6)
        .court("Blake", *BRITISH_PATRIOTS[:1])
        .vp("Cati", 3)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [3, 5, 0]


def test_dominance_check_successful_with_no_loyal_player_scores_nothing() -> None:
    """[Successful Check, p. 15] only players loyal to the dominant coalition score; the
    blocks are still removed.
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian"})
        .armies("kabul", "afghan", 4)
        .tribes("Cati", "kabul", 3)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [0, 0]
    assert blocks_on_map(state, "afghan") == 0


def test_dominance_check_unsuccessful_counts_tribes_spies_and_gifts() -> None:
    """[Unsuccessful Check, p. 15] "A cylinder is considered to be in play if it is not on a
    player board."
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian"})
        .court("Hope", 40)
        .gifts("Cati", 2)
        .spies("Cati", 40, 1)
        .tribes("Hope", "kandahar", 2)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [3, 1]


@pytest.mark.parametrize(
    ("cylinders", "points"),
    [
        ((3, 2, 1), [3, 1, 0]),
        ((2, 2, 1), [2, 2, 0]),
        ((2, 2, 2), [1, 1, 1]),
        ((3, 1, 1), [3, 0, 0]),
        ((1, 0, 0), [3, 0, 0]),
    ],
)
def test_dominance_check_unsuccessful_three_and_one_with_ties_split_rounded_down(
    cylinders: tuple[int, int, int], points: list[int]
) -> None:
    """[Unsuccessful Check, p. 15] "The player with the most cylinders in play scores three
    victory points. The player with the second most cylinders in play scores one victory
    point. If there is a tie, add up the victory points for the tied places and then divide
    that number by the number of tied players (rounding down) e.g. two players tied for
    first place will both score two points ((3+1)÷2)."
    """
    position = check_in_market({"A": "afghan", "B": "british", "C": "russian"})
    for name, count in zip("ABC", cylinders, strict=True):
        position.tribes(name, "herat", count)
    state = buy_check(position.vp("A", 1).vp("B", 1).vp("C", 1).build())
    assert vps(state) == [p + 1 for p in points]


def test_dominance_check_unsuccessful_second_place_scores_even_with_zero_cylinders() -> None:
    """[Unsuccessful Check, p. 15] "Players will score points based on the number of
    cylinders they have in play (even zero)."
    """
    position = check_in_market({"Cati": "british", "Hope": "russian"}).tribes("Cati", "herat", 2)
    state = buy_check(position.build())
    assert vps(state) == [3, 1]


def test_dominance_check_successful_final_check_doubles_before_splitting() -> None:
    """[Final Dominance Check, p. 15] "Any points earned during the final Dominance Check
    are doubled. This doubling occurs before any victory points are split in the case of
    ties for influence".
    """
    state = (
        check_in_market({"A": "british", "B": "british", "C": "british"}, final=True)
        .armies("kabul", "british", 4)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [6, 6, 6]
    state = (
        check_in_market({"A": "british", "B": "british", "C": "russian"}, final=True)
        .armies("kabul", "british", 4)
        .build()
    )
    assert vps(buy_check(state)) == [8, 8, 0]


def test_dominance_check_early_end_when_the_leader_is_four_points_ahead() -> None:
    """[Early End, p. 15] "If, after scoring a Dominance Check, the leading player has at
    least four more victory points than the next highest scoring player, the game is over
    and that player wins!"
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian", "Blake": "afghan"})
        .vp("Cati", 2)
        .vp("Hope", 1)
        .tribes("Cati", "kabul", 2)
        .tribes("Blake", "kabul", 1)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [5, 1, 1]
    assert state.phase == "over"
    assert state.winners == [0]


def test_dominance_check_no_early_end_with_a_lead_of_three() -> None:
    """[Game End and Victory, p. 9] "a single player leads all other players by at least
    four victory points" — three is not enough.
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian", "Blake": "afghan"})
        .vp("Cati", 2)
        .vp("Hope", 2)
        .tribes("Cati", "kabul", 2)
        .tribes("Hope", "kabul", 1)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [5, 3, 0]
    assert state.phase == "play"
    assert state.winners == []


def test_dominance_check_the_game_always_ends_after_the_final_check() -> None:
    """[Game End and Victory, p. 9] "after the deck's final Dominance Check is resolved, the
    game will always end, and the player with the most victory points wins."
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian"}, final=True)
        .vp("Cati", 10)
        .vp("Hope", 9)
        .tribes("Cati", "kabul", 1)
        .tribes("Hope", "kabul", 1)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [14, 13]
    assert state.phase == "over"
    assert state.winners == [0]


def test_game_end_tie_broken_by_military_stars() -> None:
    """[Game End and Victory, p. 9] "If one or more players have the same number of victory
    points when the game ends, the player with the most red stars in their court among the
    tied players wins."
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian"}, final=True)
        .court("Cati", 59)
        .court("Hope", 16)
        .tribes("Cati", "kabul", 1)
        .tribes("Hope", "kabul", 1)
        .rupees("Hope", 9)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [4, 4]
    assert state.winners == [0]


def test_game_end_tie_broken_by_rupees_after_military_stars() -> None:
    """[Game End and Victory, p. 9] "If there is still a tie, the player with the most
    rupees among the tied players wins."
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian"}, final=True)
        .court("Cati", 16)
        .court("Hope", 17)
        .tribes("Cati", "kabul", 1)
        .tribes("Hope", "kabul", 1)
        .rupees("Cati", 3)
        .rupees("Hope", 4)
        .build()
    )
    state = buy_check(state)
    assert vps(state) == [4, 4]
    assert state.winners == [1]


def test_dominance_check_resolved_the_moment_it_is_bought() -> None:
    """[Purchase: Event Cards, p. 10] "Event cards (including Dominance Checks) ... are
    resolved the moment they are bought from the market."
    """
    position = check_in_market({"Cati": "british", "Hope": "russian"}).tribes("Hope", "herat", 1)
    state = buy_check(position.build())
    assert state.checks_resolved == 1
    assert 101 in state.discard
    assert vps(state) == [1, 3]
    assert state.actions_used == 1


def test_dominance_final_check_discarded_at_cleanup_ends_the_game() -> None:
    """[Game End and Victory, p. 9] "after the deck's final Dominance Check is resolved, the
    game will always end" — also when it is resolved by being discarded during cleanup.
    """
    state = (
        check_in_market({"Cati": "british", "Hope": "russian"}, final=True)
        .tribes("Hope", "kabul", 1)
        .vp("Cati", 3)
        .build()
    )
    state = act(state, "Cati", "pass")
    assert vps(state) == [3 + 2, 6]
    assert state.phase == "over"
    assert state.winners == [1]
    assert engine.pending(state) is None
