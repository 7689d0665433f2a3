"""Positions for rule cases: a new game, loyalties chosen, then edited by hand.

`Position` starts from `engine.new_game`, answers the loyalty decisions through
`engine.apply`, and then edits the mutable `State` directly. Every edit keeps the
conservation laws: cards are moved from wherever they were, blocks and cylinders come
from the supply, rupees from the bank. `build()` checks `engine.invariants.violations`.

By default the market and the top of the deck hold court cards only (the other events
are set aside and the Dominance Checks sent to the bottom of the deck), so that a turn
ends without an event being discarded unless the case asks for one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Self

import engine
from engine import Action, State
from engine.cards import COALITIONS, DOMINANCE_CHECKS, Coalition, RegionId, Suit, is_event
from engine.invariants import violations
from engine.state import MARKET_COLUMNS, MARKET_ROWS


def play_setup(names: Sequence[str], loyalties: Sequence[str], seed: int) -> State:
    """A new game in which every player has chosen the loyalty given for their seat."""
    state = engine.new_game(list(names), seed)
    while state.phase == "setup":
        decision = engine.pending(state)
        assert decision is not None and decision.kind == "loyalty"
        seat = decision.seats[0]
        state = engine.apply(state, seat, Action("loyalty", (loyalties[seat],)))
    return state


class Position:
    """A position under construction. Every method returns `self` for chaining."""

    def __init__(self, players: dict[str, str], seed: int = 1, *, quiet: bool = True) -> None:
        names = list(players)
        self.state = play_setup(names, [players[n] for n in names], seed)
        self.active(names[0])
        if quiet:
            self._quiet()

    def _quiet(self) -> None:
        state = self.state
        courts = [c for c in state.deck if not is_event(c)]
        events = [c for c in state.deck if is_event(c)]
        state.deck = courts + [c for c in events if c in DOMINANCE_CHECKS]
        state.removed.extend(c for c in events if c not in DOMINANCE_CHECKS)
        for row in range(MARKET_ROWS):
            for col in range(MARKET_COLUMNS):
                card = state.market[row][col]
                if card is not None and is_event(card):
                    state.removed.append(card)
                    state.market[row][col] = state.deck.pop(0)

    def seat(self, name: str) -> int:
        return self.state.seat(name)

    def lift(self, card: int) -> None:
        """Take a card out of whatever place holds it."""
        state = self.state
        for pile in (state.deck, state.removed, state.discard):
            if card in pile:
                pile.remove(card)
                return
        for row in state.market:
            if card in row:
                row[row.index(card)] = None
                return
        for player in state.players:
            for pile in (player.hand, player.court, player.prizes):
                if card in pile:
                    assert card not in state.spies, "move the spies off the card first"
                    pile.remove(card)
                    return
        raise AssertionError(f"card {card} is nowhere")

    def active(self, name: str) -> Self:
        """Make `name` the player whose turn it is (at the start of that turn)."""
        state = self.state
        frame = state.stack[-1]
        assert frame["kind"] == "turn" and state.actions_used == 0
        state.active = frame["player"] = self.seat(name)
        return self

    def hand(self, name: str, *cards: int) -> Self:
        for card in cards:
            self.lift(card)
            self.state.players[self.seat(name)].hand.append(card)
        return self

    def court(self, name: str, *cards: int) -> Self:
        """Add cards at the right end of a court, in the order given."""
        for card in cards:
            self.lift(card)
            self.state.players[self.seat(name)].court.append(card)
        return self

    def prizes(self, name: str, *cards: int) -> Self:
        for card in cards:
            self.lift(card)
            self.state.players[self.seat(name)].prizes.append(card)
        return self

    def discard(self, *cards: int) -> Self:
        for card in cards:
            self.lift(card)
            self.state.discard.append(card)
        return self

    def checks_resolved(self, *cards: int) -> Self:
        """Dominance Checks already resolved earlier in the game: discarded and counted."""
        assert all(card in DOMINANCE_CHECKS for card in cards)
        self.discard(*cards)
        self.state.checks_resolved = len(cards)
        return self

    def deck_top(self, *cards: int) -> Self:
        """Put cards on top of the deck, the first given on top."""
        for card in reversed(cards):
            self.lift(card)
            self.state.deck.insert(0, card)
        return self

    def deck(self, cards: Iterable[int]) -> Self:
        """Make the deck exactly `cards` (top first); the rest of it is set aside."""
        wanted = list(cards)
        for card in wanted:
            self.lift(card)
        self.state.removed.extend(self.state.deck)
        self.state.deck = wanted
        return self

    def market(self, top: Sequence[int | None], bottom: Sequence[int | None]) -> Self:
        """Lay out the whole market; the cards it held before are set aside."""
        state = self.state
        assert len(top) == len(bottom) == MARKET_COLUMNS
        for row in range(MARKET_ROWS):
            for col in range(MARKET_COLUMNS):
                card = state.market[row][col]
                if card is not None:
                    state.market[row][col] = None
                    state.removed.append(card)
        for row, cards in enumerate((top, bottom)):
            for col, card in enumerate(cards):
                if card is not None:
                    self.lift(card)
                    state.market[row][col] = card
        return self

    def market_rupees(self, row: int, col: int, amount: int) -> Self:
        self.state.market_rupees[row][col] += amount
        self.state.bank -= amount
        return self

    def rupees(self, name: str, amount: int) -> Self:
        """Set a player's rupees, exchanging the difference with the bank."""
        player = self.state.players[self.seat(name)]
        self.state.bank += player.rupees - amount
        player.rupees = amount
        return self

    def vp(self, name: str, points: int) -> Self:
        self.state.players[self.seat(name)].vp = points
        return self

    def favored(self, suit: Suit) -> Self:
        self.state.favored = suit
        return self

    def tribes(self, name: str, region: RegionId, count: int) -> Self:
        seat = self.seat(name)
        self._cylinders(seat, count)
        self.state.tribes[region][seat] += count
        return self

    def spies(self, name: str, card: int, count: int) -> Self:
        seat = self.seat(name)
        assert any(card in p.court for p in self.state.players), "spies go on court cards"
        self._cylinders(seat, count)
        spies = self.state.spies.setdefault(card, [0] * self.state.num_players)
        spies[seat] += count
        return self

    def gifts(self, name: str, count: int) -> Self:
        seat = self.seat(name)
        self._cylinders(seat, count)
        player = self.state.players[seat]
        for i in range(count):
            assert not player.gifts[i]
            player.gifts[i] = True
        return self

    def cylinders_left(self, name: str, count: int, region: RegionId = "transcaspia") -> Self:
        """Put cylinders of the supply on the map as tribes in `region` until `count` are left."""
        extra = self.state.players[self.seat(name)].cylinders - count
        return self.tribes(name, region, extra)

    def _cylinders(self, seat: int, count: int) -> None:
        player = self.state.players[seat]
        assert player.cylinders >= count, f"{player.name} has only {player.cylinders} cylinders"
        player.cylinders -= count

    def armies(self, region: RegionId, coalition: Coalition, count: int) -> Self:
        self._blocks(coalition, count)
        self.state.armies[region][coalition] += count
        return self

    def roads(self, border: str, coalition: Coalition, count: int) -> Self:
        self._blocks(coalition, count)
        self.state.roads[border][coalition] += count
        return self

    def _blocks(self, coalition: str, count: int) -> None:
        assert coalition in COALITIONS
        supply = self.state.block_supply
        assert supply[coalition] >= count, f"only {supply[coalition]} {coalition} blocks left"
        supply[coalition] -= count

    def placed_this_turn(self, key: str, count: int) -> Self:
        """Record that `count` pieces at a location were placed during this turn."""
        self.state.placed[key] = self.state.placed.get(key, 0) + count
        return self

    def build(self) -> State:
        problems = violations(self.state)
        assert problems == [], problems
        assert all(p.cylinders >= 0 for p in self.state.players)
        return self.state


def act(state: State, player: str, *lines: str) -> State:
    """Apply actions written in the notation, one after another, for one player."""
    for line in lines:
        seat = state.seat(player)
        state = engine.apply(state, player, engine.parse_action(line, state, seat))
    return state


def options(state: State, player: str) -> list[str]:
    """The legal actions of `player` now, in the notation."""
    return [engine.format_action(a) for name, a in engine.legal_actions(state) if name == player]


def waiting_for(state: State) -> tuple[str, list[str]] | None:
    """The kind of the pending decision and who must answer it."""
    decision = engine.pending(state)
    if decision is None:
        return None
    return decision.kind, [state.name(s) for s in decision.seats]


def cylinders_in_play(state: State, name: str) -> int:
    seat = state.seat(name)
    player = state.players[seat]
    tribes = sum(t[seat] for t in state.tribes.values())
    spies = sum(s[seat] for s in state.spies.values())
    return tribes + spies + sum(player.gifts)


def blocks_on_map(state: State, coalition: Coalition) -> int:
    armies = sum(r[coalition] for r in state.armies.values())
    roads = sum(b[coalition] for b in state.roads.values())
    return armies + roads
