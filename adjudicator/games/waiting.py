"""The pending decision of a game and its clock, and pauses recorded by commit.

Kept below the scheduler so that every layer that acts for a player (the scheduler, the
command line, mail) reads the clock and records a pause the same way
(docs/scheduler.md). The caller holds the game's lock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import engine
from adjudicator.games.clockstart import clock_started
from adjudicator.games.deadlines import (
    DEADLINES_FILE,
    Clock,
    DeadlinesFile,
    Pause,
    PauseRefused,
    check_mail_pause,
    clock,
    dump_deadlines_file,
    parse_deadlines_file,
    plan_pause,
)
from adjudicator.games.objects import Person
from adjudicator.games.outputs import INBOUND_TRAILER
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import STATE_FILE, snapshot
from engine.phrases import P
from engine.standin import choose

MAX_STEPS = 50  # a decision answered step by step (a tax, a discard) is bounded


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

    A decision only resigned players must take is due as soon as it is pending: nobody
    will answer it but the stand-in. Cheap: reads `state.json` and the history, replays
    nothing.
    """
    snap = snapshot(repo, commit)
    assert snap.commit is not None
    data = json.loads(repo.read(STATE_FILE, snap.commit) or "{}")
    decision = (data.get("view") or {}).get("pending")
    if not decision:
        return None
    settings = snap.game.deadlines
    pauses = read_deadlines(repo, snap.commit).pause
    players = tuple(str(p) for p in decision["players"])
    due = clock(clock_started(repo, snap.commit), settings, pauses)
    if players and all(snap.game.has_resigned(p) for p in players):
        due = replace(due, deadline=due.started, reminder=None)
    return Waiting(
        game_id=snap.game.id,
        move=snap.adjudicated,
        kind=str(decision["kind"]),
        players=players,
        prompt=str(decision["prompt"]),
        timezone=settings.timezone,
        clock=due,
        pushed=bool(snap.pending()),
    )


def record_pause(
    repo: GameRepo,
    player: str,
    hours: int,
    reason: str,
    now: datetime,
    *,
    by_mail: bool = False,
    inbound: str | None = None,
) -> tuple[str, Pause, Clock]:
    """Commit `player`'s pause in deadlines.toml; return the commit, the pause and the
    pending decision's new clock. Raises PauseRefused (nothing committed).

    `by_mail`: the player asked for it themselves, so the host's `mail_pause_hours` limit
    applies too; `inbound` names the email it came in (a `Pamir-Inbound` trailer)."""
    repo.sync_worktree()
    snap = snapshot(repo)
    try:
        entry = snap.game.player(player)
    except KeyError:
        raise PauseRefused(
            "unknown-player", P("no player is called %(name)s", name=repr(player))
        ) from None
    if by_mail and entry.resigned:  # the clock is the stand-in's to keep for the seat
        raise PauseRefused(
            "resigned",
            P("%(player)s has resigned: the clock is not theirs to pause", player=entry.name),
        )
    pending = waiting(repo, snap.commit)
    if pending is None:
        raise PauseRefused("no-decision", P("the game waits for no decision: it is over"))
    data = read_deadlines(repo, snap.commit)
    if by_mail:
        check_mail_pause(data, entry.name, hours)
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
    if inbound is not None:
        message += f"{INBOUND_TRAILER}: {inbound}\n"
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
            P(
                "the deadline passed at %(due)s: the clock can no longer be paused for "
                "this decision (deadlines.toml [limits] late_pause)",
                due=due.strftime("%Y-%m-%d %H:%M UTC"),
            ),
        )
    return due - timedelta(seconds=1)


def standin_lines(state: engine.State, seat: int) -> list[str]:
    """The stand-in's answers for `seat`, for as long as that seat must decide."""
    lines: list[str] = []
    turn = state.turn
    while len(lines) < MAX_STEPS:
        decision = engine.pending(state)
        if decision is None or seat not in decision.seats or state.turn != turn:
            break
        action = choose(state, seat)
        lines.append(engine.format_action(action))
        state = engine.apply(state, seat, action)
    return lines
