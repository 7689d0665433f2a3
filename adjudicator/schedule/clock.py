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

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import engine

# re-exported: the scheduler's callers read a game's clock from this module
from adjudicator.games.clockstart import clock_started as clock_started
from adjudicator.games.deadlines import (
    DEADLINES_FILE,
    Clock,
    DeadlinesFile,
    Pause,
    PauseRefused,
    clock,
    dump_deadlines_file,
    parse_deadlines_file,
    plan_pause,
)
from adjudicator.games.outputs import Adjudication, Refusal
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo, Person
from adjudicator.games.snapshot import STATE_FILE, snapshot
from engine.standin import choose

ON_BEHALF = "deadline passed"
MAX_DEFAULT_STEPS = 50  # a decision answered step by step (a tax, a discard) is bounded


@dataclass(frozen=True)
class Waiting:
    """The pending decision of a game and its clock."""

    game_id: str
    move: int  # the last adjudicated move; the answer will be the next one
    kind: str
    players: tuple[str, ...]
    prompt: str
    timezone: str
    clock: Clock
    pushed: bool  # pushed move files wait for the adjudicator: no timeout meanwhile


def read_deadlines(repo: GameRepo, commit: str | None = None) -> DeadlinesFile:
    return parse_deadlines_file(repo.read(DEADLINES_FILE, commit))


def waiting(repo: GameRepo, commit: str | None = None) -> Waiting | None:
    """The decision the game waits for and its clock; None when the game is over.

    Cheap: reads `state.json` and the history, replays nothing.
    """
    snap = snapshot(repo, commit)
    assert snap.commit is not None
    data = json.loads(repo.read(STATE_FILE, snap.commit) or "{}")
    decision = (data.get("view") or {}).get("pending")
    if not decision:
        return None
    settings = snap.game.deadlines
    pauses = read_deadlines(repo, snap.commit).pause
    return Waiting(
        game_id=snap.game.id,
        move=snap.adjudicated,
        kind=str(decision["kind"]),
        players=tuple(decision["players"]),
        prompt=str(decision["prompt"]),
        timezone=settings.timezone,
        clock=clock(clock_started(repo, snap.commit), settings, pauses),
        pushed=bool(snap.pending()),
    )


def record_pause(
    repo: GameRepo, player: str, hours: int, reason: str, now: datetime
) -> tuple[str, Pause, Clock]:
    """Commit `player`'s pause in deadlines.toml; return the commit, the pause and the
    pending decision's new clock. Raises PauseRefused (nothing committed)."""
    repo.sync_worktree()
    snap = snapshot(repo)
    try:
        entry = snap.game.player(player)
    except KeyError:
        raise PauseRefused("unknown-player", f"no player is called {player!r}") from None
    pending = waiting(repo, snap.commit)
    if pending is None:
        raise PauseRefused("no-decision", "the game waits for no decision: it is over")
    data = read_deadlines(repo, snap.commit)
    if pending.clock.is_due(now):
        now = _late_start(data, pending.clock.deadline)
    changed = parse_deadlines_file(
        dump_deadlines_file(plan_pause(data, entry.name, hours, reason, now))
    )
    pause = changed.pause[-1]
    started = clock_started(repo, snap.commit)
    after = clock(started, snap.game.deadlines, changed.pause)
    message = (
        f"Pause the clock for {hours} hours ({entry.name}): {pause.reason}\n\n"
        f"Pamir-Pause: {hours}\nPamir-Deadline: {after.deadline.isoformat()}\n"
    )
    made = repo.commit(
        {DEADLINES_FILE: dump_deadlines_file(changed).encode()},
        message,
        parent=snap.commit,
        author=Person(entry.name, entry.email),
        when=now,
    )
    return made, pause, after


def _late_start(data: DeadlinesFile, due: datetime) -> datetime:
    """Where a pause asked for after the deadline `due` starts, if the host allows late
    pauses: a second before `due`, while the clock still ran, so that it stops the clock
    before the default is played (a pause from `due` on would change no deadline) and
    moves the deadline by exactly its hours. Else refused: a pause then would change
    nothing but use up the player's allowance."""
    if not data.limits.late_pause:
        raise PauseRefused(
            "deadline-passed",
            f"the deadline passed at {due.strftime('%Y-%m-%d %H:%M UTC')}: the clock can "
            "no longer be paused for this decision (deadlines.toml [limits] late_pause)",
        )
    return due - timedelta(seconds=1)


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


def standin_lines(state: engine.State, seat: int) -> list[str]:
    """The stand-in's answers for `seat`, for as long as that seat must decide."""
    lines: list[str] = []
    turn = state.turn
    while len(lines) < MAX_DEFAULT_STEPS:
        decision = engine.pending(state)
        if decision is None or seat not in decision.seats or state.turn != turn:
            break
        action = choose(state, seat)
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
        standin = snapshot(repo).game.deadlines.on_timeout == "standin"
        lines = standin_lines(state, seat) if standin else default_lines(state, seat)
        if not lines:
            continue
        who = state.name(seat)
        how = "a stand-in played" if standin else "the default answer was given"
        text = f"# note: the deadline passed: {how} for {who}\n"
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
