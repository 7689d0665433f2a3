"""`pamir demo`: a complete game of random legal moves, printed as a readable log."""

from __future__ import annotations

from engine.cards import COURT_CARDS, EVENT_CARDS, is_event
from engine.game import legal_seat_actions, step
from engine.notation import format_action
from engine.playout import NAMES
from engine.rng import below, seed_state
from engine.rules.setup import new_game
from engine.state import State
from engine.view import view


def card_label(card: int) -> str:
    name = EVENT_CARDS[card].name if is_event(card) else COURT_CARDS[card].name
    return f"{card} {name}"


def print_market(state: State) -> None:
    for label, row in zip(("top", "bottom"), state.market, strict=True):
        cards = ", ".join(card_label(c) if c is not None else "(empty)" for c in row)
        print(f"  market {label}: {cards}")


def print_standings(state: State) -> None:
    public = view(state)
    for p in public["players"]:
        court = ", ".join(c["name"] for c in p["court"]) or "(empty)"
        print(
            f"  {p['name']:<6} {p['loyalty'] or '-':<8} VP {p['vp']:>2}  rupees {p['rupees']:>2}"
            f"  influence {p['influence']}  hand {p['hand_size']}  court: {court}"
        )
    rulers = [f"{r}: {v['ruler']}" for r, v in public["regions"].items() if v["ruler"]]
    print(f"  rulers: {', '.join(rulers) or 'none'}; favored suit: {public['favored']}")


def run(players: int = 3, seed: int = 2026) -> State:
    """Play and print one game; return its final state."""
    rng = seed_state(seed)
    state = new_game(list(NAMES[:players]), seed)
    print(f"Pax Pamir: a {players}-player game of random legal moves (seed {seed})")
    for line in state.log:
        print(f"  {line}")
    print_market(state)
    turn = -1
    steps = 0
    while state.phase != "over":
        if state.turn != turn and state.phase == "play":
            turn = state.turn
            print(f"\nTurn {turn}: {state.name(state.active)}")
        choices = legal_seat_actions(state)
        rng, pick = below(rng, len(choices))
        seat, action = choices[pick]
        step(state, seat, action)
        steps += 1
        print(f"  > {state.name(seat)}: {format_action(action)}")
        for line in state.log:
            print(f"      {line}")
        if any(line.startswith("Dominance Check:") for line in state.log):
            print_standings(state)
    print(f"\nThe game ended after {state.turn} turns and {steps} decisions.")
    print_standings(state)
    winners = " and ".join(state.name(s) for s in state.winners)
    print(f"Winner: {winners}")
    return state
