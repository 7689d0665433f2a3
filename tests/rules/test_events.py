"""Rule cases: event cards [Cards, p. 3; Purchase: Event Cards, p. 10; Cleanup, p. 9].

Each event's halves are quoted from the card data (engine/data/events.json): the top half
applies to everyone when the card is discarded from the leftmost market column, the bottom
half to its purchaser.
"""

from __future__ import annotations

import pytest
from positions import Position, act, options, waiting_for

import engine
from engine import NotationError
from engine.cards import RegionId

EMBARRASSMENT = 106  # Embarrassment of Riches / Koh-i-noor Recovered
CUSTOMS = 107  # Disregard for Customs / Courtly Manners
IMPRESS = 108  # Failure to Impress / Rumor
PUNJAB_RIOTS = 109  # Riots in Punjab / Conflict Fatigue
NO_EFFECT = 111  # No Effect / Public Withdrawal
PERSIA_RIOTS = 113  # Riots in Persia / Backing of Persian Aristocracy
CONFIDENCE = 114  # Confidence Failure / Other Persuasive Methods
PASHTUNWALI = 115  # Intelligence / Pashtunwali Values
REBUKE = 116  # Political / Rebuke
TOP = [61, 62, 63, 64, 65, 60]
BOTTOM = [67, 9, 10, 12, 13, 14]
RUSSIAN_PATRIOTS = (95, 84, 100)
KHYBER_PASS = 29  # Punjab: road, road


def with_market(players: dict[str, str], top0: int | None, bottom0: int | None = None) -> Position:
    """Events in the leftmost column (where cleanup discards them and they cost nothing)."""
    return Position(players).market(
        [top0 if top0 is not None else TOP[0], *TOP[1:]],
        [bottom0 if bottom0 is not None else BOTTOM[0], *BOTTOM[1:]],
    )


def influence(state: engine.State, name: str) -> int:
    influence: int = engine.view(state)["players"][state.seat(name)]["influence"]
    return influence


@pytest.mark.parametrize(
    ("card", "region", "border"),
    [
        (PUNJAB_RIOTS, "punjab", "kabul-punjab"),
        (110, "herat", "herat-kabul"),
        (112, "kabul", "herat-kabul"),
        (PERSIA_RIOTS, "persia", "herat-persia"),
    ],
)
def test_event_riots_remove_every_tribe_and_army_in_the_region(
    card: int, region: RegionId, border: str
) -> None:
    """[Riots in Punjab / Herat / Kabul / Persia, top] "Every tribe and army in <region> is
    removed." Roads are on borders, not in the region, and stay.
    """
    state = (
        with_market({"Cati": "british", "Hope": "russian"}, card)
        .tribes("Cati", region, 2)
        .tribes("Hope", region, 1)
        .armies(region, "british", 2)
        .armies(region, "afghan", 1)
        .roads(border, "russian", 1)
        .tribes("Cati", "kandahar", 1)
        .armies("kandahar", "british", 1)
        .build()
    )
    state = act(state, "Cati", "pass")
    assert state.tribes[region] == [0, 0]
    assert state.armies[region] == {"afghan": 0, "british": 0, "russian": 0}
    assert state.roads[border]["russian"] == 1
    assert state.tribes["kandahar"] == [1, 0]
    assert state.armies["kandahar"]["british"] == 1
    assert [p.cylinders for p in state.players] == [9, 10]
    assert card in state.discard


def test_event_failure_to_impress_every_player_discards_their_prizes() -> None:
    """[Failure to Impress, top] "Every player discards all of their loyalty prizes."."""
    state = (
        with_market({"Cati": "afghan", "Hope": "russian", "Blake": "british"}, IMPRESS)
        .prizes("Cati", 4, 5)
        .prizes("Hope", 2)
        .build()
    )
    assert influence(state, "Cati") == 3
    state = act(state, "Cati", "pass")
    assert [p.prizes for p in state.players] == [[], [], []]
    assert {2, 4, 5, IMPRESS} <= set(state.discard)
    assert influence(state, "Cati") == 1
    assert state.players[0].loyalty == "afghan"


def test_event_confidence_failure_players_discard_from_hand_at_once() -> None:
    """[Confidence Failure, top] "Each player at once discards one card from their hand (if
    they have one)." Every player with a hand decides at the same time, in any order.
    """
    state = (
        with_market({"Cati": "afghan", "Hope": "russian", "Blake": "british"}, CONFIDENCE)
        .hand("Cati", 30, 31)
        .hand("Hope", 32, 33)
        .build()
    )
    state = act(state, "Cati", "pass")
    assert waiting_for(state) == ("discard_each", ["Cati", "Hope"])
    assert options(state, "Blake") == []
    with pytest.raises(NotationError) as caught:
        engine.parse_line("discard 32", state)
    assert caught.value.code == "which-player"
    parsed = engine.parse_line("Hope: discard 32", state)
    assert parsed is not None
    seat, action = parsed
    state = engine.apply(state, seat, action)
    assert waiting_for(state) == ("discard_each", ["Cati"])
    state = act(state, "Cati", "discard 31")
    assert [p.hand for p in state.players] == [[30], [33], []]
    assert {31, 32} <= set(state.discard)
    assert waiting_for(state) == ("turn", ["Hope"])


def test_event_backing_of_persian_aristocracy_gives_three_rupees() -> None:
    """[Backing of Persian Aristocracy, bottom] "The purchaser gains three rupees from the
    bank."
    """
    state = with_market({"Cati": "afghan", "Hope": "russian"}, PERSIA_RIOTS).build()
    bank = state.bank
    state = act(state, "Cati", "purchase backing")
    assert state.players[0].rupees == 7
    assert state.bank == bank - 3


def test_event_rebuke_removes_every_tribe_and_army_in_the_chosen_region() -> None:
    """[Rebuke, bottom] "The purchaser picks one region and removes every tribe and army
    there."
    """
    state = (
        with_market({"Cati": "afghan", "Hope": "russian"}, REBUKE)
        .tribes("Hope", "herat", 2)
        .armies("herat", "russian", 3)
        .roads("herat-kabul", "russian", 1)
        .tribes("Hope", "kabul", 1)
        .build()
    )
    state = act(state, "Cati", "purchase rebuke")
    assert waiting_for(state) == ("choose", ["Cati"])
    assert sorted(options(state, "Cati")) == sorted(
        f"choose {r}" for r in ("transcaspia", "persia", "herat", "kabul", "kandahar", "punjab")
    )
    state = act(state, "Cati", "choose herat")
    assert state.tribes["herat"] == [0, 0]
    assert state.armies["herat"]["russian"] == 0
    assert state.roads["herat-kabul"]["russian"] == 1
    assert state.tribes["kabul"] == [0, 1]
    assert REBUKE in state.discard


def test_event_other_persuasive_methods_swaps_hands_with_another_player() -> None:
    """[Other Persuasive Methods, bottom] "The purchaser swaps their entire hand with another
    player's hand; either hand may be empty."
    """
    state = (
        with_market({"Cati": "afghan", "Hope": "russian", "Blake": "british"}, None, CONFIDENCE)
        .hand("Cati", 30)
        .hand("Hope", 31, 32)
        .build()
    )
    state = act(state, "Cati", "purchase other persuasive")
    assert sorted(options(state, "Cati")) == ["choose Blake", "choose Hope"]
    state = act(state, "Cati", "choose hope")
    assert [p.hand for p in state.players] == [[31, 32], [30], []]
    state = (
        with_market({"Cati": "afghan", "Hope": "russian", "Blake": "british"}, None, CONFIDENCE)
        .hand("Cati", 30)
        .build()
    )
    state = act(state, "Cati", "purchase other persuasive", "choose blake")
    assert [p.hand for p in state.players] == [[], [], [30]]


def test_event_rumor_the_chosen_player_patriots_give_no_influence() -> None:
    """[Rumor, bottom] "The purchaser picks a player whose patriots give no influence until
    the next Dominance Check has been resolved."
    """
    state = (
        with_market({"Cati": "russian", "Hope": "russian"}, IMPRESS, 101)
        .court("Cati", *RUSSIAN_PATRIOTS[:2])
        .gifts("Hope", 1)
        .armies("transcaspia", "russian", 4)
        .vp("Cati", 1)
        .active("Hope")
        .build()
    )
    assert influence(state, "Cati") == 3
    state = act(state, "Hope", "purchase rumor")
    assert options(state, "Hope") == ["choose Cati", "choose Hope"]
    state = act(state, "Hope", "choose cati")
    assert influence(state, "Cati") == 1
    state = act(state, "Hope", "purchase 101")
    assert [p.vp for p in state.players] == [1 + 3, 5]
    assert influence(state, "Cati") == 3
    assert IMPRESS in state.discard


def test_event_pashtunwali_values_sets_the_suit_and_blocks_favored_suit_icons() -> None:
    """[Pashtunwali Values, bottom] "The purchaser sets the favored suit of their choice, and
    favored-suit-change impact icons have no effect until the next Dominance Check."
    """
    state = with_market({"Cati": "afghan", "Hope": "russian"}, PASHTUNWALI).hand("Cati", 10).build()
    state = act(state, "Cati", "purchase pashtunwali")
    assert sorted(options(state, "Cati")) == [
        "choose economic", "choose intelligence", "choose military", "choose political"
    ]  # fmt: skip
    state = act(state, "Cati", "choose economic")
    assert state.favored == "economic"
    state = act(state, "Cati", "play balkh left", "road herat-kabul")
    assert state.favored == "economic"


def test_event_pashtunwali_values_ends_after_the_next_dominance_check() -> None:
    """[Pashtunwali Values, bottom] "... until the next Dominance Check." After it, favored
    suit icons work again.
    """
    state = (
        with_market({"Cati": "afghan", "Hope": "russian"}, PASHTUNWALI, 101)
        .hand("Hope", 10)
        .tribes("Cati", "kabul", 1)
        .tribes("Hope", "kabul", 1)
        .build()
    )
    state = act(state, "Cati", "purchase pashtunwali", "choose economic", "purchase 101")
    assert state.effects == []
    assert PASHTUNWALI in state.discard
    state = act(state, "Hope", "play balkh left", "road herat-kabul")
    assert state.favored == "military"


def test_event_conflict_fatigue_a_lead_of_two_blocks_is_dominant() -> None:
    """[Conflict Fatigue, bottom] "At the next Dominance Check a coalition needs a lead of
    only two blocks (instead of four) to be dominant."
    """
    state = (
        with_market({"Cati": "british", "Hope": "russian"}, PUNJAB_RIOTS, 101)
        .armies("kabul", "british", 6)
        .armies("punjab", "russian", 4)
        .tribes("Hope", "herat", 3)
        .vp("Hope", 2)
        .build()
    )
    state = act(state, "Cati", "purchase conflict fatigue", "purchase 101")
    assert [p.vp for p in state.players] == [5, 2]
    assert state.armies["kabul"]["british"] == 0
    assert state.effects == []


def test_event_conflict_fatigue_a_lead_of_one_block_is_not_enough() -> None:
    """[Conflict Fatigue, bottom] "a lead of only two blocks" — one is still too few."""
    state = (
        with_market({"Cati": "british", "Hope": "russian"}, PUNJAB_RIOTS, 101)
        .armies("kabul", "british", 5)
        .armies("punjab", "russian", 4)
        .tribes("Hope", "herat", 3)
        .build()
    )
    state = act(state, "Cati", "purchase conflict fatigue", "purchase 101")
    assert [p.vp for p in state.players] == [1, 3]
    assert state.armies["kabul"]["british"] == 5


def test_event_disregard_for_customs_no_bribes_until_the_next_check() -> None:
    """[Disregard for Customs, top] "No bribes are owed by anyone until the next Dominance
    Check."
    """
    state = (
        with_market({"Cati": "british", "Hope": "russian"}, CUSTOMS)
        .tribes("Cati", "punjab", 2)
        .hand("Hope", KHYBER_PASS)
        .build()
    )
    state = act(state, "Cati", "pass")
    assert [e["id"] for e in state.effects] == ["disregard_for_customs"]
    state = act(state, "Hope", "play khyber left")
    assert waiting_for(state) == ("road", ["Hope"])
    assert state.players[1].rupees == 4


def test_event_disregard_for_customs_ends_with_the_dominance_check() -> None:
    """[Disregard for Customs, top] "until the next Dominance Check": afterwards bribes are
    owed again.
    """
    state = (
        with_market({"Cati": "british", "Hope": "russian"}, CUSTOMS)
        .market([CUSTOMS, 101, *TOP[2:]], BOTTOM)
        .tribes("Cati", "punjab", 2)
        .tribes("Hope", "kabul", 1)
        .hand("Hope", KHYBER_PASS)
        .build()
    )
    state = act(state, "Cati", "pass")
    assert [e["id"] for e in state.effects] == ["disregard_for_customs"]
    state = act(state, "Hope", "purchase 101")
    assert state.effects == []
    state = act(state, "Hope", "play khyber left")
    assert waiting_for(state) == ("bribe", ["Cati"])


def test_event_courtly_manners_the_purchaser_owes_no_bribe() -> None:
    """[Courtly Manners, bottom] "The purchaser may decline to pay any bribe until the next
    Dominance Check." Other players still owe bribes.
    """
    state = (
        with_market({"Cati": "british", "Hope": "russian", "Blake": "afghan"}, CUSTOMS)
        .tribes("Blake", "punjab", 2)
        .hand("Cati", KHYBER_PASS)
        .hand("Hope", 28)
        .build()
    )
    state = act(state, "Cati", "purchase courtly manners", "play khyber left")
    assert waiting_for(state) == ("road", ["Cati"])
    state = act(state, "Cati", "road kabul-punjab", "road kabul-punjab")
    assert state.players[0].rupees == 4
    state = act(state, "Hope", "play anarkali left")
    assert waiting_for(state) == ("bribe", ["Blake"])


def test_event_embarrassment_of_riches_gifts_give_no_influence() -> None:
    """[Embarrassment of Riches, top] "Gifts give no influence to anyone until the next
    Dominance Check has been resolved."
    """
    state = (
        Position({"Cati": "russian", "Hope": "russian"})
        .market([EMBARRASSMENT, 101, *TOP[2:]], BOTTOM)
        .gifts("Cati", 2)
        .court("Hope", RUSSIAN_PATRIOTS[0])
        .armies("transcaspia", "russian", 4)
        .vp("Cati", 1)
        .build()
    )
    assert (influence(state, "Cati"), influence(state, "Hope")) == (3, 2)
    state = act(state, "Cati", "pass")
    assert (influence(state, "Cati"), influence(state, "Hope")) == (1, 2)
    state = act(state, "Hope", "purchase 101")
    assert [p.vp for p in state.players] == [1 + 3, 5]
    assert influence(state, "Cati") == 3


def test_event_koh_i_noor_recovered_each_gift_counts_one_more() -> None:
    """[Koh-i-noor Recovered, bottom] "Each of the purchaser's gifts counts for one extra
    influence point until the next Dominance Check has been resolved."
    """
    state = (
        with_market({"Cati": "russian", "Hope": "russian"}, EMBARRASSMENT, 101)
        .gifts("Cati", 2)
        .gifts("Hope", 1)
        .court("Hope", *RUSSIAN_PATRIOTS)
        .armies("transcaspia", "russian", 4)
        .vp("Hope", 2)
        .build()
    )
    assert (influence(state, "Cati"), influence(state, "Hope")) == (3, 5)
    state = act(state, "Cati", "purchase koh")
    assert (influence(state, "Cati"), influence(state, "Hope")) == (5, 5)
    state = (
        with_market({"Cati": "russian", "Hope": "russian"}, EMBARRASSMENT, 101)
        .gifts("Cati", 3)
        .gifts("Hope", 1)
        .court("Hope", *RUSSIAN_PATRIOTS)
        .armies("transcaspia", "russian", 4)
        .vp("Hope", 2)
        .build()
    )
    state = act(state, "Cati", "purchase koh", "purchase 101")
    assert [p.vp for p in state.players] == [5, 2 + 3]
    assert influence(state, "Cati") == 4


@pytest.mark.parametrize(
    ("card", "suit"), [(105, "military"), (PASHTUNWALI, "intelligence"), (REBUKE, "political")]
)
def test_event_favored_suit_events_move_the_marker_when_discarded(card: int, suit: str) -> None:
    """[Military / Intelligence / Political, top] "The favored suit marker moves to
    <suit>."
    """
    position = with_market({"Cati": "british", "Hope": "russian"}, card).favored("economic")
    state = act(position.build(), "Cati", "pass")
    assert state.favored == suit
    assert card in state.discard


def test_event_no_effect_changes_nothing() -> None:
    """[No Effect, top] "Nothing happens." (The card is simply discarded.)"""
    state = with_market({"Cati": "british", "Hope": "russian"}, NO_EFFECT).build()
    before = engine.to_dict(state)
    state = act(state, "Cati", "pass")
    after = engine.to_dict(state)
    assert NO_EFFECT in state.discard
    for key in ("favored", "bank", "effects", "tribes", "armies", "roads", "spies"):
        assert after[key] == before[key]
    assert [p["rupees"] for p in after["players"]] == [p["rupees"] for p in before["players"]]


def test_event_lasting_effect_cards_are_discarded_when_the_check_resolves() -> None:
    """[Purchase: Event Cards, p. 10] "Many event cards have a persistent effect that lasts
    until the next Dominance Check is resolved."
    """
    state = (
        with_market({"Cati": "british", "Hope": "russian"}, CUSTOMS, 101)
        .tribes("Cati", "kabul", 1)
        .tribes("Hope", "kabul", 1)
        .build()
    )
    state = act(state, "Cati", "purchase courtly manners")
    assert state.effects[0]["id"] == "courtly_manners"
    assert CUSTOMS not in state.discard
    state = act(state, "Cati", "purchase 101")
    assert state.effects == []
    assert CUSTOMS in state.discard
