"""The cards explained: labels, their full texts, and card faces as HTML.

A face shows what the printed card carries, in words and glyphs rather than artwork: the
number and name, the suit (a colour class and the word), the rank as stars, the region,
the card-based action icons left to right, the impact icons top to bottom, the patriot and
prize marks, the special ability's text; and where the card lies, what lies on it: the
market cost for the viewer and the rupees on the card, or the spies on a court card by
player and who holds it hostage. Event cards show both halves.

Card data is from *Pax Pamir: Second Edition* by Cole Wehrle / Wehrlegig Games, CC BY-NC-SA
4.0 (`engine/data/LICENSE.md`); the ability and event texts are the engine's paraphrases.
Wherever these texts are shown, `ATTRIBUTION` goes with them.

Everything is escaped here (`html.escape`), so the result can be inserted as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

from adjudicator.home.translations import N_, SOURCE, Words
from engine.cards import (
    COURT_CARDS,
    EVENT_CARDS,
    REGIONS,
    CourtCard,
    EventCard,
    EventEffect,
    Impact,
)
from engine.view_types import PlayerRecord, View

ATTRIBUTION = (
    "Card data from Pax Pamir: Second Edition by Cole Wehrle / Wehrlegig Games, licensed "
    "CC BY-NC-SA 4.0; the ability and event texts are paraphrases, not the printed wording."
)
LICENSE_URL = "https://creativecommons.org/licenses/by-nc-sa/4.0/"
ACTION_GLYPHS = {
    "tax": "¤",
    "gift": "✦",
    "build": "▲",
    "move": "➜",
    "betray": "✗",
    "battle": "⚔",
}
# The same shapes as the board's pieces, so a card's icons read like what they place.
IMPACT_GLYPHS = {
    "road": "▬",
    "army": "■",
    "tribe": "●",
    "spy": "◉",
    "leverage": "⚖",
    "favor": "★",
}
DURATIONS = {
    "instant": "at once",
    "until_next_dominance_check": "until the next Dominance Check",
    "until_after_next_dominance_check": "until the next Dominance Check has resolved",
    "next_dominance_check": "at the next Dominance Check",
    "while_in_market": "while the card is in the market",
}
CARD_LINK = "/cards/{}"
# A face's labels, in the reader's words; what follows them is the card's English.
ACTIONS_LABEL = N_("Actions:")
IMPACT_LABEL = N_("Impact:")


def card_name(number: int) -> str:
    if number in COURT_CARDS:
        return COURT_CARDS[number].name
    if number in EVENT_CARDS:
        return EVENT_CARDS[number].name
    return f"card {number}"


def card_label(number: int | None) -> str:
    """`76 Fath-Ali Shah`, the label pages and reports use; a dash for no card."""
    if number is None:
        return "—"
    return f"{number} {card_name(number)}"


def is_card(number: int) -> bool:
    return number in COURT_CARDS or number in EVENT_CARDS


def impact_word(impact: Impact) -> str:
    if impact.kind == "favor":
        return f"favor {impact.suit}"
    if impact.coalition is not None:
        return f"{impact.coalition} {impact.kind}"
    return impact.kind


def stars(rank: int) -> str:
    return "★" * rank


# -- the full text ----------------------------------------------------------------------


@dataclass(frozen=True)
class CardText:
    """A card in words: what its page says, row by row (label, text)."""

    number: int
    name: str
    kind: str  # "court" or "event"
    rows: list[tuple[str, str]] = field(default_factory=list)


# The special ability's label names it: `Special ability: Indispensable Advisors`.
SPECIAL_ABILITY = N_("Special ability: %(name)s")


def _court_rows(card: CourtCard) -> list[tuple[str, str]]:
    actions = ", ".join(f"{ACTION_GLYPHS[a]} {a}" for a in card.actions) or "none"
    impacts = ", ".join(f"{IMPACT_GLYPHS[i.kind]} {impact_word(i)}" for i in card.impacts)
    rows = [
        (N_("Suit"), card.suit),
        (N_("Rank"), f"{stars(card.rank)} ({card.rank})"),
        (N_("Region"), REGIONS[card.region].name),
        (N_("Card-based actions (left to right)"), actions),
        (N_("Impact icons (in order)"), impacts or "none"),
        (N_("Patriot"), card.patriot or "no"),
        (N_("Loyalty prize"), card.prize or "no"),
        (N_("Leverage"), "yes: discarding it costs rupees" if card.is_leveraged else "no"),
    ]
    if card.ability is not None:
        rows.append((SPECIAL_ABILITY % {"name": card.ability.name}, card.ability.text))
    return rows


def row_label(label: str, words: Words, ability: str | None = None) -> str:
    """A row's label (`CardText.rows`) in the reader's words; `ability` is the name of the
    card's special ability, which its label gives as printed."""
    if ability is not None and label == SPECIAL_ABILITY % {"name": ability}:
        return words(SPECIAL_ABILITY, name=ability)
    return words(label)


def _half(effect: EventEffect) -> str:
    title = f"{effect.title}: " if effect.title else ""
    when = DURATIONS.get(effect.duration, effect.duration.replace("_", " "))
    return f"{title}{effect.text} ({when}; affects {effect.affects.replace('_', ' ')})"


def _event_rows(card: EventCard) -> list[tuple[str, str]]:
    bottom = N_("While in the market") if card.if_purchased.duration == "while_in_market" else None
    return [
        (N_("If discarded from the leftmost market column"), _half(card.if_discarded)),
        (bottom or N_("If purchased"), _half(card.if_purchased)),
    ]


def card_text(number: int) -> CardText | None:
    """The card's full text, or None for a number that is no card."""
    if number in COURT_CARDS:
        card = COURT_CARDS[number]
        return CardText(number, card.name, "court", _court_rows(card))
    if number in EVENT_CARDS:
        event = EVENT_CARDS[number]
        kind_rows = [(N_("Kind"), "Dominance Check" if event.is_dominance_check else "event")]
        return CardText(number, event.name, "event", kind_rows + _event_rows(event))
    return None


def all_cards() -> list[CardText]:
    """Every card, by number."""
    found = [card_text(n) for n in sorted({*COURT_CARDS, *EVENT_CARDS})]
    return [c for c in found if c is not None]


# -- faces ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Lying:
    """What lies on a card where it is: market cost and rupees, or spies and a hostage
    holder in a court. Fields that do not apply are None."""

    cost: int | None = None
    priced: bool = False  # whether to say the cost (a market slot; None means never)
    rupees: int | None = None
    spies: dict[str, int] | None = None
    hostage: str | None = None
    where: str | None = None  # "top row, column 2", said to screen readers


def _p(css: str, content: str) -> str:
    return f'<p class="{css}">{content}</p>'


def _name_line(number: int, link: str | None) -> str:
    label = escape(card_label(number))
    if link is None:
        return _p("card-name", label)
    return _p("card-name", f'<a href="{escape(link.format(number))}">{label}</a>')


def _label(message: str, words: Words | None) -> str:
    """A face's label in the reader's words, marked with their language (the face is
    `lang="en"`); in English, the label as it always was."""
    if words is None or words.language == SOURCE:
        return message
    return f'<span lang="{escape(words.language)}">{escape(words(message))}</span>'


def _court_face(card: CourtCard, said: Words | None = None) -> list[str]:
    lines = [
        _p(
            "card-suit",
            f'<span class="suit-word">{card.suit}</span> '
            f'<span class="rank" aria-label="rank {card.rank}">{stars(card.rank)}</span> '
            f"{escape(REGIONS[card.region].name)}",
        )
    ]
    if card.actions:
        actions = " ".join(f"{ACTION_GLYPHS[a]}&nbsp;{a}" for a in card.actions)
        lines.append(_p("card-actions", f"{_label(ACTIONS_LABEL, said)} {actions}"))
    if card.impacts:
        icons = ", ".join(f"{IMPACT_GLYPHS[i.kind]}&nbsp;{impact_word(i)}" for i in card.impacts)
        lines.append(_p("card-impacts", f"{_label(IMPACT_LABEL, said)} {icons}"))
    marks = []
    if card.patriot:
        marks.append(f"patriot: {card.patriot}")
    if card.prize:
        marks.append(f"prize: {card.prize}")
    if card.is_leveraged:
        marks.append("⚖&nbsp;leverage")
    if marks:
        lines.append(_p("card-marks", ", ".join(marks)))
    if card.ability is not None:
        text = f"<b>{escape(card.ability.name)}</b>: {escape(card.ability.text)}"
        lines.append(_p("card-ability", text))
    return lines


def _event_face(card: EventCard, words: Words | None = None) -> list[str]:
    lines = []
    for label, text in _event_rows(card):
        said = _label(label, words) if words is not None else escape(label)
        lines.append(_p("card-half", f"<b>{said}</b>: {escape(text)}"))
    return lines


def _lying_lines(lying: Lying) -> list[str]:
    lines = []
    if lying.priced:
        cost = "never for sale" if lying.cost is None else _rupees(lying.cost)
        lines.append(f"cost {cost}")
    if lying.rupees:
        lines.append(f"{_rupees(lying.rupees)} on it")
    if lying.spies:
        spies = ", ".join(f"{escape(who)} {n}" for who, n in lying.spies.items() if n)
        if spies:
            lines.append(f"spies: {spies}")
    if lying.hostage:
        lines.append(f"held hostage by {escape(lying.hostage)}")
    return [_p("card-lying", "; ".join(lines))] if lines else []


def _rupees(count: int) -> str:
    return f"{count} rupee{'' if count == 1 else 's'}"


def card_face(
    number: int,
    lying: Lying | None = None,
    *,
    link: str | None = CARD_LINK,
    words: Words | None = None,
) -> str:
    """A card's face as an HTML `<div>`; `link` (with `{}` for the number) makes the name
    a link to the card's page; `words`: the reader's, for the face's labels (by default
    English). An unknown number gives a plain box saying so."""
    lying = lying or Lying()
    suit = "event"
    if number in COURT_CARDS:
        card = COURT_CARDS[number]
        suit, lines = card.suit, _court_face(card, words)
    elif number in EVENT_CARDS:
        lines = _event_face(EVENT_CARDS[number], words)
    else:
        lines = []
    label = card_label(number) + (f", {lying.where}" if lying.where else "")
    body = [_name_line(number, link if is_card(number) else None), *lines, *_lying_lines(lying)]
    return (
        f'<div class="card card-{suit}" role="group" lang="en" aria-label="{escape(label)}">'
        + "".join(body)
        + "</div>"
    )


def empty_slot(rupees: int = 0, where: str | None = None) -> str:
    """A market slot without a card (perhaps with rupees on it)."""
    lying = _p("card-lying", f"{_rupees(rupees)} on the slot") if rupees else ""
    label = "empty slot" + (f", {where}" if where else "")
    return (
        f'<div class="card card-empty" role="group" lang="en" aria-label="{escape(label)}">'
        f"{_p('card-name', 'empty')}{lying}</div>"
    )


# -- faces of a view ----------------------------------------------------------------------

ROWS = ("top", "bottom")


def column_name(row: int, column: int) -> str:
    """Where a market slot is, numbered as the notation counts columns: from 0 at the
    left, so that a column's number is its base cost in rupees (docs/notation.md)."""
    return f"{ROWS[row]} row, column {column}"


def market_faces(
    view: View, link: str | None = CARD_LINK, words: Words | None = None
) -> list[list[str]]:
    """Faces of the market's two rows, left to right, with the cost for the viewer (the
    active player in the public view) and the rupees on each card."""
    rows: list[list[str]] = []
    for r, row in enumerate(view.get("market") or []):
        faces = []
        for c, slot in enumerate(row):
            where = column_name(r, c)
            if slot is None or slot["card"] is None:
                faces.append(empty_slot(slot["rupees"] if slot is not None else 0, where))
                continue
            lying = Lying(cost=slot["cost"], priced=True, rupees=slot["rupees"], where=where)
            faces.append(card_face(slot["card"], lying, link=link, words=words))
        rows.append(faces)
    return rows


def court_faces(
    player: PlayerRecord, link: str | None = CARD_LINK, words: Words | None = None
) -> list[str]:
    """Faces of a player's court, left to right, with spies by player and the hostage
    holder."""
    faces = []
    for index, entry in enumerate(player.get("court") or []):
        lying = Lying(
            spies=dict(entry.get("spies") or {}),
            hostage=entry.get("hostage"),
            where=f"{player['name']}'s court, card {index + 1}",
        )
        faces.append(card_face(int(entry["card"]), lying, link=link, words=words))
    return faces


def hand_faces(view: View, link: str | None = CARD_LINK, words: Words | None = None) -> list[str]:
    """Faces of the viewer's own hand; nothing in the public view or for another's hand
    (a view gives `hand` only to its viewer)."""
    viewer = view.get("viewer")
    for player in view.get("players") or []:
        hand = player.get("hand")
        if viewer is not None and player.get("name") == viewer and hand:
            return faces_in_hand(hand, link=link, words=words)
    return []


def faces_in_hand(
    hand: Sequence[int], link: str | None = CARD_LINK, words: Words | None = None
) -> list[str]:
    """Faces of the cards of a hand, in its order (for its holder's eyes only)."""
    return [card_face(int(n), Lying(where="in hand"), link=link, words=words) for n in hand]
