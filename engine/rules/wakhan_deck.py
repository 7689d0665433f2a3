"""Wakhan's AI deck and what its cards say [Playing with Wakhan, pp. 16-18].

On her turn Wakhan draws the top AI card and lays it face up on the AI discard pile; that
card's front and the back of the card now on top of the AI deck decide for her. When the
AI deck runs out, the whole discard pile, the card just drawn included, is reshuffled with
the game's generator and she draws again. The front gives her actions, the priority of the
regions and the order of coalitions for her pragmatic loyalty; its red arrow reads "top" or
"bottom" on the next card's back (market row, court side, ties between players) and its
black arrow a market column.

The fronts and backs of cards 7, 9, 16 and 18 are paired differently by different sources:
the `standard` pairing uses `WakhanCard.back`, the `alternative` one `back_alternative`
(docs/rules.md).
"""

from __future__ import annotations

from typing import Final

from engine.cards import (
    BORDERS,
    REGION_IDS,
    REGIONS,
    WAKHAN_CARDS,
    Coalition,
    RegionId,
    WakhanBack,
    WakhanFront,
)
from engine.phrases import P, Phrase, T, Term, Value
from engine.rng import shuffle
from engine.rules import words
from engine.state import State, WakhanState


def ai(state: State) -> WakhanState:
    assert state.wakhan is not None, "this game has no Wakhan"
    return state.wakhan


def back_of(state: State, number: int) -> WakhanBack:
    """The back printed behind AI card `number` in the pairing the game uses."""
    card = WAKHAN_CARDS[number]
    if ai(state).backs == "alternative" and card.back_alternative is not None:
        return card.back_alternative
    return card.back


def face_up(state: State) -> int | None:
    """The number of the face-up AI card (the top of the AI discard pile), if any."""
    discard = ai(state).discard
    return discard[-1] if discard else None


def front(state: State) -> WakhanFront | None:
    number = face_up(state)
    return WAKHAN_CARDS[number].front if number is not None else None


def next_back(state: State) -> WakhanBack | None:
    """The back of the card on top of the AI deck: face up on the table, read by the arrows."""
    deck = ai(state).deck
    return back_of(state, deck[0]) if deck else None


def draw(state: State) -> int:
    """Draw an AI card face up; reshuffle everything when the AI deck has run out [p. 16]."""
    w = ai(state)
    card = w.deck.pop(0)
    w.discard.append(card)
    if not w.deck:
        w.deck, w.discard = w.discard, []
        state.rng = shuffle(state.rng, w.deck)
        state.note(
            P(
                "Wakhan's AI deck ran out: all %(n)s AI cards, the one just drawn included, "
                "were reshuffled and she drew again",
                n=len(w.deck),
            )
        )
        card = w.deck.pop(0)
        w.discard.append(card)
    return card


def humans(state: State) -> list[int]:
    """The seats of the human players."""
    return [s for s in range(state.num_players) if not state.is_wakhan(s)]


def pragmatic_loyalty(state: State) -> Coalition | None:
    """The leftmost coalition on the face-up AI card that no human player is loyal to [p. 16]."""
    card = front(state)
    if card is None:
        return None
    taken = {state.players[s].loyalty for s in humans(state)}
    return next(c for c in card.pragmatic_loyalty if c not in taken)


def sync_pragmatic_loyalty(state: State) -> None:
    """Keep Wakhan's `loyalty` equal to her pragmatic loyalty (the blocks she uses)."""
    coalition = pragmatic_loyalty(state)
    player = state.players[ai(state).seat]
    if coalition is not None and coalition != player.loyalty:
        player.loyalty = coalition
        state.note(
            P(
                "Wakhan's pragmatic loyalty is now %(coalition)s: the leftmost loyalty on her AI "
                "card that no human player holds",
                coalition=words.id_term(coalition),
            )
        )


def region_priority(state: State) -> tuple[RegionId, ...]:
    """The regions, highest priority (leftmost on the face-up AI card) first."""
    card = front(state)
    return tuple(card.region_priority) if card is not None else REGION_IDS


def border_order(state: State, region: RegionId) -> list[str]:
    """The borders of `region`, in the priority order of the regions beyond them [p. 17]."""
    borders = REGIONS[region].borders
    beyond = {next(r for r in BORDERS[b].regions if r != region): b for b in borders}
    return [beyond[r] for r in region_priority(state) if r in beyond]


def red_arrow(state: State) -> str:
    """What the red arrow reads on the next card's back: "top" or "bottom"."""
    card, back = front(state), next_back(state)
    if card is None or back is None:
        return "top"
    return back.row_at(card.red_arrow_at)


def market_position(state: State) -> tuple[int, int]:
    """(row index, column) the arrows point at for radicalize: 0 is the top row [p. 17]."""
    card, back = front(state), next_back(state)
    if card is None or back is None:
        return 0, 0
    row, column = card.market_position(back)
    return (0 if row == "top" else 1), column


def court_side(state: State) -> str:
    """Where a radicalized card goes: "left" when the red arrow reads top, else "right"."""
    return "left" if red_arrow(state) == "top" else "right"


def arrow_target(state: State) -> int:
    """The human the red arrow picks when two could be targeted.

    "top" picks the human who plays just before Wakhan, "bottom" the one who plays just
    after her (docs/rules.md); with one human, that human.
    """
    seat = ai(state).seat
    n = state.num_players
    before, after = (seat - 1) % n, (seat + 1) % n
    return before if red_arrow(state) == "top" else after


# The actions an AI card lists, by id, as the log writes them (the id with spaces), written
# out so that extraction finds them; a test checks that they cover the card data.
ACTION_TERMS: Final[dict[str, Term]] = {
    term.text.replace(" ", "_"): term
    for term in (
        T("battle"),
        T("battle on most spied card with wakhan spy"),
        T("betray"),
        T("build"),
        T("gift"),
        T("move"),
        T("radicalize"),
        T("radicalize any intelligence"),
        T("radicalize card gaining region rule"),
        T("radicalize dominant patriot if dominance"),
        T("radicalize most armies roads"),
        T("radicalize most net rupees if under 2 rupees"),
        T("radicalize most spies tribes if no dominance"),
        T("radicalize move card if none"),
        T("radicalize top economic if political favored"),
        T("radicalize top intelligence"),
        T("radicalize top intelligence if fewer spies"),
        T("radicalize top military if military favored"),
        T("radicalize top political"),
        T("radicalize top political if court full"),
        T("tax"),
    )
}


def action_term(action: str) -> Value:
    """An AI card's action by its id, in words: `radicalize top political`."""
    return ACTION_TERMS.get(action) or action.replace("_", " ")


def describe(state: State, number: int) -> Phrase:
    """AI card `number` in words, for the log."""
    card = WAKHAN_CARDS[number].front
    return P(
        "%(actions)s; regions %(regions)s; loyalties %(loyalties)s",
        actions=words.comma_phrase([action_term(a) for a in card.actions]),
        regions=words.comma_phrase([words.id_term(r) for r in card.region_priority]),
        loyalties=words.comma_phrase([words.id_term(c) for c in card.pragmatic_loyalty]),
    )
