"""Setting up a game [Setup, p. 4].

The deck is built in the rulebook's five steps: six piles of five court cards plus one per
player; a Dominance Check in each of the four rightmost piles; two other events in the
second pile and one in each pile to its right; each pile shuffled on its own; piles
stacked with the leftmost on top, so the Dominance Check piles are at the bottom. The
market is dealt column by column, top row first. Each player takes 4 rupees; the favored
suit is political; starting loyalty is chosen in seat order from a random player, and the
last to choose takes the first turn.
"""

from __future__ import annotations

import re

from engine.actions import Action
from engine.cards import COALITIONS, COURT_CARDS, DOMINANCE_CHECKS, EVENT_CARDS, REGION_IDS, SUITS
from engine.notation import PIECES, VERBS
from engine.rng import below, seed_state, shuffle
from engine.rules.flow import Decision, decision, procedure, push, run
from engine.rules.turn import begin_turn
from engine.state import (
    MARKET_COLUMNS,
    MARKET_ROWS,
    STARTING_RUPEES,
    TOTAL_RUPEES,
    Frame,
    Player,
    State,
    empty_board,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 5
PILES = 6
PILE_BASE = 5
NAME_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
# Words that name something else in the notation cannot be player names.
RESERVED_NAMES = {*COALITIONS, *SUITS, *REGION_IDS, *VERBS, *PIECES, "left", "right", "all", "none"}


def check_player_names(names: list[str]) -> None:
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ValueError(
            f"Pax Pamir is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}"
        )
    lowered = [n.lower() for n in names]
    if len(set(lowered)) != len(lowered):
        raise ValueError("player names must be different (case is ignored)")
    for name in names:
        if not NAME_PATTERN.match(name):
            raise ValueError(
                f"player name {name!r}: use a letter then letters, digits, '.', '_' or '-' "
                "(at most 32 characters)"
            )
        if name.lower() in RESERVED_NAMES:
            raise ValueError(f"player name {name!r} is a word of the notation")


def build_deck(rng: int, num_players: int) -> tuple[int, list[int], list[int]]:
    """Return (rng, deck top first, cards set aside) built as the rulebook says."""
    courts = sorted(COURT_CARDS)
    rng = shuffle(rng, courts)
    size = PILE_BASE + num_players
    piles = [courts[i * size : (i + 1) * size] for i in range(PILES)]
    removed = courts[PILES * size :]
    for pile, check in zip(piles[2:], DOMINANCE_CHECKS, strict=True):
        pile.append(check)
    others = sorted(n for n in EVENT_CARDS if n not in DOMINANCE_CHECKS)
    rng = shuffle(rng, others)
    piles[1].extend(others[:2])
    for i, pile in enumerate(piles[2:]):
        pile.append(others[2 + i])
    removed.extend(others[6:])
    deck: list[int] = []
    for pile in piles:
        rng = shuffle(rng, pile)
        deck.extend(pile)
    return rng, deck, sorted(removed)


def new_game(players: list[str], seed: int) -> State:
    """A new game waiting for the first player's choice of loyalty."""
    check_player_names(players)
    n = len(players)
    rng, deck, removed = build_deck(seed_state(seed), n)
    market: list[list[int | None]] = [[None] * MARKET_COLUMNS for _ in range(MARKET_ROWS)]
    for col in range(MARKET_COLUMNS):
        for row in range(MARKET_ROWS):
            market[row][col] = deck.pop(0)
    rng, first = below(rng, n)
    board = empty_board(n)
    state = State(
        players=[Player(name) for name in players],
        rng=rng,
        seed=seed,
        deck=deck,
        market=market,
        market_rupees=[[0] * MARKET_COLUMNS for _ in range(MARKET_ROWS)],
        removed=removed,
        bank=TOTAL_RUPEES - STARTING_RUPEES * n,
        **board,
    )
    order = [(first + i) % n for i in range(n)]
    push(state, "start", player=order[-1])
    for seat in reversed(order):
        push(state, "loyalty", player=seat)
    state.note(f"{players[first]} chooses loyalty first; {players[order[-1]]} will play first")
    run(state)
    return state


@decision
class LoyaltyDecision(Decision):
    """A player's choice of starting loyalty [Setup: Starting Loyalty, p. 4]."""

    kind = "loyalty"
    section = "Setup, p. 4"

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        return [Action("loyalty", (c,)) for c in COALITIONS]

    def apply(self, state: State, frame: Frame, seat: int, action: Action) -> None:
        state.stack.pop()
        state.players[seat].loyalty = str(action.args[0])
        state.note(f"{state.name(seat)} chose {action.args[0]} loyalty")

    def prompt(self, state: State, frame: Frame) -> str:
        return "choose a starting loyalty"


@procedure("start")
def start(state: State, frame: Frame) -> None:
    """Every player has chosen: the last to choose takes the first turn."""
    state.stack.pop()
    state.phase = "play"
    begin_turn(state, int(frame["player"]))
