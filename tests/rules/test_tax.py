"""Rule cases: the tax action and the tax shelter [Tax, p. 13]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

from engine.invariants import violations

KARAKUL_SHEEP = 61  # Herat, economic, rank 2: tax
BALA_HISSAR = 16  # Kabul, military, rank 1: tax, betray
MONEY_LENDERS = 14  # Kabul, economic, rank 2 (two gold stars)
AFGHAN_HANDICRAFTS = 9  # Kabul, economic, rank 1
KHYBER_PASS = 29  # Punjab, economic, rank 2
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]


def tax_example(brooke_rupees: int = 3) -> Position:
    """[Tax example, p. 13] Cati rules Kabul and holds a rank-2 tax card; Brooke has Money
    Lenders (Kabul, two gold stars) in court; rupees lie on two market cards.
    """
    return (
        Position({"Cati": "british", "Brooke": "russian"})
        .market(TOP, BOTTOM)
        .market_rupees(0, 2, 1)
        .market_rupees(1, 4, 2)
        .favored("intelligence")
        .court("Cati", KARAKUL_SHEEP)
        .tribes("Cati", "kabul", 1)
        .court("Brooke", MONEY_LENDERS)
        .rupees("Cati", 0)
        .rupees("Brooke", brooke_rupees)
    )


def test_tax_example_one_rupee_from_brooke_one_from_the_market() -> None:
    """[Tax example, p. 13] "Cati takes a tax action with a rank two card. She rules Kabul.
    Since Cati rules Kabul, she can take one rupee from Brooke who has a court card in that
    region. Brooke's other rupees are protected by her Money Lender's Tax Shelter. Cati takes
    the other rupee from the market."
    """
    state = act(tax_example().build(), "Cati", "tax 61")
    assert waiting_for(state) == ("tax", ["Cati"])
    assert sorted(options(state, "Cati")) == ["collect 77", "collect 88", "collect Brooke"]
    state = act(state, "Cati", "collect brooke")
    assert "collect Brooke" not in options(state, "Cati")
    state = act(state, "Cati", "collect 88")
    cati, brooke = state.players
    assert (cati.rupees, brooke.rupees) == (2, 2)
    assert state.market_rupees[1][4] == 1 and state.market_rupees[0][2] == 1
    assert waiting_for(state) == ("turn", ["Cati"])
    assert violations(state) == []


def test_tax_at_most_the_rank_of_the_acting_card() -> None:
    """[Tax, p. 13] "Take rupees up to the acting card's rank ... You may take rupees from
    several sources so long as the total taken does not exceed the rank of the acting card."
    """
    state = tax_example(brooke_rupees=9).court("Cati", BALA_HISSAR).build()
    state = act(state, "Cati", "tax 16", "collect brooke")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.players[0].rupees == 1
    state = act(state, "Cati", "tax 61", "collect brooke", "collect brooke")
    assert state.players[0].rupees == 3
    assert state.players[1].rupees == 6


def test_tax_may_stop_early() -> None:
    """[Tax, p. 13] "Take rupees up to the acting card's rank"."""
    state = act(tax_example().build(), "Cati", "tax 61", "collect 77")
    assert "done" in options(state, "Cati")
    state = act(state, "Cati", "done")
    assert state.players[0].rupees == 1
    assert waiting_for(state) == ("turn", ["Cati"])


def test_tax_the_tax_shelter_protects_rupees_up_to_the_gold_stars() -> None:
    """[Tax: Tax Shelter, p. 13] "Only rupees you hold in excess of your Tax Shelter are
    vulnerable to the Tax Action." Brooke's two rupees under two gold stars are safe.
    """
    state = act(tax_example(brooke_rupees=2).build(), "Cati", "tax 61")
    assert "collect Brooke" not in options(state, "Cati")
    state = act(tax_example(brooke_rupees=5).build(), "Cati", "tax 61")
    state = act(state, "Cati", "collect brooke", "collect brooke")
    assert state.players[1].rupees == 3


def test_tax_the_tax_shelter_is_the_sum_of_gold_stars() -> None:
    """[Tax: Tax Shelter, p. 13] "The total number of gold stars in your court indicates the
    amount of rupees you can shelter" — Money Lenders (2) and Afghan Handicrafts (1).
    """
    position = tax_example(brooke_rupees=3).court("Brooke", AFGHAN_HANDICRAFTS)
    state = act(position.build(), "Cati", "tax 61")
    assert "collect Brooke" not in options(state, "Cati")


def test_tax_only_players_with_a_court_card_of_a_region_you_rule() -> None:
    """[Tax, p. 13] "from players with at least one court card associated with a region you
    rule". Hope's only card is of Punjab, which Cati does not rule.
    """
    position = (
        Position({"Cati": "british", "Brooke": "russian", "Hope": "afghan"})
        .market(TOP, BOTTOM)
        .market_rupees(0, 2, 1)
        .court("Cati", KARAKUL_SHEEP)
        .tribes("Cati", "kabul", 1)
        .court("Brooke", AFGHAN_HANDICRAFTS)
        .court("Hope", KHYBER_PASS)
        .rupees("Brooke", 5)
        .rupees("Hope", 5)
    )
    state = act(position.build(), "Cati", "tax 61")
    legal = options(state, "Cati")
    assert "collect Brooke" in legal and "collect Hope" not in legal
    position.tribes("Cati", "punjab", 1)
    state = act(position.build(), "Cati", "tax 61")
    assert "collect Hope" in options(state, "Cati")


def test_tax_ruling_requires_more_ruling_pieces_than_anyone() -> None:
    """[Tax, p. 13] "a region you rule" — with Brooke's tribe tying Cati's in Kabul, no one
    rules it and Brooke cannot be taxed.
    """
    state = tax_example(brooke_rupees=5).tribes("Brooke", "kabul", 1).build()
    state = act(state, "Cati", "tax 61")
    assert sorted(options(state, "Cati")) == ["collect 77", "collect 88"]


def test_tax_from_any_market_card_regardless_of_region() -> None:
    """[Tax, p. 13] "or any card(s) in the market (regardless of their region)"."""
    state = (
        Position({"Cati": "british", "Brooke": "russian"})
        .market(TOP, BOTTOM)
        .market_rupees(0, 0, 1)
        .market_rupees(0, 5, 1)
        .market_rupees(1, 3, 1)
        .court("Cati", KARAKUL_SHEEP)
        .build()
    )
    state = act(state, "Cati", "tax 61")
    assert sorted(options(state, "Cati")) == ["collect 75", "collect 81", "collect 87"]
    state = act(state, "Cati", "collect 81", "collect 75")
    assert state.market_rupees == [[0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0]]
    assert state.players[0].rupees == 4 + 2
