"""Facts of the game data loaded by engine.cards."""

import dataclasses
from collections import Counter
from typing import Any, get_args

import pytest
from pydantic import BaseModel, ValidationError

from engine import card_schema
from engine.cards import (
    BORDERS,
    COALITIONS,
    COURT_CARDS,
    DOMINANCE_CHECKS,
    EVENT_CARDS,
    REGION_IDS,
    REGIONS,
    SUITS,
    WAKHAN_ACTION_TEXTS,
    WAKHAN_CARDS,
    ActionKind,
    Impact,
    ImpactKind,
    card_name,
    is_event,
)
from engine.rules.card_based import CARD_ACTIONS
from engine.rules.play import IMPACTS

CARDS = list(COURT_CARDS.values())


def test_every_card_based_action_printed_on_a_card_has_its_row() -> None:
    assert set(CARD_ACTIONS) == set(get_args(ActionKind))
    assert all(verb == row.verb for verb, row in CARD_ACTIONS.items())


def test_every_impact_icon_has_its_effect() -> None:
    assert set(IMPACTS) == set(get_args(ImpactKind))


def test_one_hundred_court_cards_numbered_1_to_100() -> None:
    assert list(COURT_CARDS) == list(range(1, 101))
    assert all(number == card.number for number, card in COURT_CARDS.items())


def test_cards_per_suit() -> None:
    counts = Counter(card.suit for card in CARDS)
    assert counts == {"economic": 28, "intelligence": 25, "military": 24, "political": 23}


def test_cards_per_region() -> None:
    counts = Counter(card.region for card in CARDS)
    assert counts == {
        "kabul": 17,
        "punjab": 21,
        "kandahar": 15,
        "herat": 14,
        "persia": 17,
        "transcaspia": 16,
    }


def test_cards_are_grouped_by_region_in_number_order() -> None:
    regions_in_number_order = list(dict.fromkeys(card.region for card in CARDS))
    assert regions_in_number_order == [
        "kabul",
        "punjab",
        "kandahar",
        "herat",
        "persia",
        "transcaspia",
    ]


def test_ranks() -> None:
    assert Counter(card.rank for card in CARDS) == {1: 56, 2: 39, 3: 5}


def test_patriots() -> None:
    counts = Counter(card.patriot for card in CARDS if card.patriot is not None)
    assert counts == {"british": 13, "russian": 10, "afghan": 7}


def test_prizes() -> None:
    counts = Counter(card.prize for card in CARDS if card.prize is not None)
    assert counts == {"afghan": 18, "british": 17, "russian": 17}


def test_special_abilities() -> None:
    with_ability = [card for card in CARDS if card.ability is not None]
    assert len(with_ability) == 22
    assert len({card.ability.id for card in with_ability if card.ability is not None}) == 20


def test_shared_special_abilities() -> None:
    def numbers_with(ability_id: str) -> list[int]:
        return [c.number for c in CARDS if c.ability is not None and c.ability.id == ability_id]

    assert numbers_with("bodyguards") == [15, 83]
    assert numbers_with("safe_house") == [41, 72]
    assert numbers_with("citadel_kabul") == [17]
    assert numbers_with("citadel_transcaspia") == [97]


def test_action_icon_counts() -> None:
    counts = Counter(action for card in CARDS for action in card.actions)
    assert counts == {"move": 37, "battle": 31, "tax": 31, "build": 23, "gift": 22, "betray": 22}


def test_cards_by_number_of_actions() -> None:
    assert Counter(len(card.actions) for card in CARDS) == {0: 2, 1: 37, 2: 54, 3: 7}


def test_impact_icon_counts() -> None:
    counts = Counter(impact.kind for card in CARDS for impact in card.impacts)
    assert counts == {"army": 55, "spy": 51, "road": 45, "tribe": 28, "leverage": 13, "favor": 32}


def test_favored_suit_icon_counts() -> None:
    counts = Counter(
        impact.suit for card in CARDS for impact in card.impacts if impact.kind == "favor"
    )
    assert counts == {"political": 9, "intelligence": 9, "economic": 8, "military": 6}


def test_leveraged_cards() -> None:
    assert sum(card.is_leveraged for card in CARDS) == 13


def test_patriot_coloured_icons_are_on_their_own_patriots() -> None:
    coloured = [(card, i) for card in CARDS for i in card.impacts if i.coalition is not None]
    assert len(coloured) == 21
    assert len({card.number for card, _ in coloured}) == 14
    assert all(impact.coalition == card.patriot for card, impact in coloured)


def test_card_1_mohan_lal() -> None:
    card = COURT_CARDS[1]
    assert card.name == "Mohan Lal"
    assert card.region == "kabul"
    assert card.suit == "intelligence"
    assert card.rank == 3
    assert card.actions == ("move",)
    assert card.impacts == (Impact(kind="spy"),) * 3
    assert card.patriot is None
    assert card.prize == "russian"
    assert card.ability is not None
    assert card.ability.id == "indispensable_advisors"
    assert card.ability.name == "Indispensable Advisors"


def test_card_3_prince_akbar_khan() -> None:
    card = COURT_CARDS[3]
    assert card.name == "Prince Akbar Khan"
    assert card.actions == ("battle",)
    assert card.impacts == (
        Impact(kind="spy"),
        Impact(kind="spy"),
        Impact(kind="army", coalition="afghan"),
        Impact(kind="favor", suit="military"),
    )
    assert card.patriot == "afghan"
    assert card.prize is None
    assert card.ability is not None
    assert card.ability.id == "insurrection"


def test_spot_check_card_names() -> None:
    assert COURT_CARDS[48].name == "Fruit Markets"
    assert COURT_CARDS[97].name == "The Ark of Bukhara"


def test_cards_without_actions() -> None:
    assert [card.number for card in CARDS if not card.actions] == [7, 76]


def test_sixteen_events_numbered_101_to_116() -> None:
    assert list(EVENT_CARDS) == list(range(101, 117))


def test_dominance_checks() -> None:
    assert DOMINANCE_CHECKS == (101, 102, 103, 104)
    assert all(EVENT_CARDS[n].name == "Dominance Check" for n in DOMINANCE_CHECKS)


def test_event_halves() -> None:
    riots = EVENT_CARDS[109]
    assert riots.name == "Riots in Punjab / Conflict Fatigue"
    assert riots.if_discarded.id == "riots_in_punjab"
    assert riots.if_purchased.id == "conflict_fatigue"
    assert riots.if_purchased.duration == "next_dominance_check"
    assert EVENT_CARDS[105].if_discarded.id == "favor_military"
    assert EVENT_CARDS[105].if_discarded.title is None


def test_public_withdrawal_acts_while_in_market() -> None:
    assert EVENT_CARDS[111].if_purchased.id == "public_withdrawal"
    assert EVENT_CARDS[111].if_purchased.duration == "while_in_market"


def test_card_name_and_is_event() -> None:
    assert card_name(1) == "Mohan Lal"
    assert card_name(101) == "Dominance Check"
    assert is_event(116)
    assert not is_event(100)
    with pytest.raises(KeyError):
        card_name(0)
    with pytest.raises(KeyError):
        card_name(117)


def test_six_regions_in_map_order() -> None:
    assert tuple(REGIONS) == REGION_IDS
    assert len(REGIONS) == 6


def test_nine_borders_sorted_by_id() -> None:
    assert len(BORDERS) == 9
    assert list(BORDERS) == sorted(BORDERS)


def test_border_ids_use_a_hyphen() -> None:
    assert all(border_id == "-".join(b.regions) for border_id, b in BORDERS.items())
    assert "kabul-punjab" in BORDERS


def test_kabul_has_four_borders() -> None:
    kabul = REGIONS["kabul"]
    assert set(kabul.borders) == {
        "herat-kabul",
        "kabul-kandahar",
        "kabul-punjab",
        "kabul-transcaspia",
    }
    assert set(kabul.adjacent) == {"herat", "kandahar", "punjab", "transcaspia"}


def test_borders_join_mutually_adjacent_regions() -> None:
    for border in BORDERS.values():
        a, b = border.regions
        assert b in REGIONS[a].adjacent
        assert a in REGIONS[b].adjacent
        assert border.id in REGIONS[a].borders
        assert border.id in REGIONS[b].borders


def test_twenty_four_wakhan_cards() -> None:
    assert list(WAKHAN_CARDS) == list(range(1, 25))


def test_wakhan_fronts_list_every_region_and_coalition() -> None:
    for card in WAKHAN_CARDS.values():
        assert sorted(card.front.region_priority) == sorted(REGION_IDS)
        assert sorted(card.front.pragmatic_loyalty) == sorted(COALITIONS)
        assert card.front.actions[-1] == "radicalize"


def test_wakhan_actions_have_texts() -> None:
    used = {action for card in WAKHAN_CARDS.values() for action in card.front.actions}
    assert used == set(WAKHAN_ACTION_TEXTS)


def test_wakhan_alternative_backs() -> None:
    alternatives = [n for n, card in WAKHAN_CARDS.items() if card.back_alternative is not None]
    assert alternatives == [7, 9, 16, 18]
    assert WAKHAN_CARDS[7].back_alternative == WAKHAN_CARDS[9].back
    assert WAKHAN_CARDS[9].back_alternative == WAKHAN_CARDS[7].back
    assert WAKHAN_CARDS[16].back_alternative == WAKHAN_CARDS[18].back
    assert WAKHAN_CARDS[18].back_alternative == WAKHAN_CARDS[16].back


def test_wakhan_card_1() -> None:
    front = WAKHAN_CARDS[1].front
    assert front.actions == ("tax", "radicalize_top_military_if_military_favored", "radicalize")
    assert front.region_priority[0] == "transcaspia"
    assert front.pragmatic_loyalty == ("russian", "afghan", "british")
    assert front.red_arrow_at == "bottom"
    assert front.black_arrow_slot == 2
    assert WAKHAN_CARDS[1].back.column_numbers_top_to_bottom == (3, 4, 5, 0, 1, 2)


def test_wakhan_arrows_read_the_next_back() -> None:
    # Card 1's front (red arrow bottom, black slot 2) read against card 2's back.
    assert WAKHAN_CARDS[1].front.market_position(WAKHAN_CARDS[2].back) == ("top", 0)


def test_suit_order() -> None:
    assert SUITS == ("economic", "intelligence", "military", "political")


def test_the_data_files_pass_their_checks_and_load_as_checked() -> None:
    # The engine loads the data without checks; this is where they run.
    checked = card_schema.check_data()
    loaded: list[tuple[dict[Any, Any], dict[Any, Any]]] = [
        (dict(COURT_CARDS), dict(checked.court_cards)),
        (dict(EVENT_CARDS), dict(checked.event_cards)),
        (dict(REGIONS), dict(checked.regions)),
        (dict(BORDERS), dict(checked.borders)),
        (dict(WAKHAN_CARDS), dict(checked.wakhan_cards)),
    ]
    for records, models in loaded:
        assert list(records) == list(models)
        for key, record in records.items():
            model = models[key]
            assert isinstance(model, BaseModel)
            assert dataclasses.asdict(record) == model.model_dump(), key
    assert list(WAKHAN_ACTION_TEXTS.items()) == list(checked.wakhan_action_texts.items())


def test_rank_outside_1_to_3_is_rejected() -> None:
    data = dataclasses.asdict(COURT_CARDS[1])
    data["rank"] = 4
    with pytest.raises(ValidationError):
        card_schema.CourtCard.model_validate(data)


def test_favor_icon_needs_a_suit() -> None:
    with pytest.raises(ValidationError):
        card_schema.Impact(kind="favor")


def test_a_coloured_icon_on_a_card_of_another_coalition_is_rejected() -> None:
    data = dataclasses.asdict(COURT_CARDS[3])  # Prince Akbar Khan, an Afghan patriot
    data["patriot"] = "british"
    with pytest.raises(ValidationError, match="coloured icon"):
        card_schema.CourtCard.model_validate(data)


def test_records_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        COURT_CARDS[1].rank = 2  # type: ignore[misc]
