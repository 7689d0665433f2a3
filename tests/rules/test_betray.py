"""Rule cases: the betray action and prizes [Betray, p. 14; Discarding a Card, p. 8]."""

from __future__ import annotations

import pytest
from positions import Position, act, options, waiting_for

import engine
from engine.invariants import violations

HARRY_FLASHMAN = 18  # Punjab, intelligence, rank 1: gift, betray (no prize)
KHYBER_PASS = 29  # Punjab, economic (no prize)
GHILZAI_NOMADS = 13  # Kabul, economic (Russian prize)
KARAKUL_SHEEP = 61  # Herat, economic (no prize)
NASRULLAH_KHAN = 90  # Transcaspia, political (British prize)
KHIVAN_SLAVE_MARKETS = 94  # Transcaspia, economic, leveraged (British prize)
BOLAN_PASS = 47  # Kandahar, economic (Russian prize)
HENRY_RAWLINSON = 20  # Punjab, British patriot
MIR_MURAD_BEG = 92  # Transcaspia (British prize)
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]


def cati_betrays(target: int, rupees: int = 4) -> Position:
    """Cati (British) holds Harry Flashman and has a spy on `target` in Hope's court."""
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .market(TOP, BOTTOM)
        .favored("military")
        .court("Cati", HARRY_FLASHMAN)
        .court("Hope", target)
        .spies("Cati", target, 1)
        .rupees("Cati", rupees)
        .rupees("Hope", 4)
    )


def influence(state: engine.State, name: str) -> int:
    influence: int = engine.view(state)["players"][state.seat(name)]["influence"]
    return influence


def test_betray_discards_the_card_and_always_costs_two() -> None:
    """[Betray, p. 14] "Discard one card where you have a Spy ... This action always costs
    two." [Action Costs, p. 12] The two rupees go to the rightmost card of each row.
    """
    state = act(cati_betrays(KHYBER_PASS).build(), "Cati", "betray 18 29")
    assert state.players[1].court == []
    assert KHYBER_PASS in state.discard
    assert state.players[0].rupees == 2
    assert state.market_rupees == [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]]
    assert waiting_for(state) == ("turn", ["Cati"])
    assert violations(state) == []


def test_betray_needs_two_rupees() -> None:
    """[Betray, p. 14] "This action always costs two."."""
    state = cati_betrays(KHYBER_PASS, rupees=1).build()
    assert not [o for o in options(state, "Cati") if o.startswith("betray")]


def test_betray_only_a_card_where_you_have_a_spy() -> None:
    """[Betray, p. 14] "Discard one card where you have a Spy"."""
    state = cati_betrays(KHYBER_PASS).court("Hope", GHILZAI_NOMADS).build()
    assert [o for o in options(state, "Cati") if o.startswith("betray")] == ["betray 18 29"]


def test_betray_a_card_in_your_own_court() -> None:
    """[Betray, p. 14] "Discard one card where you have a Spy (including cards in your own
    court)."
    """
    state = (
        cati_betrays(KHYBER_PASS)
        .court("Cati", KARAKUL_SHEEP)
        .spies("Cati", KARAKUL_SHEEP, 1)
        .build()
    )
    assert "betray 18 61" in options(state, "Cati")
    state = act(state, "Cati", "betray 18 61")
    assert state.players[0].court == [HARRY_FLASHMAN]
    assert KARAKUL_SHEEP in state.discard


def test_betray_every_spy_on_the_card_returns_to_its_owner() -> None:
    """[Betray, p. 14] "Any spies on the betrayed card are lost and returned to their owner's
    supply."
    """
    state = cati_betrays(KHYBER_PASS).spies("Hope", KHYBER_PASS, 2).build()
    state = act(state, "Cati", "betray 18 29")
    assert state.spies == {}
    assert [p.cylinders for p in state.players] == [10, 10]


def test_betray_a_leveraged_card_costs_its_owner_two_rupees() -> None:
    """[Betray, p. 14] "Reminder: Betrayals may trigger leveraged icons" [Discarding a Card,
    p. 8] "If the card had the leveraged icon, you must return two rupees to the supply."
    """
    state = cati_betrays(KHIVAN_SLAVE_MARKETS).build()
    bank = state.bank
    state = act(state, "Cati", "betray 18 94", "decline")
    assert state.players[1].rupees == 2
    assert state.bank == bank + 2
    assert state.players[0].rupees == 2


def test_betray_may_trigger_the_overthrow_rule() -> None:
    """[Betray, p. 14] "Reminder: Betrayals may trigger ... The Overthrow Rule" [p. 8] "if
    you lose the last political card in your court associated with a region, you must
    immediately remove all of your tribes in that region."
    """
    state = cati_betrays(NASRULLAH_KHAN).tribes("Hope", "transcaspia", 2).build()
    state = act(state, "Cati", "betray 18 90", "decline")
    assert state.tribes["transcaspia"] == [0, 0]
    assert state.players[1].cylinders == 10


def test_betray_a_prize_may_be_accepted() -> None:
    """[Betray, p. 14] "After the betrayed card is discarded, you may accept it as a prize,
    tucking it partially behind your loyalty dial."
    """
    state = act(cati_betrays(NASRULLAH_KHAN).build(), "Cati", "betray 18 90")
    assert waiting_for(state) == ("prize", ["Cati"])
    assert options(state, "Cati") == ["accept", "decline"]
    state = act(state, "Cati", "accept")
    assert state.players[0].prizes == [NASRULLAH_KHAN]
    assert NASRULLAH_KHAN not in state.discard
    assert state.players[0].loyalty == "british"
    assert influence(state, "Cati") == 2
    assert violations(state) == []


def test_betray_a_prize_may_be_declined() -> None:
    """[Betray, p. 14] "you may accept it as a prize" — or leave it discarded."""
    state = act(cati_betrays(NASRULLAH_KHAN).build(), "Cati", "betray 18 90", "decline")
    assert state.players[0].prizes == []
    assert NASRULLAH_KHAN in state.discard
    assert influence(state, "Cati") == 1
    assert waiting_for(state) == ("turn", ["Cati"])


def test_betray_a_card_without_a_prize_asks_nothing() -> None:
    """[Betray, p. 14] A card with no prize banner cannot be accepted as a prize."""
    state = act(cati_betrays(KHYBER_PASS).build(), "Cati", "betray 18 29")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.players[0].prizes == []


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_betray_a_prize_of_another_coalition_changes_loyalty_first(answer: str) -> None:
    """[Betray, p. 14] "If this prize is different from your current loyalty, first remove
    all gifts, prizes, and patriots in your court matching your previous loyalty, and rotate
    your loyalty dial to match the prize taken." Declining changes nothing.
    """
    state = (
        cati_betrays(BOLAN_PASS)
        .court("Cati", HENRY_RAWLINSON)
        .prizes("Cati", MIR_MURAD_BEG)
        .gifts("Cati", 1)
        .build()
    )
    assert influence(state, "Cati") == 4
    state = act(state, "Cati", "betray 18 47", answer)
    cati = state.players[0]
    if answer == "decline":
        assert cati.loyalty == "british"
        assert (cati.prizes, cati.gifts[0]) == ([MIR_MURAD_BEG], True)
        assert cati.court == [HARRY_FLASHMAN, HENRY_RAWLINSON]
        return
    assert cati.loyalty == "russian"
    assert cati.prizes == [BOLAN_PASS]
    assert cati.gifts == [False, False, False]
    assert cati.court == [HARRY_FLASHMAN]
    assert {HENRY_RAWLINSON, MIR_MURAD_BEG} <= set(state.discard)
    assert influence(state, "Cati") == 2
    assert violations(state) == []
