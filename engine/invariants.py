"""Conservation laws that hold in every position [Components, p. 2].

36 coalition blocks (12 a coalition) and 11 cylinders a player (the VP marker and 10
others) are always somewhere; every one of the 116 cards is in exactly one place; the
36 rupees are with the players, on the market, in the bank or out of the game (the bank
may go below zero: the rulebook sets no hard limit on coins). With Wakhan, each of the 24
AI cards is once in the AI deck or the AI discard pile; her pieces are a player's pieces.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Final

from engine.cards import COALITIONS, COURT_CARDS, EVENT_CARDS, WAKHAN_CARDS
from engine.state import (
    BLOCKS_PER_COALITION,
    CYLINDERS_ON_BOARD,
    TOTAL_RUPEES,
    State,
)

ALL_CARDS: Final = frozenset(COURT_CARDS) | frozenset(EVENT_CARDS)
ALL_WAKHAN_CARDS: Final = frozenset(WAKHAN_CARDS)
BLOCKS_EACH: Final = (BLOCKS_PER_COALITION,) * len(COALITIONS)


def card_places(state: State) -> list[tuple[str, int]]:
    """Every card with the name of the place it is in."""
    places: list[tuple[str, int]] = []
    places += [("deck", c) for c in state.deck]
    places += [("removed", c) for c in state.removed]
    places += [("discard", c) for c in state.discard]
    places += [("market", c) for row in state.market for c in row if c is not None]
    places += [("effects", int(e["card"])) for e in state.effects]
    places += [
        ("an event being resolved", int(f["card"])) for f in state.stack if f["kind"] == "choose"
    ]
    for p in state.players:
        places += [(f"{p.name}'s hand", c) for c in p.hand]
        places += [(f"{p.name}'s court", c) for c in p.court]
        places += [(f"{p.name}'s prizes", c) for c in p.prizes]
    return places


def violations(state: State) -> list[str]:
    """Every broken conservation law, in words (empty when all hold)."""
    # Random play checks every step: test the laws cheaply first, and put them into words
    # only when one is broken.
    return [] if all_laws_hold(state) else describe_violations(state)


def all_laws_hold(state: State) -> bool:
    """Whether every law of `describe_violations` holds, counted without words.

    True only when `describe_violations` finds nothing; False (or any error) sends the
    caller to `describe_violations`, which says what is broken.
    """
    try:
        return _cards_hold(state) and _pieces_hold(state) and _wakhan_holds(state)
    except Exception:  # a malformed state: the words say what is wrong, or raise as before
        return False


def _cards_hold(state: State) -> bool:
    """Each of the 116 cards in exactly one place, and no other card anywhere."""
    cards = [*state.deck, *state.removed, *state.discard]
    for row in state.market:
        cards += [c for c in row if c is not None]
    cards += [int(e["card"]) for e in state.effects]
    cards += [int(f["card"]) for f in state.stack if f["kind"] == "choose"]
    for p in state.players:
        cards += p.hand
        cards += p.court
        cards += p.prizes
    # As many cards as there are, and all of them: then none is twice anywhere.
    return len(cards) == len(ALL_CARDS) and set(cards) == ALL_CARDS


def _pieces_hold(state: State) -> bool:
    """Blocks, cylinders and rupees all accounted for; no negative counts; spies placed."""
    afghan, british, russian = COALITIONS
    a = b = r = 0
    for counts in chain(state.armies.values(), state.roads.values()):
        x, y, z = counts[afghan], counts[british], counts[russian]
        # With only these three keys, they are all of its counts.
        if x < 0 or y < 0 or z < 0 or len(counts) != len(COALITIONS):
            return False
        a, b, r = a + x, b + y, r + z
    supply = state.block_supply
    if (a + supply[afghan], b + supply[british], r + supply[russian]) != BLOCKS_EACH:
        return False
    tribes = list(state.tribes.values())
    spies = list(state.spies.values())
    if min(chain.from_iterable(tribes)) < 0 or min(chain(*spies, (0,))) < 0:
        return False
    if not all(map(any, spies)):
        return False
    if not {c for p in state.players for c in p.court}.issuperset(state.spies):
        return False
    on_board = list(map(sum, zip(*tribes, *spies, strict=True)))
    for seat, p in enumerate(state.players):
        if p.cylinders + on_board[seat] + sum(p.gifts) != CYLINDERS_ON_BOARD or p.rupees < 0:
            return False
    rupees = sum([p.rupees for p in state.players]) + sum(map(sum, state.market_rupees))
    return rupees + state.bank + state.out_of_game == TOTAL_RUPEES


def _wakhan_holds(state: State) -> bool:
    """Wakhan's 24 AI cards each once in her deck or discard pile, on a real seat."""
    w = state.wakhan
    if w is None:
        return True
    cards = w.deck + w.discard
    return (
        0 <= w.seat < state.num_players
        and len(cards) == len(ALL_WAKHAN_CARDS)
        and set(cards) == ALL_WAKHAN_CARDS
        and w.backs in ("standard", "alternative")
    )


def describe_violations(state: State) -> list[str]:
    """Every broken conservation law, in words (empty when all hold)."""
    problems: list[str] = []
    places = card_places(state)
    counts = Counter([card for _, card in places])
    for card, count in counts.items():
        if count > 1:
            where = ", ".join(place for place, c in places if c == card)
            problems.append(f"card {card} is in {count} places: {where}")
    missing = ALL_CARDS - set(counts)
    if missing:
        problems.append(f"cards missing: {sorted(missing)}")
    unknown = set(counts) - ALL_CARDS
    if unknown:
        problems.append(f"unknown cards: {sorted(unknown)}")
    for coalition in COALITIONS:
        armies = sum(r[coalition] for r in state.armies.values())
        roads = sum(b[coalition] for b in state.roads.values())
        total = state.block_supply[coalition] + armies + roads
        if total != BLOCKS_PER_COALITION:
            problems.append(f"{coalition} blocks: {total} accounted for, not 12")
    in_courts = {c for p in state.players for c in p.court}
    for card, on_card in state.spies.items():
        if not any(on_card):
            # Only cards with a spy are kept: an entry of zeros is a slip, not a spy.
            problems.append(f"spies on card {card}: every count is 0 (leave the card out)")
        elif card not in in_courts:
            problems.append(f"spies on card {card}, which is in no court")
    for seat, p in enumerate(state.players):
        tribes = sum(t[seat] for t in state.tribes.values())
        spies = sum(s[seat] for s in state.spies.values())
        total = p.cylinders + tribes + spies + sum(p.gifts)
        if total != CYLINDERS_ON_BOARD:
            problems.append(f"{p.name}'s cylinders: {total + 1} accounted for, not 11")
        if p.rupees < 0:
            problems.append(f"{p.name} has {p.rupees} rupees")
    negative = [
        n
        for table in (state.armies, state.roads)
        for counts in table.values()
        for n in counts.values()
        if n < 0
    ] + [n for t in state.tribes.values() for n in t if n < 0]
    if negative or any(n < 0 for s in state.spies.values() for n in s):
        problems.append("a negative piece count")
    problems += wakhan_violations(state)
    rupees = sum(p.rupees for p in state.players) + sum(map(sum, state.market_rupees))
    total = rupees + state.bank + state.out_of_game
    if total != TOTAL_RUPEES:
        problems.append(f"rupees: {total} accounted for, not {TOTAL_RUPEES}")
    return problems


def wakhan_violations(state: State) -> list[str]:
    """Wakhan's 24 AI cards are each once in the AI deck or the AI discard pile."""
    w = state.wakhan
    if w is None:
        return []
    problems: list[str] = []
    if not 0 <= w.seat < state.num_players:
        return [f"wakhan seat {w.seat} is not a seat"]
    cards = Counter(w.deck + w.discard)
    twice = sorted(card for card, count in cards.items() if count > 1)
    if twice:
        problems.append(f"AI cards in two places: {twice}")
    missing = sorted(set(WAKHAN_CARDS) - set(cards))
    if missing:
        problems.append(f"AI cards missing: {missing}")
    unknown = sorted(set(cards) - set(WAKHAN_CARDS))
    if unknown:
        problems.append(f"unknown AI cards: {unknown}")
    if w.backs not in ("standard", "alternative"):
        problems.append(f"AI card backs {w.backs!r}: standard or alternative")
    return problems
