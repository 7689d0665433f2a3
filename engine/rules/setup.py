"""Setting up a game [Setup, p. 4].

The deck is built in the rulebook's five steps: six piles of five court cards plus one per
player; a Dominance Check in each of the four rightmost piles; two other events in the
second pile and one in each pile to its right; each pile shuffled on its own; piles
stacked with the leftmost on top, so the Dominance Check piles are at the bottom. The
market is dealt column by column, top row first. Each player takes 4 rupees; the favored
suit is political; starting loyalty is chosen in seat order from a random player, and the
last to choose takes the first turn.

With Wakhan [Playing with Wakhan: Setting Up, p. 16] one or two humans play against the
automated opponent: she counts as a player for the size of the deck, her 24 AI cards are
shuffled into an AI deck, she sits to the right of the last human to choose a loyalty, so
that, play going clockwise, that human plays right after her, and she takes the first turn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from engine.actions import Action
from engine.cards import (
    COALITIONS,
    COURT_CARDS,
    DOMINANCE_CHECKS,
    EVENT_CARDS,
    REGION_IDS,
    SUITS,
    WAKHAN_CARDS,
    as_coalition,
)
from engine.frames import LoyaltyFrame, StartFrame
from engine.phrases import P, Phrase
from engine.rng import below, seed_state, shuffle
from engine.rules import words
from engine.rules.flow import Decision, decision, procedure, push, run
from engine.rules.turn import begin_turn
from engine.rules.verbs import PIECES, VERBS
from engine.state import (
    MARKET_COLUMNS,
    MARKET_ROWS,
    STARTING_RUPEES,
    TOTAL_RUPEES,
    Player,
    State,
    WakhanState,
    empty_board,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 5
MIN_HUMANS_WITH_WAKHAN, MAX_HUMANS_WITH_WAKHAN = 1, 2
WAKHAN: Final = "wakhan"  # the automated opponent's player name
BACKS: Final = ("standard", "alternative")  # the two front/back pairings of the AI cards
PILES: Final = 6
PILE_BASE: Final = 5
NAME_PATTERN: Final = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
# Words that name something else in the notation cannot be player names.
# "wakhan" is the automated opponent's name.
RESERVED_NAMES: Final = {
    *COALITIONS,
    *SUITS,
    *REGION_IDS,
    *VERBS,
    *PIECES,
    "left",
    "right",
    "all",
    "none",
    WAKHAN,
}


def check_player_names(names: list[str], *, wakhan: bool = False) -> None:
    """Refuse a wrong number of players or a name that cannot be used.

    With `wakhan`, `names` are the human players only (one or two).
    """
    if wakhan:
        if not MIN_HUMANS_WITH_WAKHAN <= len(names) <= MAX_HUMANS_WITH_WAKHAN:
            raise ValueError(
                f"Wakhan plays against {MIN_HUMANS_WITH_WAKHAN} or {MAX_HUMANS_WITH_WAKHAN} "
                f"human players, not {len(names)}"
            )
    elif not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
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


OPTIONS: Final = {"wakhan": (False, True), "wakhan_backs": BACKS}


def read_options(options: Mapping[str, object] | None) -> tuple[bool, str]:
    """(with Wakhan, AI card pairing) from the options of `new_game`; refuse unknown ones."""
    given = dict(options or {})
    for key, value in given.items():
        if key not in OPTIONS:
            raise ValueError(f"unknown option {key!r}; options are: {', '.join(OPTIONS)}")
        if value not in OPTIONS[key]:
            allowed = ", ".join(repr(v) for v in OPTIONS[key])
            raise ValueError(f"option {key!r} must be one of {allowed}, not {value!r}")
    wakhan = bool(given.get("wakhan", False))
    backs = str(given.get("wakhan_backs", "standard"))
    if "wakhan_backs" in given and not wakhan:
        raise ValueError("option 'wakhan_backs' needs the option 'wakhan'")
    return wakhan, backs


def deal_market(deck: list[int]) -> list[list[int | None]]:
    """Deal the market from the top of the deck: column by column, top row first [p. 4]."""
    market: list[list[int | None]] = [[None] * MARKET_COLUMNS for _ in range(MARKET_ROWS)]
    for col in range(MARKET_COLUMNS):
        for row in range(MARKET_ROWS):
            market[row][col] = deck.pop(0)
    return market


def starting_state(
    names: list[str],
    rng: int,
    seed: int,
    deck: list[int],
    removed: list[int],
    market: list[list[int | None]],
) -> State:
    """Players with 4 rupees each and every piece in the supply [Take Player Pieces, p. 4]."""
    n = len(names)
    return State(
        players=[Player(name) for name in names],
        rng=rng,
        seed=seed,
        deck=deck,
        market=market,
        market_rupees=[[0] * MARKET_COLUMNS for _ in range(MARKET_ROWS)],
        removed=removed,
        bank=TOTAL_RUPEES - STARTING_RUPEES * n,
        **empty_board(n),
    )


def new_game(players: list[str], seed: int, options: Mapping[str, object] | None = None) -> State:
    """A new game waiting for the first player's choice of loyalty.

    Options: `{"wakhan": True}` adds Wakhan, the automated opponent, to one or two human
    players; `{"wakhan_backs": "alternative"}` uses the other pairing of the AI cards'
    fronts and backs (docs/rules.md).
    """
    wakhan, backs = read_options(options)
    check_player_names(players, wakhan=wakhan)
    if wakhan:
        return new_wakhan_game(players, seed, backs)
    n = len(players)
    rng, deck, removed = build_deck(seed_state(seed), n)
    market = deal_market(deck)
    rng, first = below(rng, n)
    state = starting_state(players, rng, seed, deck, removed, market)
    order = [(first + i) % n for i in range(n)]
    push(state, StartFrame(kind="start", player=order[-1]))
    for seat in reversed(order):
        push(state, LoyaltyFrame(kind="loyalty", player=seat))
    state.note(
        P(
            "%(first)s chooses loyalty first; %(last)s will play first",
            first=words.name_term(players[first]),
            last=words.name_term(players[order[-1]]),
        )
    )
    run(state)
    return state


def new_wakhan_game(humans: list[str], seed: int, backs: str) -> State:
    """A game of one or two humans against Wakhan [Setting Up, p. 16].

    Wakhan counts for the deck size. The humans choose loyalty in turn from a random one.
    "Place Wakhan's pieces to the right of the player who chooses their loyalty last": play
    goes clockwise, to the left, so her seat comes just before the last to choose, who plays
    right after her. She takes the first turn. The AI deck is shuffled with the game's
    generator.
    """
    n = len(humans) + 1
    rng, deck, removed = build_deck(seed_state(seed), n)
    market = deal_market(deck)
    rng, first = below(rng, len(humans))
    choosers = [humans[(first + i) % len(humans)] for i in range(len(humans))]
    names = humans[:]
    # Around a table of at most two humans, the seat to the right of the last to choose is
    # the one right after the first to choose (after the only human, in a game of one).
    names.insert(humans.index(choosers[0]) + 1, WAKHAN)
    ai_deck = sorted(WAKHAN_CARDS)
    rng = shuffle(rng, ai_deck)
    seat = names.index(WAKHAN)
    state = starting_state(names, rng, seed, deck, removed, market)
    state.wakhan = WakhanState(seat=seat, deck=ai_deck, backs=backs)
    push(state, StartFrame(kind="start", player=seat))
    for name in reversed(choosers):
        push(state, LoyaltyFrame(kind="loyalty", player=names.index(name)))
    state.note(
        P(
            "%(first)s chooses loyalty first; wakhan sits to the right of %(last)s and will play "
            "first",
            first=words.name_term(choosers[0]),
            last=words.name_term(choosers[-1]),
        )
    )
    run(state)
    return state


class LoyaltyDecision(Decision[LoyaltyFrame]):
    """A player's choice of starting loyalty [Setup: Starting Loyalty, p. 4]."""

    kind = "loyalty"
    section = "Setup, p. 4"

    def options(self, state: State, frame: LoyaltyFrame, seat: int) -> list[Action]:
        return [Action("loyalty", (c,)) for c in COALITIONS]

    def apply(self, state: State, frame: LoyaltyFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        state.players[seat].loyalty = as_coalition(str(action.args[0]))
        state.note(
            P(
                "%(who)s chose %(coalition)s loyalty",
                who=words.who(state, seat),
                coalition=words.id_term(action.args[0]),
            )
        )

    def phrase(self, state: State, frame: LoyaltyFrame) -> Phrase:
        return P(
            "%(who)s chooses a starting loyalty: Afghan, British or Russian (`loyalty COALITION`)",
            who=words.who(state, frame["player"]),
        )


decision(LoyaltyDecision)


@procedure("start")
def start(state: State, frame: StartFrame) -> None:
    """Every player has chosen: the last to choose takes the first turn."""
    state.stack.pop()
    state.phase = "play"
    begin_turn(state, frame["player"])
