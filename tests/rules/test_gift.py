"""Rule cases: the gift action [Gift, p. 13; Loyalty and Influence, p. 7]."""

from __future__ import annotations

import pytest
from positions import Position, act, options, waiting_for

import engine
from engine.invariants import violations

BANK = 46  # Kandahar, economic, rank 2: gift
CITY_OF_GHAZNI = 12  # Kabul, economic, rank 3: gift
SUPPLIES_FROM_ORENBURG = 95  # Transcaspia, Russian patriot: road
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]


def cati_with_the_bank(rupees: int) -> Position:
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .market(TOP, BOTTOM)
        .favored("intelligence")
        .court("Cati", BANK)
        .rupees("Cati", rupees)
    )


def influence(state: engine.State, name: str) -> int:
    influence: int = engine.view(state)["players"][state.seat(name)]["influence"]
    return influence


@pytest.mark.parametrize(("price", "slot"), [(2, 0), (4, 1), (6, 2)])
def test_gift_costs_the_marked_price_of_the_gift_placed(price: int, slot: int) -> None:
    """[Gift, p. 13] "Place one of your cylinders on one of your empty gift spaces on your
    loyalty dial. ... The cost of this action is equal to the marked price of the gift placed
    (2, 4, or 6)."
    """
    state = cati_with_the_bank(6).build()
    assert sorted(o for o in options(state, "Cati") if o.startswith("gift")) == [
        "gift 46 2",
        "gift 46 4",
        "gift 46 6",
    ]
    state = act(state, "Cati", f"gift 46 {price}")
    cati = state.players[0]
    assert cati.gifts == [i == slot for i in range(3)]
    assert cati.rupees == 6 - price
    assert cati.cylinders == 9
    assert sum(map(sum, state.market_rupees)) == price
    assert waiting_for(state) == ("turn", ["Cati"])
    assert violations(state) == []


def test_gift_each_gift_counts_one_influence() -> None:
    """[Gift, p. 13] "Each gift will count as one influence point in your current
    coalition."
    """
    state = cati_with_the_bank(10).court("Cati", CITY_OF_GHAZNI).build()
    assert influence(state, "Cati") == 1
    state = act(state, "Cati", "gift 46 2")
    assert influence(state, "Cati") == 2
    state = act(state, "Cati", "gift 12 6")
    assert influence(state, "Cati") == 3
    assert state.players[0].gifts == [True, False, True]


def test_gift_only_on_an_empty_gift_space() -> None:
    """[Gift, p. 13] "one of your empty gift spaces"."""
    state = cati_with_the_bank(6).gifts("Cati", 1).build()
    assert [o for o in options(state, "Cati") if o.startswith("gift")] == [
        "gift 46 4",
        "gift 46 6",
    ]


@pytest.mark.parametrize(("rupees", "gifts"), [(1, []), (3, ["gift 46 2"])])
def test_gift_the_price_must_be_paid(rupees: int, gifts: list[str]) -> None:
    """[Gift, p. 13] "The cost of this action is equal to the marked price of the gift"."""
    state = cati_with_the_bank(rupees).build()
    assert [o for o in options(state, "Cati") if o.startswith("gift")] == gifts


def test_gift_gifts_are_lost_whenever_you_change_loyalty() -> None:
    """[Gift, p. 13] "Reminder: Gifts are lost whenever you change loyalty!" [Play, p. 11]
    "If the card is a patriot that does not match your loyalty, ... remove any gifts."
    """
    state = cati_with_the_bank(6).hand("Cati", SUPPLIES_FROM_ORENBURG).build()
    state = act(state, "Cati", "gift 46 2")
    assert influence(state, "Cati") == 2
    state = act(state, "Cati", "play 95 right")
    state = act(state, "Cati", "road persia-transcaspia")
    cati = state.players[0]
    assert cati.loyalty == "russian"
    assert cati.gifts == [False, False, False]
    assert cati.cylinders == 10
    assert state.roads["persia-transcaspia"]["russian"] == 1
    assert influence(state, "Cati") == 2  # one, plus the Russian patriot
    assert violations(state) == []
