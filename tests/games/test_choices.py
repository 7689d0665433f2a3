"""A player's legal actions described: labels name the card and its cost, warnings appear
where the rules bite and nowhere else, in English and Polish (adjudicator/games/choices.py)."""

from __future__ import annotations

import pytest
from positions import Position
from walks import Walk

import engine
from adjudicator.games import reports
from adjudicator.games.choices import Choice, choices, grouped
from adjudicator.home.translations import Words
from engine.game import options_for

PL, EN = Words("pl"), Words()

SIKH_MERCHANTS = 30  # Punjab, economic, leveraged
KHYBER_PASS = 29  # Punjab, economic
PAOLO_AVITABILE = 26  # Punjab, political
RANJIT_SINGH = 24  # Punjab, political: betray
HARI_SINGH_NALWA = 35  # Punjab, military: battle, move
LAPIS_LAZULI_MINE = 11  # Kabul, Afghan patriot
SIR_JOHN_KEANE = 51  # Kandahar, British patriot
CHARLES_STODDART = 4  # Kabul, Afghan prize
PASHTUN_MERCENARY = 52  # Kandahar, military: battle, tax


def by_line(state: engine.State, name: str) -> dict[str, Choice]:
    return {choice.line: choice for choice in choices(state, state.seat(name))}


def warned(found: dict[str, Choice]) -> dict[str, list[str]]:
    """The English warnings of the choices that have any."""
    return {line: [str(w) for w in c.warnings] for line, c in found.items() if c.warnings}


def test_a_purchase_names_the_card_its_region_and_its_cost() -> None:
    market = [None, None, SIKH_MERCHANTS, None, None, None]
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .market([KHYBER_PASS, *market[1:]], market)
        .market_rupees(1, 2, 1)
        .rupees("Cati", 4)
        .build()
    )
    found = by_line(state, "Cati")
    merchants = found["purchase 30"]
    assert merchants.verb == "purchase" and merchants.cost == 2
    assert str(merchants.label) == (
        "Sikh Merchants in Lahore (Punjab), 2 rupees, taking the 1 rupee on it"
    )
    assert PL.phrase(merchants.label).startswith("Kupcy sikhijscy w Lahore (Pendżab), 2 rupie")
    pass_ = found["pass"]
    assert pass_.cost is None and pass_.warnings == ()
    khyber = found["purchase 29"]
    assert str(khyber.label) == "Khyber Pass (Punjab), free" and khyber.cost is None
    # Sikh Merchants is leveraged: that is said of it, and of nothing else.
    assert list(warned(found)) == ["purchase 30"]
    assert "leveraged" in str(merchants.warnings[0])


def test_a_play_into_a_ruled_region_warns_of_the_bribe_and_the_leverage() -> None:
    """[Play example, p. 11]: Hope rules Punjab with two tribes."""
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", SIKH_MERCHANTS, KHYBER_PASS, SIR_JOHN_KEANE)
        .court("Hope", PAOLO_AVITABILE)
        .tribes("Hope", "punjab", 2)
        .rupees("Cati", 4)
        .build()
    )
    found = by_line(state, "Cati")
    bribe = "Hope rules Punjab and may demand a bribe of up to 2 rupees"
    assert warned(found)["play 29 left"] == [bribe]
    assert warned(found)["play 30 right"][0] == bribe
    assert any("leveraged" in w for w in warned(found)["play 30 right"])
    assert found["play 29 left"].cost == 2
    # Kandahar is ruled by no one; Sir John Keane is of Cati's own coalition.
    assert found["play 51 left"].warnings == () and found["play 51 left"].cost is None
    assert (
        str(found["play 51 left"].label) == "Sir John Keane (Kandahar) to the left end of the court"
    )
    assert PL.phrase(found["play 29 left"].warnings[0]) == (
        PL(
            "%(who)s rules %(region)s and may demand a bribe of up to %(rupees)s",
            who="Hope",
            region="Pendżab",
            rupees="2 rupie",
        )
    )


def test_a_patriot_of_another_coalition_warns_of_the_loyalty_change_and_its_losses() -> None:
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", LAPIS_LAZULI_MINE, KHYBER_PASS)
        .court("Cati", SIR_JOHN_KEANE)
        .prizes("Cati", CHARLES_STODDART)
        .gifts("Cati", 1)
        .build()
    )
    found = by_line(state, "Cati")
    change = (
        "changes your loyalty from British to Afghan, losing 1 prize, 1 gift, Sir John Keane (51)"
    )
    assert warned(found) == {"play 11 left": [change], "play 11 right": [change]}
    polish = PL.phrase(found["play 11 left"].warnings[0])
    assert polish == (
        "zmienia twoją lojalność: sojusz brytyjski → sojusz afgański; "
        "tracisz: 1 nagroda, 1 dar, Sir John Keane (51)"
    )


def test_a_hostage_card_warns_of_the_bribe() -> None:
    """[Hostage Action example, p. 12]: Cati holds Hope's Khyber Pass hostage with two spies."""
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .active("Hope")
        .court("Hope", PASHTUN_MERCENARY)
        .spies("Cati", PASHTUN_MERCENARY, 2)
        .spies("Hope", PASHTUN_MERCENARY, 1)
        .rupees("Hope", 3)
        .market_rupees(0, 1, 2)
        .build()
    )
    found = by_line(state, "Hope")
    hostage = "Cati holds Pashtun Mercenary hostage and may demand a bribe of up to 2 rupees"
    # Every action of the card is held hostage, the battle on it with its spies too.
    assert warned(found) == {"tax 52": [hostage], "battle 52 52": [hostage]}
    assert PL.phrase(found["tax 52"].warnings[0]) == (
        "Cati trzyma kartę Pashtun Mercenary jako zakładnika i może zażądać łapówki"
        " w wysokości najwyżej: 2 rupie"
    )


def test_a_battle_and_a_betrayal_that_could_overthrow_a_ruler_say_so() -> None:
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .court("Cati", HARI_SINGH_NALWA, RANJIT_SINGH)
        .court("Hope", PAOLO_AVITABILE, KHYBER_PASS)
        .tribes("Hope", "punjab", 2)
        .armies("punjab", "british", 1)
        .spies("Cati", PAOLO_AVITABILE, 1)
        .spies("Cati", KHYBER_PASS, 1)
        .rupees("Cati", 4)
        .build()
    )
    found = by_line(state, "Cati")
    assert warned(found) == {
        "battle 35 punjab": ["could overthrow Hope, who rules Punjab, by removing their tribes"],
        "betray 24 26": ["overthrows Hope, who rules Punjab: 2 tribes removed"],
    }
    assert found["betray 24 26"].cost == 2
    assert str(found["betray 24 26"].label).endswith(", 2 rupees")
    assert "2 plemiona" in PL.phrase(found["betray 24 26"].warnings[0])


def test_groups_come_shortest_first_and_every_legal_action_is_listed(walk: Walk) -> None:
    for seed in range(2):
        steps = 0
        for state, _, _ in walk(3, seed):
            steps += 1
            if steps > 150:
                break
            for seat in range(state.num_players):
                found = choices(state, seat)
                lines = [str(a) for a in options_for(state, seat)]
                assert [c.line for c in found] == lines
                groups = grouped(found)
                assert sorted(c.line for _, group in groups for c in group) == sorted(lines)
                sizes = [len(group) for _, group in groups]
                assert sizes == sorted(sizes)
                for choice in found:
                    for text in (EN.phrase(choice.label), PL.phrase(choice.label)):
                        assert "(s)" not in text and "%(" not in text, text
                    for warning in choice.warnings:
                        assert "%(" not in PL.phrase(warning)
        assert steps


@pytest.mark.parametrize("verbs", [["pass"], ["pass", "purchase"]])
def test_pass_comes_before_longer_groups(verbs: list[str]) -> None:
    state = Position({"Cati": "british", "Hope": "russian"}).build()
    groups = grouped(choices(state, state.seat("Cati")))
    assert [verb for verb, _ in groups][: len(verbs)] == verbs


def test_the_private_section_lists_the_choices_grouped_with_their_warnings() -> None:
    """The section a player reads (adjudicator/games/reports.py `private_section`), in
    English and Polish: each line its notation, what it is and any warning under it."""
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", SIKH_MERCHANTS)
        .court("Hope", PAOLO_AVITABILE)
        .tribes("Hope", "punjab", 2)
        .rupees("Cati", 4)
        .build()
    )
    seat = state.seat("Cati")
    view = engine.view(state, "Cati")
    found = choices(state, seat)
    english = reports.private_section(view, 3, "email", (), choices=found)
    assert "- `pass` — pass, ending the turn\n" in english
    assert (
        "- `play 30 left` — Sikh Merchants in Lahore (Punjab) to the left end of the court\n"
        "    - ⚠ Hope rules Punjab and may demand a bribe of up to 2 rupees\n"
    ) in english
    assert english.index("`pass`") < english.index("**Play a card** (`play`)")
    assert english.index("**Play a card**") < english.index("**Purchase a card** (`purchase`)")
    polish = reports.private_section(view, 3, "email", (), language="pl", choices=found)
    assert (
        "- `play 30 left` — Kupcy sikhijscy w Lahore (Pendżab) na lewy koniec dworu\n"
        "    - ⚠ Hope rządzi regionem Pendżab i może zażądać łapówki"
        " w wysokości najwyżej: 2 rupie\n"
    ) in polish
    assert "**Zagraj kartę** (`play`)" in polish
