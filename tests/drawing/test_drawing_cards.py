"""Card faces and card texts (adjudicator/drawing/cards.py)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

import pytest

import engine
from adjudicator.drawing.cards import (
    Lying,
    all_cards,
    card_face,
    card_text,
    column_name,
    court_faces,
    hand_faces,
    market_faces,
)
from adjudicator.home.translations import Words
from engine.cards import COURT_CARDS, EVENT_CARDS


class Balanced(HTMLParser):
    """Checks that every element opened is closed, in order."""

    VOID = frozenset({"br", "img", "hr"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.ok = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.ok = self.ok and bool(self.open) and self.open.pop() == tag


def balanced(markup: str) -> bool:
    parser = Balanced()
    parser.feed(markup)
    return parser.ok and not parser.open


def text_of(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).replace("\xa0", " ").split())


@pytest.mark.parametrize("number", sorted(COURT_CARDS))
def test_a_court_face_shows_everything_printed_on_the_card(number: int) -> None:
    card = COURT_CARDS[number]
    face = card_face(number)
    assert balanced(face)
    words = text_of(face)
    assert f"{number} {card.name}" in words
    assert card.suit in words and "★" * card.rank in words
    assert f'class="card card-{card.suit}"' in face
    for action in card.actions:
        assert action in words
    assert f'href="/cards/{number}"' in face
    if card.ability is not None:
        assert card.ability.text in words and card.ability.name in words
    if card.patriot:
        assert f"patriot: {card.patriot}" in words
    if card.prize:
        assert f"prize: {card.prize}" in words
    if card.is_leveraged:
        assert "leverage" in words


def test_impact_icons_are_shown_in_their_order() -> None:
    face = text_of(card_face(76))  # Fath-Ali Shah: tribe, tribe, favor intelligence
    assert "Impact: ● tribe, ● tribe, ★ favor intelligence" in face


def test_a_faces_labels_are_in_the_readers_words() -> None:
    """The labels are the reader's, marked with their language; the card's own words
    (its actions, its icons) stay as printed, in the face's English. English faces are
    the same as ever."""
    number = next(n for n, c in COURT_CARDS.items() if c.actions and c.impacts)
    polish = card_face(number, words=Words("pl"))
    assert '<span lang="pl">Akcje:</span> ' in polish
    assert '<span lang="pl">Symbole wejścia:</span> ' in polish
    assert "Actions:" not in polish and "Impact:" not in polish
    assert card_face(number, words=Words()) == card_face(number)
    view = engine.view(engine.new_game(["ala", "bob"], 1), "ala")
    faces = [face for row in market_faces(view, words=Words("pl")) for face in row]
    assert any('<span lang="pl">Akcje:</span>' in face for face in faces)
    assert all("Actions:" not in face and "Impact:" not in face for face in faces)


@pytest.mark.parametrize("number", sorted(EVENT_CARDS))
def test_an_event_face_shows_both_halves(number: int) -> None:
    event = EVENT_CARDS[number]
    words = text_of(card_face(number))
    assert event.if_discarded.text in words and event.if_purchased.text in words


def test_what_lies_on_a_card_is_shown_and_escaped() -> None:
    face = card_face(1, Lying(spies={"<b>": 2, "a&b": 1}, hostage="<i>x</i>"))
    assert "<b>" not in face.replace("<b>Indispensable", "") and "&lt;b&gt; 2" in face
    assert "a&amp;b 1" in face and "held hostage by &lt;i&gt;x&lt;/i&gt;" in face
    market = text_of(card_face(43, Lying(cost=2, priced=True, rupees=1)))
    assert "cost 2 rupees; 1 rupee on it" in market
    assert "never for sale" in text_of(card_face(111, Lying(cost=None, priced=True)))


def test_card_texts_cover_every_card_and_nothing_else() -> None:
    assert [c.number for c in all_cards()] == sorted({*COURT_CARDS, *EVENT_CARDS})
    assert card_text(0) is None and card_text(117) is None
    text, ability = card_text(1), COURT_CARDS[1].ability
    assert text is not None and ability is not None
    assert ("Special ability: Indispensable Advisors", ability.text) in text.rows


def test_the_faces_of_a_view_number_columns_as_the_notation_does() -> None:
    state = engine.new_game(["alice", "bob"], 1)
    view = engine.view(state)
    rows = market_faces(view)
    assert [len(r) for r in rows] == [6, 6]
    assert "top row, column 0" in rows[0][0] and "bottom row, column 5" in rows[1][5]
    assert column_name(0, 3) == "top row, column 3"
    for r, row in enumerate(view["market"]):
        for c, slot in enumerate(row):
            if slot and slot["card"] in COURT_CARDS and slot["cost"] is not None:
                assert f"cost {slot['cost']} rupee" in text_of(rows[r][c])


def test_hands_are_shown_only_to_their_player() -> None:
    state = engine.new_game(["alice", "bob"], 1)
    state.players[0].hand.append(state.deck.pop())
    card = state.players[0].hand[0]
    assert f"/cards/{card}" in "".join(hand_faces(engine.view(state, "alice")))
    assert hand_faces(engine.view(state, "bob")) == []
    assert hand_faces(engine.view(state)) == []


def test_court_faces_show_spies_and_hostages() -> None:
    player: Any = {  # only what court_faces reads of a player
        "name": "alice",
        "court": [{"card": 7, "name": "Dost Mohammad", "spies": {"bob": 2}, "hostage": "bob"}],
    }
    (face,) = court_faces(player)
    words = text_of(face)
    assert "spies: bob 2" in words and "held hostage by bob" in words
