"""A game's clock as its repository records it: when it started, its pauses, timeouts.

The repository stays the source of truth (docs/scheduler.md): the clock of the pending
decision started at the commit time of the last commit that changed the position or a
rollback proposal, or the `[deadlines]` table of game.toml (games/clockstart.py); pauses
are `[[pause]]` tables of `deadlines.toml`, each added by its own commit. When the
deadline has passed, `apply_timeouts` submits the documented default of the decision
(engine.default_action, docs/decisions.md) for every player who must decide, as the
adjudicator's commits. The caller holds the game's lock.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import engine

# re-exported: the scheduler's callers read a game's clock from this module
from adjudicator.games.clockstart import clock_started as clock_started
from adjudicator.games.outputs import Adjudication, Refusal
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot

# re-exported: the clock is read and pauses recorded below the scheduler (games/waiting.py)
from adjudicator.games.waiting import Waiting as Waiting
from adjudicator.games.waiting import read_deadlines as read_deadlines
from adjudicator.games.waiting import record_pause as record_pause
from adjudicator.games.waiting import standin_lines as standin_lines
from adjudicator.games.waiting import waiting as waiting

ON_BEHALF = "deadline passed"
MAX_DEFAULT_STEPS = 50  # a decision answered step by step (a tax, a discard) is bounded


def default_lines(state: engine.State, seat: int) -> list[str]:
    """The defaults that answer the decision pending for `seat`, in the notation.

    A decision answered step by step (the rupees of a tax, the discards down to a limit)
    is answered to its end: defaults are applied while the same kind of decision, at the
    same depth of the stack, waits for the same player.
    """
    decision = engine.pending(state)
    if decision is None or seat not in decision.seats:
        return []
    kind, depth, turn = decision.kind, len(state.stack), state.turn
    lines: list[str] = []
    while len(lines) < MAX_DEFAULT_STEPS:
        now_pending = engine.pending(state)
        if (
            state.turn != turn  # the next turn is a new decision with its own clock
            or now_pending is None
            or now_pending.kind != kind
            or len(state.stack) != depth
            or seat not in now_pending.seats
        ):
            break
        action = engine.default_action(state, seat)
        if action is None:
            break
        lines.append(engine.format_action(action))
        state = engine.apply(state, seat, action)
    return lines


def apply_timeouts(repo: GameRepo, home: Path, now: datetime) -> list[Adjudication]:
    """If the pending decision's deadline has passed at `now`, submit its default for each
    player who must decide (one adjudicator commit each); else do nothing. `home` is the
    service's data folder."""
    pending = waiting(repo)
    if pending is None or pending.pushed or not pending.clock.is_due(now):
        return []
    state = position(snapshot(repo), home)
    decision = engine.pending(state)
    if decision is None:
        return []
    depth = len(state.stack)
    done: list[Adjudication] = []
    for seat in decision.seats:
        if done:
            state = position(snapshot(repo), home)
            now_pending = engine.pending(state)
            if now_pending is None or now_pending.kind != decision.kind:
                break  # the timed-out decision is over; the next one has its own clock
            if len(state.stack) != depth:
                break
        game = snapshot(repo).game
        who = state.name(seat)
        # A resigned seat is the stand-in's for the rest of the game, whatever on_timeout.
        resigned = game.has_resigned(who)
        standin = resigned or game.deadlines.on_timeout == "standin"
        lines = standin_lines(state, seat) if standin else default_lines(state, seat)
        if not lines:
            continue
        how = "a stand-in played" if standin else "the default answer was given"
        text = f"# note: the deadline passed: {how} for {who}\n"
        if resigned:
            text = f"# note: {who} resigned: the stand-in plays for them\n"
        try:
            done.append(
                submit(
                    repo,
                    state.name(seat),
                    text + "\n".join(lines) + "\n",
                    home=home,
                    on_behalf=ON_BEHALF,
                )
            )
        except Refusal:
            break  # the game moved meanwhile (a push); the next run looks again
    return done
