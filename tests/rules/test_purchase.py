"""Rule cases: the purchase action [Purchase, p. 10]."""

from __future__ import annotations

import pytest
from positions import Position, act, options, waiting_for

import engine
from engine import IllegalActionError
from engine.invariants import violations

ARTHUR_CONOLLY = 88
BACKING = 113  # Riots in Persia / Backing of Persian Aristocracy
PUBLIC_WITHDRAWAL = 111
TOP = [61, 62, 63, ARTHUR_CONOLLY, 64, 65]
BOTTOM = [67, 9, 10, 12, 13, 14]


def chas_to_move(rupees: int = 5) -> Position:
    return (
        Position({"Chas": "british", "Hope": "russian"})
        .market(TOP, BOTTOM)
        .market_rupees(0, 3, 2)
        .rupees("Chas", rupees)
    )


def error_code(state: engine.State, player: str, line: str) -> str:
    with pytest.raises(IllegalActionError) as caught:
        act(state, player, line)
    return caught.value.code


def test_purchase_example_first_purchase_pays_each_card_to_its_left() -> None:
    """[Purchase example, p. 10] "For his first action this turn, Chas purchases the third
    card in the top row." [Purchase, p. 10] "Pay this cost by placing one rupee on each card
    in the same row to the left of the card you are purchasing."
    """
    state = act(chas_to_move().build(), "Chas", "purchase 63")
    assert state.market_rupees[0][:3] == [1, 1, 0]
    assert state.market[0][2] is None
    assert state.players[0].rupees == 3
    assert state.players[0].hand == [63]


def test_purchase_example_cards_paid_this_turn_cannot_be_bought() -> None:
    """[Purchase example, p. 10] "Because he already placed a coin on each of the first two
    cards in the top row this turn, he cannot purchase them." [Purchase, p. 10] "If you place
    a rupee on a market card for any reason, you may not purchase that card this turn."
    """
    state = act(chas_to_move().build(), "Chas", "purchase 63")
    legal = options(state, "Chas")
    assert "purchase 61" not in legal and "purchase 62" not in legal
    assert "purchase 67" in legal and "purchase 9" in legal
    assert error_code(state, "Chas", "purchase 61") == "paid-this-turn"
    assert error_code(state, "Chas", "purchase 62") == "paid-this-turn"


def test_purchase_example_pays_vacant_slot_to_other_row() -> None:
    """[Purchase example, p. 10] "He decides to purchase the card "Arthur Conolly." He pays a
    coin to the first two cards in the top row. Because the third slot is vacant, he pays his
    third coin to the opposite row. He then takes his purchased card into his hand and takes
    the two rupees on the purchased card." [Purchase, p. 10] "If you are ever required to
    place a rupee on a vacant market spot, pay the cost to the card in the same column in
    the other market row."
    """
    state = act(chas_to_move().build(), "Chas", "purchase 63", "purchase arthur")
    chas = state.players[0]
    assert state.market_rupees[0][:3] == [2, 2, 0]
    assert state.market_rupees[1][2] == 1
    assert state.market_rupees[0][3] == 0
    assert chas.hand == [63, ARTHUR_CONOLLY]
    assert chas.rupees == 5 - 2 - 3 + 2
    assert violations(state) == []


def test_purchase_example_card_paid_through_vacant_slot_cannot_be_bought() -> None:
    """[Purchase, p. 10] "If you place a rupee on a market card for any reason, you may not
    purchase that card this turn." (The bottom card took Chas's rupee for the vacant slot.)
    """
    position = chas_to_move().market([*TOP[:2], None, *TOP[3:]], BOTTOM)
    state = act(position.build(), "Chas", "purchase arthur")
    assert state.market_rupees[1][2] == 1
    assert "purchase 10" not in options(state, "Chas")
    assert "purchase 12" in options(state, "Chas")
    assert error_code(state, "Chas", "purchase 10") == "paid-this-turn"


def test_purchase_rupee_restriction_lasts_only_this_turn() -> None:
    """[Purchase, p. 10] "you may not purchase that card this turn" (another player, on
    their turn, may).
    """
    state = act(chas_to_move().build(), "Chas", "purchase 63", "pass")
    assert waiting_for(state) == ("turn", ["Hope"])
    assert "purchase 61" in options(state, "Hope")
    hope_rupees = state.players[1].rupees
    state = act(state, "Hope", "purchase 61")
    assert state.players[1].rupees == hope_rupees + 1


@pytest.mark.parametrize(("card", "cost"), [(61, 0), (67, 0), (62, 1), (63, 2), (64, 4), (65, 5)])
def test_purchase_cost_is_the_column(card: int, cost: int) -> None:
    """[Purchase, p. 10] "The leftmost column is free, the next column costs one rupee, then
    two, etc."
    """
    state = act(chas_to_move(rupees=5).build(), "Chas", f"purchase {card}")
    assert state.players[0].rupees == 5 - cost
    assert sum(map(sum, state.market_rupees)) == cost + 2


def test_purchase_cannot_buy_a_card_that_costs_more_than_you_have() -> None:
    """[Purchase, p. 10] "In order to purchase a card, you must be able to pay the card's
    cost to the market."
    """
    state = chas_to_move(rupees=1).build()
    legal = options(state, "Chas")
    assert "purchase 62" in legal and "purchase 9" in legal
    assert "purchase 63" not in legal and "purchase 10" not in legal
    assert error_code(state, "Chas", "purchase 63") == "cannot-afford"


def test_purchase_military_favored_doubles_the_cost() -> None:
    """[Purchasing Cards when Military Cards are Favored, p. 10] "If military cards are
    favored, the cost to purchase a card is doubled. ... place two rupees on each card to the
    left of the purchased card instead of one."
    """
    state = chas_to_move(rupees=5).favored("military").build()
    assert "purchase 64" not in options(state, "Chas")
    state = act(state, "Chas", "purchase 63")
    assert state.market_rupees[0][:2] == [2, 2]
    assert state.players[0].rupees == 1


def test_purchase_military_favored_vacant_slot_takes_both_rupees() -> None:
    """[Purchase, p. 10] a vacant spot's payment goes to the other row; [p. 10] with military
    favored, two rupees are placed instead of one.
    """
    position = chas_to_move(rupees=8).favored("military")
    position.market([*TOP[:2], None, *TOP[3:]], BOTTOM)
    position.market_rupees(0, 3, 0)
    state = act(position.build(), "Chas", "purchase 88")
    assert state.market_rupees[0][:2] == [2, 2]
    assert state.market_rupees[1][2] == 2
    assert state.players[0].rupees == 8 - 6 + 2


def test_purchase_buyer_takes_the_rupees_on_the_card() -> None:
    """[Purchase, p. 10] "If you purchase a card that has rupees on it, you receive them
    along with the card."
    """
    state = chas_to_move(rupees=0).market_rupees(1, 0, 3).build()
    state = act(state, "Chas", "purchase 67")
    assert state.players[0].rupees == 3
    assert state.market_rupees[1][0] == 0


def test_purchase_event_is_resolved_and_never_enters_a_hand() -> None:
    """[Purchase: Event Cards, p. 10] "Event cards (including Dominance Checks) never enter
    a player's hand and are resolved the moment they are bought from the market."
    """
    position = chas_to_move(rupees=2)
    position.market([61, BACKING, *TOP[2:]], BOTTOM).market_rupees(0, 1, 1)
    state = act(position.build(), "Chas", "purchase backing")
    chas = state.players[0]
    assert BACKING not in chas.hand and BACKING not in chas.court
    assert chas.hand == []
    assert BACKING in state.discard
    assert chas.rupees == 2 - 1 + 1 + 3
    assert state.actions_used == 1


def test_purchase_public_withdrawal_cannot_be_bought() -> None:
    """[Public Withdrawal, card 111, bottom half] "While in the market this card can never
    be bought".
    """
    position = chas_to_move()
    position.market([PUBLIC_WITHDRAWAL, *TOP[1:]], BOTTOM)
    state = position.build()
    assert "purchase 111" not in options(state, "Chas")
    assert error_code(state, "Chas", "purchase 111") == "not-purchasable"


def test_purchase_rupees_placed_on_public_withdrawal_leave_the_game() -> None:
    """[Public Withdrawal, card 111] "any rupees placed on it are taken out of the game"."""
    position = chas_to_move()
    position.market([PUBLIC_WITHDRAWAL, *TOP[1:]], BOTTOM)
    state = act(position.build(), "Chas", "purchase 62")
    assert state.market_rupees[0][0] == 0
    assert state.out_of_game == 1
    assert state.players[0].rupees == 4


def test_purchase_the_card_goes_to_hand() -> None:
    """[Purchase, p. 10] "Purchase a card from the market and add it to your hand."."""
    state = act(chas_to_move().build(), "Chas", "purchase 9")
    assert state.players[0].hand == [9]
    assert state.players[0].court == []
    assert 9 not in state.market[1]


def test_purchase_card_not_in_market_is_refused() -> None:
    """[Purchase, p. 10] "Purchase a card from the market"."""
    state = chas_to_move().build()
    assert error_code(state, "Chas", "purchase 1") == "not-in-market"
