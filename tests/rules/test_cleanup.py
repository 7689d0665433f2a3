"""Rule cases: cleanup at the end of a turn [Cleanup, p. 9]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

MILITARY = 105  # top: favored suit becomes military
INTELLIGENCE = 115  # top: favored suit becomes intelligence
RIOTS_IN_PERSIA = 113
SHAH_SHUJAH = 5  # political, rank 1
DOST_MOHAMMAD = 7  # political, rank 2
CHARLES_STODDART = 4  # intelligence, rank 1
MOHAN_LAL = 1  # intelligence, rank 3
TOP = [61, 62, 63, 64, 65, 60]
BOTTOM = [67, 9, 10, 12, 13, 14]
NEXT = [20, 21, 22, 23, 25, 26]


def cati_and_hope() -> Position:
    return Position({"Cati": "british", "Hope": "russian"}).market(TOP, BOTTOM).deck_top(*NEXT)


def test_cleanup_court_limit_is_three_plus_political_stars() -> None:
    """[Cleanup, p. 9] "if you have more cards than three plus the sum of the purple stars
    on cards in your court, discard cards in your court until you are within your limit."
    """
    state = cati_and_hope().court("Cati", SHAH_SHUJAH, 47, 48, 49, 52).build()
    state = act(state, "Cati", "pass")
    assert waiting_for(state) == ("discard", ["Cati"])
    assert sorted(options(state, "Cati")) == [
        "discard 47", "discard 48", "discard 49", "discard 5", "discard 52"
    ]  # fmt: skip
    state = act(state, "Cati", "discard 48")
    assert state.players[0].court == [SHAH_SHUJAH, 47, 49, 52]
    assert waiting_for(state) == ("turn", ["Hope"])


def test_cleanup_court_within_limit_thanks_to_political_stars() -> None:
    """[Cleanup, p. 9] the court limit is "three plus the sum of the purple stars"."""
    state = cati_and_hope().court("Cati", DOST_MOHAMMAD, 47, 48, 49, 52).build()
    state = act(state, "Cati", "pass")
    assert waiting_for(state) == ("turn", ["Hope"])
    assert len(state.players[0].court) == 5


def test_cleanup_court_discards_until_within_the_limit() -> None:
    """[Cleanup, p. 9] "discard cards in your court until you are within your limit"."""
    state = cati_and_hope().court("Cati", 47, 48, 49, 52, 53).build()
    state = act(state, "Cati", "pass", "discard 47")
    assert waiting_for(state) == ("discard", ["Cati"])
    state = act(state, "Cati", "discard 53")
    assert state.players[0].court == [48, 49, 52]
    assert waiting_for(state) == ("turn", ["Hope"])


def test_cleanup_hand_limit_is_two_plus_intelligence_stars() -> None:
    """[Cleanup, p. 9] "if you have more cards than two plus the sum of the blue stars on
    cards in your court, discard cards in your hand until you are within your limit."
    """
    state = cati_and_hope().court("Cati", CHARLES_STODDART).hand("Cati", 30, 31, 32, 33).build()
    state = act(state, "Cati", "pass")
    assert waiting_for(state) == ("discard", ["Cati"])
    assert sorted(options(state, "Cati")) == [
        "discard 30",
        "discard 31",
        "discard 32",
        "discard 33",
    ]
    state = act(state, "Cati", "discard 32")
    assert state.players[0].hand == [30, 31, 33]
    assert waiting_for(state) == ("turn", ["Hope"])


def test_cleanup_court_is_trimmed_before_the_hand() -> None:
    """[Cleanup, p. 9] "First ... discard cards in your court ... Second ... discard cards in
    your hand". Discarding Mohan Lal (three blue stars) from the court first lowers the hand
    limit from five to two.
    """
    state = (
        cati_and_hope()
        .court("Cati", MOHAN_LAL, 47, 48, 49)
        .hand("Cati", 30, 31, 32, 33, 34)
        .build()
    )
    state = act(state, "Cati", "pass")
    assert sorted(options(state, "Cati")) == ["discard 1", "discard 47", "discard 48", "discard 49"]
    state = act(state, "Cati", "discard mohan lal")
    for card in (30, 31, 32):
        assert waiting_for(state) == ("discard", ["Cati"])
        state = act(state, "Cati", f"discard {card}")
    assert state.players[0].hand == [33, 34]
    assert waiting_for(state) == ("turn", ["Hope"])


def test_cleanup_events_in_the_leftmost_column_top_row_first_with_their_top_effect() -> None:
    """[Cleanup, p. 9] "discard any event cards that are in the leftmost column of the
    market. ... The top row is always discarded first, followed by the bottom row. When an
    event card is discarded, all players are affected by the text or impact icon at the top
    of the card."
    """
    state = cati_and_hope().market([MILITARY, *TOP[1:]], [INTELLIGENCE, *BOTTOM[1:]]).build()
    state = act(state, "Cati", "pass")
    assert state.favored == "intelligence"
    assert state.discard[-2:] == [MILITARY, INTELLIGENCE]
    assert state.market[0][:5] == TOP[1:]
    assert state.market[1][:5] == BOTTOM[1:]


def test_cleanup_events_outside_the_leftmost_column_stay() -> None:
    """[Cleanup, p. 9] only "event cards that are in the leftmost column" are discarded; an
    event that moves there waits for the next cleanup.
    """
    state = cati_and_hope().market([MILITARY, INTELLIGENCE, *TOP[2:]], BOTTOM).build()
    state = act(state, "Cati", "pass")
    assert state.favored == "military"
    assert state.market[0][0] == INTELLIGENCE
    state = act(state, "Hope", "pass")
    assert state.favored == "intelligence"


def test_cleanup_rupees_on_a_discarded_event_pass_to_the_card_moving_there() -> None:
    """[Cleanup, p. 9] "Any rupees on the discarded event will remain in their position. ...
    If a card moves into a space with rupees from a previously-discarded event card, those
    rupees are placed on the new card taking that position."
    """
    state = (
        cati_and_hope()
        .market([RIOTS_IN_PERSIA, *TOP[1:]], BOTTOM)
        .market_rupees(0, 0, 2)
        .market_rupees(0, 1, 1)
        .build()
    )
    state = act(state, "Cati", "pass")
    assert state.market[0][0] == 62
    assert state.market_rupees[0] == [3, 0, 0, 0, 0, 0]


def test_cleanup_rows_shift_left_with_their_rupees_and_refill_from_the_deck() -> None:
    """[Cleanup, p. 9] "fill any empty spaces in the market by moving all cards in that
    market row (along with their rupees) to their leftmost position. ... Then draw new cards
    to fill in any empty spaces".
    """
    state = cati_and_hope().market_rupees(0, 3, 1).build()
    state = act(state, "Cati", "purchase 63", "pass")
    assert state.market[0] == [61, 62, 64, 65, 60, NEXT[0]]
    assert state.market_rupees[0] == [1, 1, 1, 0, 0, 0]
    assert state.market[1] == BOTTOM
    assert state.deck[:2] == NEXT[1:3]


def test_cleanup_refill_column_by_column_top_row_first() -> None:
    """[Cleanup, p. 9] "draw new cards to fill in any empty spaces starting with the leftmost
    ... In each empty column, fill the top row first."
    """
    state = cati_and_hope().market(TOP, [67, None, 10, 12, 13, 14]).rupees("Cati", 5).build()
    state = act(state, "Cati", "purchase 63", "purchase 12")
    assert state.market[0] == [61, 62, 64, 65, 60, NEXT[1]]
    assert state.market[1] == [67, 10, 13, 14, NEXT[0], NEXT[2]]


def test_cleanup_instability_second_dominance_check_revealed() -> None:
    """[Cleanup: Instability, p. 9] "If a Dominance Check card is revealed and there is
    already a Dominance Check card in the market, immediately perform a Dominance Check and
    then discard both Dominance Check cards and fill the empty spaces in the market".
    """
    state = (
        cati_and_hope()
        .market([61, 62, 63, 101, 64, 65], BOTTOM)
        .deck_top(102, *NEXT)
        .armies("kabul", "british", 4)
        .vp("Hope", 3)
        .build()
    )
    state = act(state, "Cati", "purchase 61", "pass")
    assert state.checks_resolved == 1
    assert [p.vp for p in state.players] == [5, 3]
    assert state.discard[-2:] in ([101, 102], [102, 101])
    assert state.armies["kabul"]["british"] == 0
    assert state.market[0] == [62, 63, 64, 65, NEXT[0], NEXT[1]]
    assert state.market[1] == BOTTOM
    assert state.phase == "play"
    assert waiting_for(state) == ("turn", ["Hope"])


def test_cleanup_instability_with_the_last_dominance_check_counts_as_final() -> None:
    """[Cleanup: Instability, p. 9] "If the final Dominance Check card was discarded in this
    way, the Dominance Check will count as the final check." [Final Dominance Check, p. 15]
    points are doubled; [Game End, p. 9] the game ends.
    """
    state = (
        cati_and_hope()
        .market([61, 62, 63, 101, 64, 65], BOTTOM)
        .deck_top(102, *NEXT)
        .checks_resolved(103, 104)
        .tribes("Cati", "kabul", 1)
        .build()
    )
    state = act(state, "Cati", "purchase 61", "pass")
    assert [p.vp for p in state.players] == [6, 2]
    assert state.phase == "over"
    assert state.winners == [0]


def test_cleanup_dominance_check_in_the_leftmost_column_is_resolved() -> None:
    """[Dominance Checks, p. 15] "Dominance Check event cards are resolved when purchased by
    a player or when triggered during cleanup."
    """
    state = cati_and_hope().market([101, *TOP[1:]], BOTTOM).tribes("Hope", "punjab", 2).build()
    state = act(state, "Cati", "pass")
    assert state.checks_resolved == 1
    assert [p.vp for p in state.players] == [1, 3]
    assert 101 in state.discard
