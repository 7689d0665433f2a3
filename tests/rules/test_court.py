"""Rule cases: discarding court cards, leverage and the Overthrow Rule [p. 8]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

MONEY_LENDERS = 14  # Kabul, economic, leveraged
MAQPON_DYNASTY = 27  # Punjab, political, leveraged
SHAH_SHUJAH = 5  # Kabul, political, rank 1
DOST_MOHAMMAD = 7  # Kabul, political, rank 2
AFGHAN_HANDICRAFTS = 9  # Kabul, economic
PAOLO_AVITABILE = 26  # Punjab, political, rank 1
RIOTS_IN_KABUL = 112  # top: every tribe and army in Kabul is removed
REBUKE = 116  # bottom: the purchaser removes every tribe and army of a region
QUIET = [61, 62, 63, 64, 65, 60]
QUIET_BOTTOM = [67, 10, 12, 13, 17, 18]


def over_court_limit(rupees: int, *hand: int) -> Position:
    """Cati's court holds four cards (limit three) including the leveraged Money Lenders."""
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .court("Cati", MONEY_LENDERS, 61, 62, 63)
        .hand("Cati", *hand)
        .rupees("Cati", rupees)
    )


def test_discarding_a_court_card_returns_every_spy_to_its_owner() -> None:
    """[Discarding a Card in Your Court, p. 8] "Any spies on the card are lost and returned
    to their owner's supply."
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .court("Cati", 61, 62, 63, 64)
        .court("Hope", 65)
        .spies("Cati", 64, 1)
        .spies("Hope", 64, 2)
        .spies("Hope", 65, 1)
        .build()
    )
    state = act(state, "Cati", "pass", "discard 64")
    assert 64 in state.discard
    assert 64 not in state.spies
    assert state.spies[65] == [0, 1]
    assert state.players[0].cylinders == 10
    assert state.players[1].cylinders == 9


def test_discarding_a_leveraged_card_returns_two_rupees() -> None:
    """[Discarding a Card in Your Court, p. 8] "If the card had the leveraged icon, you must
    return two rupees to the supply."
    """
    state = over_court_limit(3).build()
    bank = state.bank
    state = act(state, "Cati", "pass", "discard money lenders")
    assert state.players[0].rupees == 1
    assert state.bank == bank + 2
    assert waiting_for(state) == ("turn", ["Hope"])


def test_discarding_a_leveraged_card_one_rupee_short_costs_one_card() -> None:
    """[Discarding a Card in Your Court, p. 8] "For each rupee you cannot return, you must
    discard one card from your hand or court (not including this card, of course)."
    """
    state = over_court_limit(1, AFGHAN_HANDICRAFTS).build()
    bank = state.bank
    state = act(state, "Cati", "pass", "discard money lenders")
    assert state.players[0].rupees == 0
    assert state.bank == bank + 1
    assert waiting_for(state) == ("discard", ["Cati"])
    assert sorted(options(state, "Cati")) == ["discard 61", "discard 62", "discard 63", "discard 9"]
    state = act(state, "Cati", "discard 9")
    assert state.players[0].hand == []
    assert state.players[0].court == [61, 62, 63]
    assert waiting_for(state) == ("turn", ["Hope"])


def test_discarding_a_leveraged_card_with_no_rupees_costs_two_cards() -> None:
    """[Discarding a Card in Your Court, p. 8] "For each rupee you cannot return, you must
    discard one card from your hand or court".
    """
    state = over_court_limit(0, AFGHAN_HANDICRAFTS).build()
    state = act(state, "Cati", "pass", "discard money lenders")
    state = act(state, "Cati", "discard 61")
    assert waiting_for(state) == ("discard", ["Cati"])
    assert MONEY_LENDERS not in [int(o.split()[1]) for o in options(state, "Cati")]
    state = act(state, "Cati", "discard 9")
    assert state.players[0].court == [62, 63]
    assert state.players[0].hand == []
    assert waiting_for(state) == ("turn", ["Hope"])


def test_discarding_a_leveraged_card_with_nothing_left_needs_no_further_payment() -> None:
    """[Discarding a Card in Your Court, p. 8] "If you have no cards left, no further payment
    is required." (Rebuke removes Cati's last Punjab tribe; the Overthrow Rule discards her
    only card, the leveraged Maqpon Dynasty, and she has no rupees.)
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .market([REBUKE, *QUIET[1:]], QUIET_BOTTOM)
        .court("Cati", MAQPON_DYNASTY)
        .tribes("Cati", "punjab", 1)
        .rupees("Cati", 0)
        .build()
    )
    state = act(state, "Cati", "purchase rebuke", "choose punjab")
    cati = state.players[0]
    assert cati.court == [] and cati.hand == []
    assert MAQPON_DYNASTY in state.discard
    assert cati.rupees == 0
    assert waiting_for(state) == ("turn", ["Cati"])


def test_discarding_a_leveraged_card_one_card_left_is_all_that_is_owed() -> None:
    """[Discarding a Card in Your Court, p. 8] "If you have no cards left, no further payment
    is required." Two rupees short with one card left: that card is discarded, nothing more.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .market([REBUKE, *QUIET[1:]], QUIET_BOTTOM)
        .court("Cati", MAQPON_DYNASTY)
        .hand("Cati", 59)
        .tribes("Cati", "punjab", 1)
        .rupees("Cati", 0)
        .build()
    )
    state = act(state, "Cati", "purchase rebuke", "choose punjab")
    assert state.players[0].hand == []
    assert 59 in state.discard
    assert waiting_for(state) == ("turn", ["Cati"])


def test_overthrow_losing_the_last_tribe_discards_political_cards_of_the_region() -> None:
    """[The Overthrow Rule, p. 8] "if you lose your last tribe in a region, you must
    immediately discard all political cards associated with that region from your court."
    (Riots in Kabul, discarded at cleanup, removes every tribe in Kabul.)
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .market([RIOTS_IN_KABUL, *QUIET[1:]], QUIET_BOTTOM)
        .court("Cati", SHAH_SHUJAH, AFGHAN_HANDICRAFTS, DOST_MOHAMMAD, PAOLO_AVITABILE)
        .tribes("Cati", "kabul", 2)
        .tribes("Cati", "punjab", 1)
        .build()
    )
    state = act(state, "Cati", "pass")
    cati = state.players[0]
    assert cati.court == [AFGHAN_HANDICRAFTS, PAOLO_AVITABILE]
    assert {SHAH_SHUJAH, DOST_MOHAMMAD} <= set(state.discard)
    assert state.tribes["kabul"] == [0, 0]
    assert state.tribes["punjab"] == [1, 0]


def test_overthrow_applies_to_every_player_who_loses_the_last_tribe() -> None:
    """[The Overthrow Rule, p. 8] "if you lose your last tribe in a region" — whoever's turn
    it is.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .market([RIOTS_IN_KABUL, *QUIET[1:]], QUIET_BOTTOM)
        .court("Hope", SHAH_SHUJAH)
        .tribes("Hope", "kabul", 1)
        .build()
    )
    state = act(state, "Cati", "pass")
    assert state.players[1].court == []
    assert SHAH_SHUJAH in state.discard


def test_overthrow_losing_the_last_political_card_removes_the_tribes() -> None:
    """[The Overthrow Rule, p. 8] "if you lose the last political card in your court
    associated with a region, you must immediately remove all of your tribes in that
    region."
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .court("Cati", SHAH_SHUJAH, 61, 62, 63, 64)
        .tribes("Cati", "kabul", 3)
        .tribes("Cati", "herat", 1)
        .build()
    )
    state = act(state, "Cati", "pass", "discard shah shujah")
    assert state.tribes["kabul"] == [0, 0]
    assert state.tribes["herat"] == [1, 0]
    assert state.players[0].cylinders == 9


def test_overthrow_not_while_another_political_card_of_the_region_remains() -> None:
    """[The Overthrow Rule, p. 8] only "the last political card in your court associated
    with a region" removes the tribes.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .court("Cati", SHAH_SHUJAH, DOST_MOHAMMAD, 61, 62, 63, 64, 65)
        .tribes("Cati", "kabul", 3)
        .build()
    )
    state = act(state, "Cati", "pass", "discard shah shujah")
    assert state.tribes["kabul"] == [3, 0]
    assert state.players[0].court == [DOST_MOHAMMAD, 61, 62, 63, 64, 65]


def test_overthrow_not_while_another_tribe_remains() -> None:
    """[The Overthrow Rule, p. 8] only losing "your last tribe in a region" discards the
    political cards. (A Kabul tribe is taken to place a spy; another one is left.)
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .court("Cati", SHAH_SHUJAH)
        .tribes("Cati", "kabul", 2)
        .cylinders_left("Cati", 0, region="herat")
        .placed_this_turn("tribe:herat:0", 8)
        .hand("Cati", 4)
        .build()
    )
    state = act(state, "Cati", "play charles stoddart right", "spy 5")
    assert state.tribes["kabul"] == [1, 0]
    assert state.players[0].court == [SHAH_SHUJAH, 4]
    assert state.spies[SHAH_SHUJAH] == [1, 0]


def test_overthrow_rule_discarding_a_leveraged_political_card_also_costs_leverage() -> None:
    """[Discarding a Card in Your Court, p. 8] the rules on discarding "always take effect",
    also when the Overthrow Rule discards the card.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .market([REBUKE, *QUIET[1:]], QUIET_BOTTOM)
        .court("Cati", MAQPON_DYNASTY, 59)
        .tribes("Cati", "punjab", 2)
        .rupees("Cati", 5)
        .build()
    )
    state = act(state, "Cati", "purchase rebuke", "choose punjab")
    assert state.players[0].court == [59]
    assert state.players[0].rupees == 3
    assert state.tribes["punjab"] == [0, 0]
