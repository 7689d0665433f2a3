"""Rule cases: radicalize, Wakhan's core action [Playing with Wakhan: Radicalize, p. 17]."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from positions import waiting_for
from test_wakhan import BOTTOM, TOP, WAKHAN, WakhanPosition, logged, wakhan_does, wseat

import engine
from engine import Action
from engine.cards import WAKHAN_CARDS, Suit
from engine.rules.wakhan_deck import court_side, market_position

EMPTY = [None] * 6


def arrows(face_up: int, following: int) -> WakhanPosition:
    return WakhanPosition({"alice": "british"}).ai(face_up, following).rupees(WAKHAN, 9)


def test_radicalize_the_arrows_choose_the_row_and_the_column() -> None:
    """[Radicalize, p. 17] "The red arrow will point to either 'Top' or 'Bottom' on the back
    of the top card of the draw deck and determines which market row to purchase from. The
    black arrow will point to a number between 0 and 5 ... which column." AI card 3's arrows
    read card 4's back: the bottom row, column 4.
    """
    assert WAKHAN_CARDS[3].front.market_position(WAKHAN_CARDS[4].back) == ("bottom", 4)
    state = arrows(3, 4).market(TOP, BOTTOM).build()
    assert market_position(state) == (1, 4)
    state, kind = wakhan_does(state, "radicalize")
    assert kind == "core"
    assert BOTTOM[4] in state.players[wseat(state)].court
    assert state.players[wseat(state)].rupees == 9 - 4


def test_radicalize_the_next_valid_card_to_the_left() -> None:
    """[Radicalize, p. 17] "If that card is not a valid choice, pick the next valid card to
    its left ... Wakhan cannot purchase a card she has paid a rupee to this turn!"
    """
    position = arrows(3, 4).market(TOP, BOTTOM)
    position.state.paid_cards.append(BOTTOM[4])
    state, _ = wakhan_does(position.build(), "radicalize")
    assert BOTTOM[3] in state.players[wseat(state)].court
    position = arrows(3, 4).market(TOP, BOTTOM).rupees(WAKHAN, 2)
    state, _ = wakhan_does(position.build(), "radicalize")
    assert BOTTOM[2] in state.players[wseat(state)].court


def test_radicalize_then_the_original_position_in_the_other_row() -> None:
    """[Radicalize, p. 17] "if Wakhan exhausts that row then switch to the original position
    in the other market row."
    """
    state = arrows(3, 4).market(TOP, [None, None, None, None, None, BOTTOM[5]]).build()
    state, _ = wakhan_does(state, "radicalize")
    assert TOP[4] in state.players[wseat(state)].court


@pytest.mark.parametrize(("face_up", "following", "side"), [(1, 2, "left"), (3, 4, "right")])
def test_radicalize_left_side_when_the_red_arrow_points_to_top(
    face_up: int, following: int, side: str
) -> None:
    """[Radicalize, p. 17] "Wakhan should play the card to the left side of her court if the
    red arrow is pointing to top or the right side of her court if the red arrow is pointing
    to bottom."
    """
    position = arrows(face_up, following).market(TOP, BOTTOM).court(WAKHAN, 5)
    state = position.build()
    assert court_side(state) == side
    state, _ = wakhan_does(state, "radicalize")
    court = state.players[wseat(state)].court
    assert (court[0] if side == "left" else court[-1]) != 5
    assert logged(state, f"she plays it {side}")


def ruled_by_alice(face_up: int = 1, following: int = 2) -> WakhanPosition:
    """The arrows of cards 1 and 2 point at the top row's free card: Qanat System (Herat),
    where alice rules with two tribes.
    """
    return (
        WakhanPosition({"alice": "british"})
        .ai(face_up, following)
        .market([62, *EMPTY[1:]], EMPTY)
        .court("alice", 57)
        .tribes("alice", "herat", 2)
    )


def test_radicalize_she_pays_the_bribe_of_the_region_s_ruler() -> None:
    """[Radicalize, p. 17] "After purchasing a card from the market, Wakhan will play the card
    if she can afford to bribe the player ruling the region associated with that card."
    """
    state = ruled_by_alice().rupees(WAKHAN, 2).build()
    state, _ = wakhan_does(state, "radicalize")
    assert waiting_for(state) == ("bribe", ["alice"])
    state = engine.apply(state, "alice", Action("demand", (2,)))
    assert 62 in state.players[wseat(state)].court
    assert state.players[wseat(state)].rupees == 0 and state.players[0].rupees == 6


def test_radicalize_she_discards_the_card_when_she_cannot_pay_the_bribe() -> None:
    """[Radicalize, p. 17] "If she cannot pay the bribe, she will discard the card." The
    action is used all the same.
    """
    state = ruled_by_alice().rupees(WAKHAN, 1).build()
    state, kind = wakhan_does(state, "radicalize")
    assert kind == "core"
    assert 62 in state.discard and 62 not in state.players[wseat(state)].court
    assert logged(state, "she discarded Qanat System")
    assert waiting_for(state) == ("turn", ["alice"])


@pytest.mark.parametrize(
    ("action", "market", "favored", "bought"),
    [
        # the highest rank, then the cheapest, then the highest number
        ("radicalize_top_political", ([5, 76, 93, 61, 63, 64], [67, 24, 9, 10, 12, 13]), None, 76),
        ("radicalize_top_intelligence", ([1, 2, 3, 61, 63, 64], EMPTY), None, 1),
        ("radicalize_any_intelligence", ([61, 1, 4, 63, 64, 65], EMPTY), None, 1),
        (
            "radicalize_top_military_if_military_favored",
            ([61, 15, 59, 63, 64, 65], EMPTY),
            "military",
            59,
        ),
        (
            "radicalize_top_economic_if_political_favored",
            ([15, 9, 13, 63, 64, 65], EMPTY),
            "political",
            63,
        ),
        ("radicalize_most_armies_roads", ([61, 63, 12, 15, 64, 65], EMPTY), None, 12),
        ("radicalize_move_card_if_none", ([61, 62, 63, 64, 65, 9], EMPTY), None, 63),
        ("radicalize_card_gaining_region_rule", ([61, 62, 5, 64, 65, 9], EMPTY), None, 5),
    ],
)
def test_radicalize_follows_the_specific_instructions(
    action: str,
    market: tuple[list[int | None], list[int | None]],
    favored: Suit | None,
    bought: int,
) -> None:
    """[Radicalize, p. 17] "If there are specific instructions: Follow them. Ties are decided
    by the cheapest card in the market with the highest card number breaking any further
    ties."
    """
    position = WakhanPosition({"alice": "british"}).market(*market).rupees(WAKHAN, 9)
    if favored:
        position.favored(favored)
    state, kind = wakhan_does(position.build(), action)
    assert kind == "core"
    wakhan = state.players[wseat(state)]
    assert bought in wakhan.court or bought in state.discard


@pytest.mark.parametrize(
    ("action", "edit"),
    [
        ("radicalize_top_military_if_military_favored", lambda p: p.favored("political")),
        ("radicalize_top_economic_if_political_favored", lambda p: p.favored("military")),
        ("radicalize_most_net_rupees_if_under_2_rupees", lambda p: p.rupees(WAKHAN, 2)),
        ("radicalize_move_card_if_none", lambda p: p.court(WAKHAN, 9)),
        ("radicalize_dominant_patriot_if_dominance", lambda p: p),
        ("radicalize_top_political_if_court_full", lambda p: p.court(WAKHAN, 9)),
        ("radicalize_top_intelligence_if_fewer_spies", lambda p: p),
        ("radicalize_most_spies_tribes_if_no_dominance", lambda p: p.armies("kabul", "afghan", 4)),
    ],
)
def test_radicalize_an_instruction_whose_condition_fails_is_skipped(
    action: str, edit: Callable[[WakhanPosition], object]
) -> None:
    """[Card-Based Actions, p. 18] "Many actions on the AI card will list a set of
    instructions and conditions which must be true in order for the action to be taken. If
    these conditions cannot be met, the action is skipped."
    """
    position = WakhanPosition({"alice": "british"}).market(TOP, BOTTOM)
    edit(position)
    state, kind = wakhan_does(position.build(), action)
    assert kind is None
    assert state.players[wseat(state)].court == position.state.players[wseat(state)].court


def test_radicalize_the_card_that_leaves_her_with_the_most_rupees() -> None:
    """AI cards 4 and 20: "Only if Wakhan holds fewer than 2 rupees: radicalize the card that
    would leave her with the most rupees." Four rupees lie on the card in column 1.
    """
    position = WakhanPosition({"alice": "british"}).market([61, 62, *EMPTY[2:]], EMPTY)
    state = position.market_rupees(0, 1, 4).rupees(WAKHAN, 1).build()
    state, _ = wakhan_does(state, "radicalize_most_net_rupees_if_under_2_rupees")
    assert 62 in state.players[wseat(state)].court
    assert state.players[wseat(state)].rupees == 1 - 1 + 4


def test_radicalize_the_card_that_leaves_her_the_most_rupees_not_with_2_rupees() -> None:
    """AI cards 4 and 20: "Only if Wakhan holds fewer than 2 rupees: radicalize the card that
    would leave her with the most rupees." With exactly 2 rupees the instruction is skipped
    [Card-Based Actions, p. 18], though four rupees lie on the card in column 1.
    """
    position = WakhanPosition({"alice": "british"}).market([61, 62, *EMPTY[2:]], EMPTY)
    state = position.market_rupees(0, 1, 4).rupees(WAKHAN, 2).build()
    state, kind = wakhan_does(state, "radicalize_most_net_rupees_if_under_2_rupees")
    assert kind is None
    assert state.players[wseat(state)].court == []
    assert state.players[wseat(state)].rupees == 2


def test_radicalize_with_a_dominance_check_the_cheapest_patriot_of_the_dominant_coalition() -> None:
    """[Radicalize, p. 17] "when a Dominance Check is in the market, Wakhan will choose the
    cheapest Patriot loyal to the dominant coalition, then the cheapest card with the most
    Army and/or Road impact icons". The British are dominant; she would not score the most.
    """
    position = (
        WakhanPosition({"alice": "british"})
        .market([61, 12, 37, 15, 102, 64], EMPTY)
        .armies("punjab", "british", 4)
        .court("alice", 36, 32)
    )
    state, _ = wakhan_does(position.build(), "radicalize")
    assert 37 in state.players[wseat(state)].court
    assert 102 in [c for row in state.market for c in row]
    position.state.market[0][2] = None  # no patriot: the most army and road icons
    position.state.removed.append(37)
    state, _ = wakhan_does(position.build(), "radicalize")
    assert 12 in state.players[wseat(state)].court


def test_radicalize_with_a_dominance_check_and_no_dominant_coalition() -> None:
    """[Radicalize, p. 17] "... or, if no coalition is dominant, she will chose the cheapest
    card with the most spy and/or tribe impact icons. If there is a tie, use the highest card
    number." Mohan Lal and Dost Mohammad both place three and cost one rupee.
    """
    position = WakhanPosition({"alice": "british"})
    position.market([61, 1, 102, 12, 64, 65], [62, 7, *EMPTY[2:]])
    position.tribes("alice", "punjab", 3)  # alice has the most cylinders: no Ambition
    state, _ = wakhan_does(position.build(), "radicalize")
    assert 7 in state.players[wseat(state)].court


def test_radicalize_an_event_card_she_chooses_the_favored_suit() -> None:
    """[General Rules, p. 16] "If Wakhan needs to choose a suit, Wakhan will always select
    the current favored suit." The arrows point at Pashtunwali Values (115).
    """
    state = WakhanPosition({"alice": "british"}).market([115, *TOP[1:]], BOTTOM).build()
    state.favored = "intelligence"
    state, _ = wakhan_does(state, "radicalize")
    assert logged(state, "Wakhan chooses intelligence: she always chooses the favored suit")
    assert state.favored == "intelligence"
