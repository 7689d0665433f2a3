"""`pamir demo`: a complete game of random legal moves.

By default the game goes through the real pipeline: a game repository is created under
PAMIR_HOME/games/, and random-legal bots submit every move as a Git commit that the
adjudicator validates, reports and commits. `--log-only` just prints the engine's log.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import engine
from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import position, submit
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings
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


def fresh_game_dir(games: Path, seed: int) -> Path:
    base = games / f"demo-{seed}"
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


def bot_submission(state: State, rng: int) -> tuple[int, str, str]:
    """A random bot's move file: its decisions until someone else must decide."""
    choices = legal_seat_actions(state)
    seat = choices[0][0]
    lines: list[str] = []
    while state.phase != "over":
        mine = [a for s, a in legal_seat_actions(state) if s == seat]
        if not mine:
            break
        rng, pick = below(rng, len(mine))
        action = mine[pick]
        lines.append(format_action(action))
        state = engine.apply(state, seat, action)
    return rng, state.name(seat), "\n".join(lines) + "\n"


def run_pipeline(
    settings: Settings, players: int = 3, seed: int = 2026, *, wakhan: bool = False
) -> Path:
    """Play a complete game through the real pipeline, in the games of `settings.home`:
    every move file is a Git commit."""
    home = settings.home
    path = fresh_game_dir(settings.games_dir, seed)
    names = list(NAMES[:players])
    secret = hashlib.sha256(f"pamir demo {seed} {path.name}".encode()).hexdigest()
    people = [(n, f"{n}@example.org") for n in names]
    repo = create_game(path, people, home=home, secret=secret, wakhan=wakhan)
    against = " against Wakhan" if wakhan else ""
    print(f"Pax Pamir demo: {players} bots play a complete game{against} through Git (seed {seed})")
    print(f"game repository: {path}")
    rng = seed_state(seed)
    moves = 0
    while True:
        state = position(snapshot(repo), home)
        if state.phase == "over":
            break
        rng, author, text = bot_submission(state, rng)
        done = submit(repo, author, text, home=home)
        moves += 1
        summary = "; ".join(text.split("\n")[:-1])
        print(f"  move {done.number:4d} {author:<6} {summary}")
    final = view(state)
    print(f"\nThe game ended after {moves} moves and {state.turn} turns.")
    for p in final["players"]:
        print(f"  {p['name']:<6} {p['loyalty']:<8} VP {p['vp']:>2}  rupees {p['rupees']:>2}")
    print(f"Winner: {' and '.join(final['winners'])}")
    result = verify(repo, home)
    outcome = "ok" if result.ok else result.divergence
    print(f"pamir verify: {outcome} (secret revealed: {result.revealed})")
    print(f"\nrepository: {path}\nreports:    {path / 'reports'}")
    print(f"history:    pamir log {path}")
    print(f"web page:   {settings.base_url}/games/{snapshot(repo).game.id} (after: pamir serve)")
    return path
