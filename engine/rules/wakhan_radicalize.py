"""Radicalize, Wakhan's core action, and Wakhan's Ambition [Playing with Wakhan, p. 17].

Radicalize buys one market card and plays it at once, as a single action. Which card:

1. the AI card's specific instruction, if it has one (only some cards qualify; ties go to
   the cheapest card, then the highest card number). Instructions consider court cards;
2. otherwise, with a Dominance Check in the market: the check itself only if she would
   score the most from it or win (her Ambition); else the cheapest patriot of the dominant
   coalition, then the cheapest card with the most army and road icons; with no dominant
   coalition, the cheapest card with the most spy and tribe icons (ties: highest number);
3. otherwise the arrows: the red arrow names the row and the black arrow the column; if
   that card cannot be bought, the next one to its left, then the other row from the same
   column.

She plays the card if she can afford the ruler's bribe, to the left end of her court when
the red arrow reads top, to the right end otherwise; if she cannot, she discards it. An
event card takes effect as when anyone buys it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.cards import COURT_CARDS, DOMINANCE_CHECKS, Suit, card_name, is_event
from engine.phrases import P, Phrase, Term
from engine.rules import court, market, play, purchase, words
from engine.rules.cleanup import court_limit
from engine.rules.dominance import dominant_coalition
from engine.rules.pieces import count_spies
from engine.rules.ruling import ruler
from engine.rules.wakhan_deck import court_side, humans, market_position
from engine.state import MARKET_COLUMNS, MARKET_ROWS, State

# (card, why) of the card a radicalize would buy, or None when there is none.
Choice = tuple[int, Phrase] | None


def buyable(state: State, seat: int, card: int | None, col: int) -> bool:
    if card is None or card == market.PUBLIC_WITHDRAWAL or card in state.paid_cards:
        return False
    return purchase.purchase_cost(state, seat, col, card) <= state.players[seat].rupees


def court_cards_for_sale(state: State, seat: int) -> dict[int, int]:
    """Court cards in the market she can buy now, with their cost."""
    found: dict[int, int] = {}
    for row in range(MARKET_ROWS):
        for col in range(MARKET_COLUMNS):
            card = state.market[row][col]
            if card is not None and not is_event(card) and buyable(state, seat, card, col):
                found[card] = purchase.purchase_cost(state, seat, col, card)
    return found


def cheapest(offers: dict[int, int], cards: list[int]) -> int | None:
    """The cheapest of `cards`, then the highest card number."""
    return min(cards, key=lambda c: (offers[c], -c)) if cards else None


def highest_rank_of(state: State, seat: int, suit: Suit) -> int | None:
    offers = court_cards_for_sale(state, seat)
    cards = [c for c in offers if COURT_CARDS[c].suit == suit]
    if not cards:
        return None
    top = max(COURT_CARDS[c].rank for c in cards)
    return cheapest(offers, [c for c in cards if COURT_CARDS[c].rank == top])


def count_icons(card: int, kinds: tuple[str, ...]) -> int:
    return sum(1 for impact in COURT_CARDS[card].impacts if impact.kind in kinds)


def most_icons(offers: dict[int, int], kinds: tuple[str, ...]) -> int | None:
    """The cheapest card with the most icons of `kinds` (none if no card has any)."""
    if not offers:
        return None
    most = max(count_icons(c, kinds) for c in offers)
    if most == 0:
        return None
    return cheapest(offers, [c for c in offers if count_icons(c, kinds) == most])


def net_rupees(state: State, seat: int, card: int, cost: int) -> int:
    where = market.locate(state, card)
    assert where is not None
    leverage = 2 if COURT_CARDS[card].is_leveraged else 0
    return state.market_rupees[where[0]][where[1]] - cost + leverage


def would_rule(state: State, seat: int, card: int) -> bool:
    """Whether playing `card` would make her rule its region (its army and tribe icons)."""
    info = COURT_CARDS[card]
    region = info.region
    if ruler(state, region) == seat:
        return False
    coalition = state.players[seat].loyalty
    assert coalition is not None
    armies = dict(state.armies[region])
    armies[coalition] += count_icons(card, ("army",))
    tribes = state.tribes[region][seat] + count_icons(card, ("tribe",))
    mine = tribes + max(armies.values())
    for other in humans(state):
        loyalty = state.players[other].loyalty
        theirs = state.tribes[region][other] + (armies[loyalty] if loyalty else 0)
        if theirs >= mine:
            return False
    return tribes > 0


# -- the specific instructions of the AI cards ---------------------------------------------


def _suit_if(favored: Suit | None, suit: Suit, what: Phrase) -> Callable[[State, int], Choice]:
    def choose(state: State, seat: int) -> Choice:
        if favored is not None and state.favored != favored:
            return None
        card = highest_rank_of(state, seat, suit)
        return (card, what) if card is not None else None

    return choose


def _net_rupees(state: State, seat: int) -> Choice:
    if state.players[seat].rupees >= 2:
        return None
    offers = court_cards_for_sale(state, seat)
    gains = {c: net_rupees(state, seat, c, cost) for c, cost in offers.items()}
    best = max(gains.values(), default=0)
    if best <= 0:
        return None
    card = cheapest(offers, [c for c, gain in gains.items() if gain == best])
    why = P("she has fewer than 2 rupees and it leaves her %(n)s richer", n=best)
    return (card, why) if card else None


def _gaining_rule(state: State, seat: int) -> Choice:
    offers = court_cards_for_sale(state, seat)
    card = cheapest(offers, [c for c in offers if would_rule(state, seat, c)])
    region = COURT_CARDS[card].region if card else ""
    why = P("playing it would make her ruler of %(region)s", region=words.id_term(region))
    return (card, why) if card else None


def _any_intelligence(state: State, seat: int) -> Choice:
    offers = court_cards_for_sale(state, seat)
    card = cheapest(offers, [c for c in offers if COURT_CARDS[c].suit == "intelligence"])
    return (card, P("it is the cheapest intelligence card")) if card else None


def _most_blocks(state: State, seat: int) -> Choice:
    card = most_icons(court_cards_for_sale(state, seat), ("army", "road"))
    return (card, P("it would place the most armies and roads")) if card else None


def _most_cylinders_if_no_dominance(state: State, seat: int) -> Choice:
    if dominant_coalition(state) is not None:
        return None
    card = most_icons(court_cards_for_sale(state, seat), ("spy", "tribe"))
    why = P("no coalition is dominant and it places the most spies and tribes")
    return (card, why) if card else None


def _move_card_if_none(state: State, seat: int) -> Choice:
    if any("move" in COURT_CARDS[c].actions for c in state.players[seat].court):
        return None
    offers = court_cards_for_sale(state, seat)
    card = cheapest(offers, [c for c in offers if "move" in COURT_CARDS[c].actions])
    return (card, P("no card in her court can move")) if card else None


def _dominant_patriot(state: State, seat: int) -> Choice:
    dominant = dominant_coalition(state)
    if dominant is None:
        return None
    offers = court_cards_for_sale(state, seat)
    card = cheapest(offers, [c for c in offers if COURT_CARDS[c].patriot == dominant])
    why = P(
        "it is a patriot of the dominant %(coalition)s coalition",
        coalition=words.id_term(str(dominant)),
    )
    return (card, why) if card else None


def _political_if_court_full(state: State, seat: int) -> Choice:
    if len(state.players[seat].court) < court_limit(state, seat):
        return None
    card = highest_rank_of(state, seat, "political")
    why = P("her court is full and it is the highest-rank political card")
    return (card, why) if card else None


def _intelligence_if_fewer_spies(state: State, seat: int) -> Choice:
    mine = count_spies(state, seat)
    if all(count_spies(state, other) <= mine for other in humans(state)):
        return None
    card = highest_rank_of(state, seat, "intelligence")
    why = P("another player has more spies and it is the highest-rank intelligence card")
    return (card, why) if card else None


INSTRUCTIONS: Final[dict[str, Callable[[State, int], Choice]]] = {
    "radicalize_top_military_if_military_favored": _suit_if(
        "military",
        "military",
        P("military is favored and it is the highest-rank military card"),
    ),
    "radicalize_top_economic_if_political_favored": _suit_if(
        "political",
        "economic",
        P("political is favored and it is the highest-rank economic card"),
    ),
    "radicalize_top_political": _suit_if(None, "political", P("the highest-rank political card")),
    "radicalize_top_intelligence": _suit_if(
        None, "intelligence", P("the highest-rank intelligence card")
    ),
    "radicalize_most_net_rupees_if_under_2_rupees": _net_rupees,
    "radicalize_card_gaining_region_rule": _gaining_rule,
    "radicalize_any_intelligence": _any_intelligence,
    "radicalize_most_armies_roads": _most_blocks,
    "radicalize_most_spies_tribes_if_no_dominance": _most_cylinders_if_no_dominance,
    "radicalize_move_card_if_none": _move_card_if_none,
    "radicalize_dominant_patriot_if_dominance": _dominant_patriot,
    "radicalize_top_political_if_court_full": _political_if_court_full,
    "radicalize_top_intelligence_if_fewer_spies": _intelligence_if_fewer_spies,
}


# -- Wakhan's Ambition and the plain radicalize ----------------------------------------------


def ambition(state: State, seat: int) -> int | None:
    """A Dominance Check she can buy now that would score her the most points or win [p. 17].

    The purchase is tried on a copy of the state: she buys it when her points from the
    check are more than every other player's, or when the game would end with her winning.
    """
    for row in range(MARKET_ROWS):
        for col in range(MARKET_COLUMNS):
            card = state.market[row][col]
            if card not in DOMINANCE_CHECKS or not buyable(state, seat, card, col):
                continue
            assert card is not None
            trial = state.copy()
            purchase.purchase(trial, seat, card)
            gains = [trial.players[s].vp - state.players[s].vp for s in range(state.num_players)]
            ahead = all(gains[seat] > g for s, g in enumerate(gains) if s != seat)
            if ahead or (trial.phase == "over" and seat in trial.winners):
                return card
    return None


def with_dominance_check(state: State, seat: int) -> Choice:
    """The card she radicalizes while a Dominance Check is in the market."""
    check = ambition(state, seat)
    if check is not None:
        return check, P("she would score the most from the Dominance Check, or win")
    offers = court_cards_for_sale(state, seat)
    dominant = dominant_coalition(state)
    if dominant is not None:
        card = cheapest(offers, [c for c in offers if COURT_CARDS[c].patriot == dominant])
        if card is not None:
            return card, P(
                "a Dominance Check is in the market: cheapest %(coalition)s patriot",
                coalition=words.id_term(str(dominant)),
            )
        card = most_icons(offers, ("army", "road"))
        why = P(
            "a Dominance Check is in the market: the cheapest card with the most army/road icons"
        )
    else:
        card = most_icons(offers, ("spy", "tribe"))
        why = P(
            "a Dominance Check is in the market: the cheapest card with the most spy/tribe icons"
        )
    if card is None and offers:
        card = cheapest(offers, list(offers))
        why = P("a Dominance Check is in the market: the cheapest card (none has such icons)")
    return (card, why) if card is not None else None


def by_arrows(state: State, seat: int) -> Choice:
    """The card the arrows point at, or the next valid one to its left, then the other row."""
    row, column = market_position(state)
    for r in (row, 1 - row):
        for col in range(column, -1, -1):
            card = state.market[r][col]
            if card in DOMINANCE_CHECKS or not buyable(state, seat, card, col):
                continue
            assert card is not None
            return card, P(
                "the arrows point at the %(row)s row, column %(column)s; the first card she can "
                "buy from there is in the %(where)s row, column %(col)s",
                row=Term("top" if row == 0 else "bottom"),
                column=column,
                where=Term("top" if r == 0 else "bottom"),
                col=col,
            )
    return None


def plain(state: State, seat: int) -> Choice:
    if market.dominance_checks_in_market(state):
        return with_dominance_check(state, seat)
    return by_arrows(state, seat)


def choose(state: State, seat: int, action: str) -> Choice:
    """The card a radicalize listed as `action` on her AI card would buy, or None."""
    if action == "radicalize":
        return plain(state, seat)
    return INSTRUCTIONS[action](state, seat)


def radicalize(state: State, seat: int, card: int, why: Phrase) -> None:
    """Buy `card` and play it at once, or discard it if she cannot pay the bribe."""
    state.note(
        P(
            "Wakhan radicalizes %(card)s: %(why)s",
            card=words.card_name_term(card_name(card)),
            why=why,
        )
    )
    purchase.purchase(state, seat, card)
    if is_event(card):
        return
    region = COURT_CARDS[card].region
    owner, bribe = play.bribe_owed(state, seat, region)
    if owner is not None and bribe > state.players[seat].rupees:
        court.discard_from_hand(state, seat, card)
        state.note(
            P(
                "Wakhan cannot pay %(owner)s's bribe of %(n)s for %(region)s: she discarded "
                "%(card)s",
                owner=words.who(state, owner),
                n=bribe,
                region=words.id_term(region),
                card=words.card_name_term(card_name(card)),
            )
        )
        return
    side = court_side(state)
    if side == "left":
        state.note(P("the red arrow reads top: she plays it left"))
    else:
        state.note(P("the red arrow reads bottom: she plays it right"))
    play.start_play(state, seat, card, side)
