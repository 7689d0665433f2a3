"""Cleanup at the end of each turn [Cleanup, p. 9].

1. Discard court cards down to 3 + political stars. 2. Discard hand cards down to
2 + intelligence stars. 3. Discard events in the leftmost market column, top row first,
resolving their top effect. 4. Shift each market row left with its rupees and refill from
the deck; a second Dominance Check revealed causes Instability.
"""

from __future__ import annotations

from typing import Final

from engine.cards import DOMINANCE_CHECKS, is_event
from engine.frames import CleanupFrame, DiscardFrame
from engine.phrases import P
from engine.rules import dominance, events, market
from engine.rules.flow import procedure, push
from engine.rules.stars import count_stars
from engine.rules.turn import begin_turn
from engine.state import MARKET_COLUMNS, MARKET_ROWS, State

BASE_COURT_LIMIT: Final = 3
BASE_HAND_LIMIT: Final = 2


def court_limit(state: State, seat: int) -> int:
    return BASE_COURT_LIMIT + count_stars(state, seat, "political")


def hand_limit(state: State, seat: int) -> int:
    return BASE_HAND_LIMIT + count_stars(state, seat, "intelligence")


@procedure("cleanup")
def cleanup(state: State, frame: CleanupFrame) -> None:
    """Run cleanup's steps while its frame stays on top and the game goes on.

    Exactly the calls `run` would make, one after another, without a pass through its loop
    for each: a step that pushes a discard or an event's decision, ends the game or ends
    cleanup hands back to `run`.
    """
    while True:
        cleanup_step(state, frame)
        if state.phase == "over" or not state.stack or state.stack[-1] is not frame:
            return


def cleanup_step(state: State, frame: CleanupFrame) -> None:
    """Run the next step of cleanup; each step repeats until it has nothing left to do."""
    seat = state.active
    player = state.players[seat]
    step = frame["step"]
    if step == "court":
        if len(player.court) > court_limit(state, seat):
            push(
                state,
                DiscardFrame(
                    kind="discard", player=seat, place="court", count=1, reason="court limit"
                ),
            )
        else:
            frame["step"] = "hand"
    elif step == "hand":
        if len(player.hand) > hand_limit(state, seat):
            push(
                state,
                DiscardFrame(
                    kind="discard", player=seat, place="hand", count=1, reason="hand limit"
                ),
            )
        else:
            frame["step"] = "events"
    elif step == "events":
        if not discard_leftmost_event(state):
            frame["step"] = "refill"
    elif step == "refill":
        refill(state)
        frame["step"] = "next"
    else:
        state.stack.pop()
        begin_turn(state, (seat + 1) % state.num_players)


def discard_leftmost_event(state: State) -> bool:
    """Discard one event in the leftmost column (top row first); False if none is left."""
    for row in range(MARKET_ROWS):
        card = state.market[row][0]
        if card is not None and is_event(card):
            market.remove_card(state, row, 0)
            events.on_discard(state, card)
            return True
    return False


def refill(state: State) -> None:
    """Shift the rows left and deal new cards, column by column, top row first."""
    while state.phase != "over":
        market.shift_left(state)
        if not deal(state):
            return


def deal(state: State) -> bool:
    """Fill empty slots from the deck. True if Instability emptied slots again."""
    for col in range(MARKET_COLUMNS):
        for row in range(MARKET_ROWS):
            if state.market[row][col] is not None or not state.deck:
                continue
            card = state.deck.pop(0)
            state.market[row][col] = card
            market.withdraw_public_rupees(state)
            if card in DOMINANCE_CHECKS and len(market.dominance_checks_in_market(state)) > 1:
                instability(state)
                return True
    return False


def instability(state: State) -> None:
    """Two Dominance Checks in the market: one check now, both cards discarded [p. 9]."""
    state.note(P("a second Dominance Check was revealed: Instability"))
    for row, col in market.dominance_checks_in_market(state):
        state.discard.append(market.remove_card(state, row, col))
    dominance.resolve_check(state, final=market.count_dominance_checks_left(state) == 0)
