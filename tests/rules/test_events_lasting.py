"""Rule cases: events whose lasting effects change card-based actions [Purchase: Event
Cards, p. 10]: New Tactics, Nationalism and Nation Building. The effect texts are quoted
from engine/data/events.json (the bottom halves, for the purchaser).
"""

from __future__ import annotations

from positions import Position, act, options, waiting_for

from engine.invariants import violations

NEW_TACTICS = 105  # Military / New Tactics
NATIONALISM = 110  # Riots in Herat / Nationalism
NATION_BUILDING = 112  # Riots in Kabul / Nation Building
CUSTOMS = 107  # Disregard for Customs / Courtly Manners
DOMINANCE_CHECK = 101
COMPANY_WEAPONS = 31  # Punjab, military, rank 1: tax, betray
AKALI_SIKHS = 38  # Punjab, military, rank 2: battle
KHYBER_PASS = 29  # Punjab, economic, rank 2: tax, move
KANDAHARI_MARKETS = 49  # Kandahar, economic, rank 1: tax, build
DOST_MOHAMMAD = 7  # Kabul, political, no actions
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]


def event_in_market(event: int, *, second: int = TOP[1]) -> Position:
    """Cati (British) to move, Hope (Russian); `event` in the free leftmost column."""
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .market([event, second, *TOP[2:]], BOTTOM)
        .favored("economic")
        .rupees("Cati", 4)
        .rupees("Hope", 4)
    )


# New Tactics


def new_tactics(*, second: int = TOP[1]) -> Position:
    """Cati holds Company Weapons (military, tax); rupees lie on two market cards."""
    return (
        event_in_market(NEW_TACTICS, second=second)
        .market_rupees(0, 2, 2)
        .market_rupees(1, 2, 1)
        .court("Cati", COMPANY_WEAPONS)
    )


def test_new_tactics_military_cards_of_the_purchaser_count_as_favored() -> None:
    """[New Tactics, bottom] "Until the next Dominance Check, all Military cards in the
    purchaser's court count as favored." Company Weapons' tax becomes a bonus action.
    """
    state = act(new_tactics().build(), "Cati", "purchase 105", "purchase 84")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert options(state, "Cati") == ["tax 31", "pass"]
    state = act(state, "Cati", "tax 31", "collect 77")
    assert waiting_for(state) == ("turn", ["Hope"])
    assert state.favored == "economic"


def test_new_tactics_without_it_a_military_card_uses_an_action() -> None:
    """[Card-Based Actions: Bonus Actions, p. 12] Only cards matching the favored suit give
    bonus actions: with economic favored, Company Weapons' tax is one of the two actions.
    """
    state = act(new_tactics().build(), "Cati", "purchase 76", "purchase 84")
    assert waiting_for(state) == ("turn", ["Hope"])


def test_new_tactics_only_for_the_purchaser() -> None:
    """[New Tactics, bottom] "all Military cards in the purchaser's court count as
    favored" — not Hope's.
    """
    position = new_tactics().court("Hope", AKALI_SIKHS).armies("kandahar", "russian", 1)
    state = act(position.armies("kandahar", "british", 1).build(), "Cati", "purchase 105")
    state = act(state, "Cati", "pass")
    state = act(state, "Hope", "purchase 76", "purchase 84")
    assert waiting_for(state) == ("turn", ["Cati"])


def test_new_tactics_ends_with_the_next_dominance_check() -> None:
    """[New Tactics, bottom] "Until the next Dominance Check"."""
    state = act(new_tactics(second=DOMINANCE_CHECK).build(), "Cati", "purchase 105", "purchase 101")
    assert state.effects == [] and state.checks_resolved == 1
    assert waiting_for(state) == ("turn", ["Hope"])


# Nationalism


def test_nationalism_tribes_move_as_armies() -> None:
    """[Nationalism, bottom] "Until the next Dominance Check the purchaser's tribes can move
    and battle as though they were armies." (`march tribe FROM TO`, along a British road.)
    """
    position = (
        event_in_market(NATIONALISM)
        .court("Cati", KHYBER_PASS)
        .tribes("Cati", "kabul", 2)
        .roads("kabul-punjab", "british", 1)
        .roads("kabul-kandahar", "british", 1)
    )
    state = position.build()
    assert "move 29" not in options(state, "Cati")
    state = act(state, "Cati", "purchase 110", "move 29")
    assert waiting_for(state) == ("move", ["Cati"])
    assert options(state, "Cati") == ["march tribe kabul kandahar", "march tribe kabul punjab"]
    state = act(state, "Cati", "march tribe kabul punjab")
    assert state.tribes["kabul"] == [1, 0] and state.tribes["punjab"] == [1, 0]
    assert violations(state) == []


def test_nationalism_tribes_need_a_road_like_armies() -> None:
    """[Nationalism, bottom] "as though they were armies" [Move, p. 14] "there must be a road
    matching the loyalty of the moving army on the border being crossed."
    """
    position = (
        event_in_market(NATIONALISM)
        .court("Cati", KHYBER_PASS)
        .tribes("Cati", "kabul", 2)
        .roads("kabul-punjab", "russian", 1)
        .build()
    )
    state = act(position, "Cati", "purchase 110")
    assert "move 29" not in options(state, "Cati")


def test_nationalism_tribes_battle_as_armies() -> None:
    """[Nationalism, bottom] "the purchaser's tribes can move and battle as though they were
    armies." Two tribes let a rank-2 battle remove two Russian armies.
    """
    position = (
        event_in_market(NATIONALISM)
        .court("Cati", AKALI_SIKHS)
        .tribes("Cati", "kandahar", 2)
        .armies("kandahar", "russian", 2)
    )
    state = position.build()
    assert "battle 38 kandahar" not in options(state, "Cati")
    state = act(state, "Cati", "purchase 110", "battle 38 kandahar", "remove army russian")
    assert state.armies["kandahar"]["russian"] == 0
    assert state.tribes["kandahar"] == [2, 0]


def test_nationalism_a_tribe_leaving_its_last_region_triggers_the_overthrow_rule() -> None:
    """[The Overthrow Rule, p. 8] "if you lose your last tribe in a region, you must
    immediately discard all political cards associated with that region from your court."
    """
    position = (
        event_in_market(NATIONALISM)
        .court("Cati", KHYBER_PASS, DOST_MOHAMMAD)
        .tribes("Cati", "kabul", 1)
        .roads("kabul-punjab", "british", 1)
        .roads("kabul-kandahar", "british", 1)
    )
    state = act(position.build(), "Cati", "purchase 110", "move 29", "march tribe kabul punjab")
    assert state.players[0].court == [KHYBER_PASS]
    assert DOST_MOHAMMAD in state.discard


# Nation Building


def nation_building(rupees: int, event: int = NATION_BUILDING) -> Position:
    """Cati rules Kabul and holds Kandahari Markets (build)."""
    return (
        event_in_market(event)
        .favored("intelligence")
        .court("Cati", KANDAHARI_MARKETS)
        .tribes("Cati", "kabul", 1)
        .rupees("Cati", rupees)
    )


def test_nation_building_a_build_places_up_to_six_blocks() -> None:
    """[Nation Building, bottom] "Until the next Dominance Check the purchaser places double
    the normal number of blocks with each build action." [Build, p. 13] "two rupees per
    unit placed": every two rupees place two blocks, so six blocks cost six rupees.
    """
    state = act(nation_building(14).build(), "Cati", "purchase 112", "build 49")
    state = act(state, "Cati", *["army kabul"] * 5)
    assert waiting_for(state) == ("build", ["Cati"])
    state = act(state, "Cati", "road kabul-punjab")
    assert waiting_for(state) == ("turn", ["Hope"])
    assert state.armies["kabul"]["british"] == 5
    assert state.roads["kabul-punjab"]["british"] == 1
    assert state.players[0].rupees == 8
    assert violations(state) == []


def test_nation_building_without_it_three_blocks() -> None:
    """[Build, p. 13] "Place up to three armies and/or roads"."""
    state = act(nation_building(14, TOP[0]).build(), "Cati", "purchase 84", "build 49")
    state = act(state, "Cati", *["army kabul"] * 3)
    assert waiting_for(state) == ("turn", ["Hope"])
    assert state.armies["kabul"]["british"] == 3
    assert state.players[0].rupees == 8


# Bribes for hostage actions


def hostage(event: int) -> Position:
    """Hope holds Cati's Khyber Pass hostage with two spies; `event` leftmost in the market."""
    return (
        event_in_market(event)
        .favored("intelligence")
        .market_rupees(0, 2, 2)
        .market_rupees(1, 2, 1)
        .court("Cati", KHYBER_PASS)
        .spies("Hope", KHYBER_PASS, 2)
    )


def test_courtly_manners_the_purchaser_owes_no_hostage_bribe() -> None:
    """[Courtly Manners, bottom] "The purchaser may decline to pay any bribe until the next
    Dominance Check." [Hostage Actions, p. 12] The bribe for a hostage card is such a bribe.
    """
    state = act(hostage(CUSTOMS).build(), "Cati", "tax 29")
    assert waiting_for(state) == ("bribe", ["Hope"])
    state = act(hostage(CUSTOMS).build(), "Cati", "purchase 107", "tax 29")
    assert waiting_for(state) == ("tax", ["Cati"])
    assert state.players[1].rupees == 4


def test_disregard_for_customs_no_hostage_bribe_is_owed() -> None:
    """[Disregard for Customs, top] "No bribes are owed by anyone until the next Dominance
    Check." The event is discarded from the leftmost column at the end of Hope's turn.
    """
    state = hostage(CUSTOMS).active("Hope").build()
    state = act(state, "Hope", "pass")
    assert [e["id"] for e in state.effects] == ["disregard_for_customs"]
    state = act(state, "Cati", "tax 29")
    assert waiting_for(state) == ("tax", ["Cati"])
    assert state.players[1].rupees == 4
