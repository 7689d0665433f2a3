"""Rule cases: access to card-based actions, bonus actions, action costs and hostages
[Access to Actions, p. 8; Card-Based Actions, p. 12].
"""

from __future__ import annotations

import pytest
from positions import Position, act, options, waiting_for

from engine import IllegalActionError
from engine.cards import Suit
from engine.invariants import violations

KHYBER_PASS = 29  # Punjab, economic, rank 2: tax, move
KARAKUL_SHEEP = 61  # Herat, economic, rank 2: tax
JOSIAH_HARLAN = 25  # Punjab, political, rank 1: tax
BANK = 46  # Kandahar, economic, rank 2: gift
SIR_JOHN_KEANE = 51  # Kandahar, military, rank 1: battle; Indian Supplies
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]


def cati_and_hope(favored: Suit = "intelligence") -> Position:
    """Cati (British) to move, Hope (Russian); a market of Persia and Transcaspia cards."""
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .market(TOP, BOTTOM)
        .favored(favored)
        .rupees("Cati", 4)
        .rupees("Hope", 4)
    )


def with_taxes(position: Position) -> Position:
    """Rupees to tax on two market cards: two on 76 (top row), one on 85 (bottom row)."""
    return position.market_rupees(0, 1, 2).market_rupees(1, 1, 1)


# Access to Actions, Bonus Actions


def test_access_to_actions_each_card_once_a_turn_whatever_its_icons() -> None:
    """[Access to Actions, p. 8] "Each card in your court can only be used for one action
    per turn. That is, even if a card has three actions on it, only one of those actions can
    be used each turn." (Khyber Pass shows tax and move.)
    """
    state = (
        with_taxes(cati_and_hope())
        .court("Cati", KHYBER_PASS)
        .court("Hope", KARAKUL_SHEEP)
        .spies("Cati", KARAKUL_SHEEP, 1)
        .build()
    )
    assert {"tax 29", "move 29"} <= set(options(state, "Cati"))
    state = act(state, "Cati", "tax 29", "collect 76", "collect 76")
    assert waiting_for(state) == ("turn", ["Cati"])
    legal = options(state, "Cati")
    assert "tax 29" not in legal and "move 29" not in legal
    assert state.actions_used == 1
    assert state.players[0].rupees == 6


def test_access_to_actions_each_card_in_court_gives_its_own_action() -> None:
    """[Card-Based Actions, p. 12] "Each card can only be used for one action once per
    turn": two cards with the tax icon give two tax actions.
    """
    state = with_taxes(cati_and_hope()).court("Cati", KHYBER_PASS, KARAKUL_SHEEP).build()
    state = act(state, "Cati", "tax 29", "collect 76", "collect 85")
    assert "tax 61" in options(state, "Cati")
    state = act(state, "Cati", "tax 61")
    assert state.players[0].rupees == 4 + 3
    assert waiting_for(state) == ("turn", ["Hope"])


def test_bonus_actions_favored_suit_cards_do_not_count_against_two_actions() -> None:
    """[Card-Based Actions: Bonus Actions, p. 12] "Actions on cards matching the favored suit
    do not count against your turn's two-action limit."
    """
    state = with_taxes(cati_and_hope("economic")).court("Cati", KHYBER_PASS).build()
    state = act(state, "Cati", "tax 29", "collect 76", "collect 76")
    assert state.actions_used == 0
    assert "tax 29" not in options(state, "Cati")
    state = act(state, "Cati", "purchase 75")
    assert waiting_for(state) == ("turn", ["Cati"])
    state = act(state, "Cati", "purchase 84")
    assert state.players[0].hand == [75, 84]
    assert waiting_for(state) == ("turn", ["Hope"])


def test_bonus_actions_a_card_not_of_the_favored_suit_counts() -> None:
    """[Sequence of Play, p. 9] "the active player performs up to two actions" — a card-based
    action of a card not of the favored suit is one of them.
    """
    state = with_taxes(cati_and_hope("political")).court("Cati", KHYBER_PASS).build()
    state = act(state, "Cati", "tax 29", "collect 76", "collect 76")
    assert state.actions_used == 1
    state = act(state, "Cati", "purchase 75")
    assert waiting_for(state) == ("turn", ["Hope"])
    assert state.players[0].hand == [75]


def test_bonus_actions_turn_does_not_end_while_a_bonus_action_is_left() -> None:
    """[Card-Based Actions: Bonus Actions, p. 12] "Actions on cards matching the favored suit
    do not count against your turn's two-action limit." After two actions, the favored card
    can still act, so the turn waits for it (or a pass).
    """
    state = with_taxes(cati_and_hope("economic")).court("Cati", KHYBER_PASS).build()
    state = act(state, "Cati", "purchase 75", "purchase 84")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert options(state, "Cati") == ["tax 29", "pass"]
    state = act(state, "Cati", "tax 29", "collect 76", "collect 76")
    assert waiting_for(state) == ("turn", ["Hope"])
    assert state.players[0].rupees == 6


def test_bonus_actions_turn_ends_after_two_actions_without_a_favored_card() -> None:
    """[Sequence of Play, p. 9] "Each turn, the active player performs up to two actions"."""
    state = with_taxes(cati_and_hope("military")).court("Cati", KHYBER_PASS).build()
    state = act(state, "Cati", "purchase 75", "purchase 84")
    assert waiting_for(state) == ("turn", ["Hope"])


def test_access_to_actions_bonus_actions_only_after_two_actions() -> None:
    """[Access to Actions, p. 8; Bonus Actions, p. 12] "Actions on cards matching the
    favored suit do not count against your turn's two-action limit." After two actions,
    Khyber Pass (economic, favored) may still tax as a bonus action; Josiah Harlan
    (political) may not: a third action that is not a bonus action is never allowed.
    """
    state = with_taxes(cati_and_hope("economic")).court("Cati", KHYBER_PASS, JOSIAH_HARLAN).build()
    assert {"tax 29", "tax 25"} <= set(options(state, "Cati"))
    state = act(state, "Cati", "purchase 75", "purchase 84")
    assert state.actions_used == 2
    assert options(state, "Cati") == ["tax 29", "pass"]
    with pytest.raises(IllegalActionError):
        act(state, "Cati", "tax 25")
    state = act(state, "Cati", "tax 29", "collect 76", "collect 76")
    assert waiting_for(state) == ("turn", ["Hope"])


def test_access_to_actions_a_card_played_this_turn_may_act_this_turn() -> None:
    """[Access to Actions, p. 8] "the cards in your court provide you access to the actions
    listed on that card" — as soon as the card is in court, even this turn.
    """
    state = with_taxes(cati_and_hope()).hand("Cati", KHYBER_PASS).build()
    assert "tax 29" not in options(state, "Cati")
    state = act(state, "Cati", "play 29 left", "road kabul-punjab", "road kabul-punjab")
    assert "tax 29" in options(state, "Cati")
    state = act(state, "Cati", "tax 29", "collect 76", "collect 76")
    assert state.players[0].rupees == 6
    assert waiting_for(state) == ("turn", ["Hope"])


# Action Costs


@pytest.mark.parametrize(
    ("price", "paid"),
    [(2, [0, 0, 0, 0, 0, 1]), (4, [0, 0, 0, 0, 1, 1]), (6, [0, 0, 0, 1, 1, 1])],
)
def test_action_costs_one_rupee_to_each_rightmost_card_of_both_rows(
    price: int, paid: list[int]
) -> None:
    """[Card-Based Actions: Action Costs, p. 12] "rupees equal to the cost should be placed on
    the rightmost market cards of both rows, with a single rupee being paid to each card."
    """
    state = cati_and_hope().rupees("Cati", 6).court("Cati", BANK).build()
    state = act(state, "Cati", f"gift 46 {price}")
    assert state.market_rupees == [paid, paid]
    assert state.players[0].rupees == 6 - price
    assert state.out_of_game == 0
    assert violations(state) == []


def test_action_costs_vacant_slots_are_skipped() -> None:
    """[Card-Based Actions: Action Costs, p. 12] "If a market slot is vacant, skip that
    vacancy and pay the next market card(s) in the row."
    """
    state = (
        cati_and_hope()
        .market([*TOP[:4], None, None], [*BOTTOM[:4], None, BOTTOM[5]])
        .rupees("Cati", 6)
        .court("Cati", BANK)
        .build()
    )
    state = act(state, "Cati", "gift 46 6")
    assert state.market_rupees == [[0, 1, 1, 1, 0, 0], [0, 0, 1, 1, 0, 1]]
    assert state.out_of_game == 0


def test_action_costs_excess_rupees_are_taken_out_of_the_game() -> None:
    """[Card-Based Actions: Action Costs, p. 12] "If the market does not contain enough cards
    to take the spent rupees, any excess rupees are taken out of the game."
    """
    state = (
        cati_and_hope()
        .market([TOP[0], *[None] * 5], [BOTTOM[0], *[None] * 5])
        .rupees("Cati", 6)
        .court("Cati", BANK)
        .build()
    )
    state = act(state, "Cati", "gift 46 6")
    assert state.market_rupees == [[1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]]
    assert state.out_of_game == 4
    assert state.players[0].rupees == 0
    assert violations(state) == []


def test_action_costs_a_card_paid_this_way_cannot_be_purchased_this_turn() -> None:
    """[Card-Based Actions: Action Costs, p. 12] "Reminder: if you place a rupee on a market
    card for any reason, you may not purchase that card this turn."
    """
    state = cati_and_hope().rupees("Cati", 12).court("Cati", BANK).build()
    state = act(state, "Cati", "gift 46 2")
    legal = options(state, "Cati")
    assert "purchase 81" not in legal and "purchase 89" not in legal
    assert "purchase 80" in legal and "purchase 88" in legal
    with pytest.raises(IllegalActionError) as caught:
        act(state, "Cati", "purchase 81")
    assert caught.value.code == "paid-this-turn"


# Hostage Actions


def hostage_example() -> Position:
    """[Hostage Action example, p. 12] Khyber Pass (tax, move) in Hope's court: Cati has two
    spies on it, Hope one.
    """
    return (
        with_taxes(cati_and_hope())
        .active("Hope")
        .court("Hope", KHYBER_PASS)
        .court("Cati", KARAKUL_SHEEP)
        .spies("Cati", KHYBER_PASS, 2)
        .spies("Hope", KHYBER_PASS, 1)
    )


@pytest.mark.parametrize("line", ["tax 29", "move 29"])
def test_hostage_action_example_either_action_needs_a_bribe_of_two(line: str) -> None:
    """[Hostage Action example, p. 12] "Cati (blue) has two spies on the card. Hope only has
    one. For this reason, this card's two actions are held hostage by Cati. To take either of
    this card's two actions, Hope must pay a bribe of two rupees to Cati."
    """
    state = act(hostage_example().build(), "Hope", line)
    assert waiting_for(state) == ("bribe", ["Cati"])
    assert options(state, "Cati") == ["demand 0", "demand 1", "demand 2"]


def test_hostage_action_example_hope_pays_two_rupees_to_cati() -> None:
    """[Hostage Actions, p. 12] "that player can only use the card's actions if the player
    holding it hostage is paid a bribe equal to the number of hostage-holding spies on the
    card."
    """
    state = act(hostage_example().build(), "Hope", "tax 29")
    state = act(state, "Cati", "demand 2")
    assert waiting_for(state) == ("pay", ["Hope"])
    state = act(state, "Hope", "pay")
    assert waiting_for(state) == ("tax", ["Hope"])
    state = act(state, "Hope", "collect 76", "collect 76")
    cati, hope = state.players
    assert (cati.rupees, hope.rupees) == (6, 4 - 2 + 2)
    assert violations(state) == []


def test_hostage_action_example_cati_may_reduce_the_bribe() -> None:
    """[Hostage Action example, p. 12] "Cati may reduce or waive this bribe outright."."""
    state = act(hostage_example().build(), "Hope", "tax 29")
    state = act(state, "Cati", "demand 1")
    state = act(state, "Hope", "pay")
    assert waiting_for(state) == ("tax", ["Hope"])
    assert (state.players[0].rupees, state.players[1].rupees) == (5, 3)


def test_hostage_action_example_cati_may_waive_the_bribe() -> None:
    """[Hostage Actions, p. 12] "Any portion of this payment can be waived with the
    permission of the player holding the actions hostage." (`demand 0`)
    """
    state = act(hostage_example().build(), "Hope", "tax 29")
    state = act(state, "Cati", "demand 0")
    assert waiting_for(state) == ("tax", ["Hope"])
    assert (state.players[0].rupees, state.players[1].rupees) == (4, 4)


def test_hostage_actions_refusing_the_bribe_means_the_action_did_not_happen() -> None:
    """[Hostage Actions, p. 12] "that player can only use the card's actions if the player
    holding it hostage is paid a bribe" — unpaid, the action is not taken, and neither the
    card nor an action is spent.
    """
    state = act(hostage_example().build(), "Hope", "tax 29")
    state = act(state, "Cati", "demand 2")
    state = act(state, "Hope", "refuse")
    assert waiting_for(state) == ("turn", ["Hope"])
    assert (state.players[0].rupees, state.players[1].rupees) == (4, 4)
    assert state.actions_used == 0
    assert KHYBER_PASS not in state.used_cards
    assert "tax 29" in options(state, "Hope")
    assert state.market_rupees[0][1] == 2


def test_hostage_actions_one_spy_holds_a_card_with_no_other_spy() -> None:
    """[Hostage Actions, p. 12] "a single enemy player must have more spies on the card than
    each other player" — one spy against none is enough; the bribe is one rupee.
    """
    state = (
        with_taxes(cati_and_hope())
        .active("Hope")
        .court("Hope", KHYBER_PASS)
        .spies("Cati", KHYBER_PASS, 1)
        .build()
    )
    state = act(state, "Hope", "tax 29")
    assert waiting_for(state) == ("bribe", ["Cati"])
    assert options(state, "Cati") == ["demand 0", "demand 1"]


@pytest.mark.parametrize(
    ("cati", "hope", "blake"),
    [(1, 1, 0), (2, 0, 2), (1, 2, 0), (0, 1, 1)],
    ids=["tied-with-owner", "two-others-tied", "owner-has-most", "owner-tied-with-other"],
)
def test_hostage_actions_a_single_player_must_have_more_spies_than_each_other(
    cati: int, hope: int, blake: int
) -> None:
    """[Hostage Actions, p. 12] "To hold a card hostage, a single enemy player must have more
    spies on the card than each other player." Ties hold nothing.
    """
    position = with_taxes(
        Position({"Hope": "russian", "Cati": "british", "Blake": "afghan"}).market(TOP, BOTTOM)
    ).court("Hope", KHYBER_PASS)
    for name, count in (("Cati", cati), ("Hope", hope), ("Blake", blake)):
        if count:
            position.spies(name, KHYBER_PASS, count)
    state = act(position.build(), "Hope", "tax 29")
    assert waiting_for(state) == ("tax", ["Hope"])


def test_hostage_actions_special_abilities_are_never_held_hostage() -> None:
    """[Hostage Actions, p. 12] "Special abilities (those described in a small text box) are
    never held hostage." Sir John Keane's battle action is held hostage by Cati's spies, but
    his Indian Supplies still lets Hope's armies move without a road.
    """
    state = (
        Position({"Hope": "british", "Cati": "russian"})
        .market(TOP, BOTTOM)
        .favored("intelligence")
        .court("Hope", SIR_JOHN_KEANE, KHYBER_PASS)
        .spies("Cati", SIR_JOHN_KEANE, 2)
        .armies("kandahar", "british", 1)
        .armies("kandahar", "russian", 1)
        .build()
    )
    assert waiting_for(act(state, "Hope", "battle 51 kandahar")) == ("bribe", ["Cati"])
    state = act(state, "Hope", "move 29")
    assert waiting_for(state) == ("move", ["Hope"])
    assert {"march army kandahar punjab", "march army kandahar herat"} <= set(
        options(state, "Hope")
    )
    state = act(state, "Hope", "march army kandahar punjab")
    assert state.armies["punjab"]["british"] == 1
    assert [p.rupees for p in state.players] == [4, 4]  # no bribe changed hands
