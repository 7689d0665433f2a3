"""The standing policies a player's own section offers (adjudicator/games/hints.py): each
where it spares a round trip, and nowhere else [Play, p. 11; Ruling a Region, p. 7]."""

from __future__ import annotations

from positions import Position

import engine
from adjudicator.games.hints import policy_hints

KHYBER_PASS = 29  # Punjab: two roads, no tribe
PAOLO_AVITABILE = 26  # Punjab: a tribe and an army
HARI_SINGH_NALWA = 35  # Punjab: two armies and favor, no tribe

DEMAND = "`policy demand PLAYER N`"
PAY = "`policy pay N`"


def offered(state: engine.State, name: str) -> list[str]:
    return [str(hint) for hint in policy_hints(state, state.seat(name))]


def test_a_player_whose_play_may_place_a_tribe_is_offered_demand_before_ruling() -> None:
    """Paolo Avitabile places a tribe in Punjab: Cati may rule it by the end of her turn,
    and Hope could then play there before Cati's next turn mail."""
    state = (
        Position({"Cati": "british", "Hope": "russian", "Liu": "afghan"})
        .hand("Cati", PAOLO_AVITABILE)
        .build()
    )
    [hint] = offered(state, "Cati")
    assert hint.startswith("This turn may make you rule a region")
    assert DEMAND in hint and "Hope, Liu" in hint


def test_a_player_who_rules_is_told_which_regions() -> None:
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", KHYBER_PASS)
        .tribes("Cati", "punjab", 1)
        .build()
    )
    [hint] = offered(state, "Cati")
    assert hint.startswith("You rule Punjab") and "for each of Hope" in hint


def test_no_tribe_and_no_play_placing_one_offers_no_demand() -> None:
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", KHYBER_PASS, HARI_SINGH_NALWA)
        .build()
    )
    assert offered(state, "Cati") == []


def test_demand_is_offered_no_more_once_set_for_every_other_player() -> None:
    state = Position({"Cati": "british", "Hope": "russian"}).hand("Cati", PAOLO_AVITABILE).build()
    state.players[state.seat("Cati")].policy_demand[state.seat("Hope")] = 1
    assert offered(state, "Cati") == []


def test_a_mover_may_be_offered_both_demand_and_pay() -> None:
    """Hope rules Punjab with two tribes: Cati's play there owes her a bribe (pay), and
    Paolo Avitabile's tribe may later make Cati a ruler herself (demand)."""
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", PAOLO_AVITABILE)
        .tribes("Hope", "punjab", 2)
        .rupees("Cati", 4)
        .build()
    )
    hints = offered(state, "Cati")
    assert len(hints) == 2
    assert DEMAND in hints[0] and PAY in hints[1]


def test_a_player_waiting_for_another_is_offered_nothing() -> None:
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Hope", PAOLO_AVITABILE)
        .tribes("Hope", "punjab", 1)
        .build()
    )
    assert offered(state, "Hope") == []
