"""Rollback: back to the position after move N, by new commits, never by rewriting history.

The moves after N stay in the repository and in its history; `rollbacks.toml` lists them
as undone, with the reason, and replays skip them. Two ways in:
- `pamir rollback GAME_DIR --to N --reason TEXT`, by whoever runs the service;
- by consent: a move file holding `rollback N REASON` proposes it, and it takes effect when
  every other player has submitted a move file holding `agree rollback`.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from adjudicator.games.moves import MoveName, rollback_request
from adjudicator.games.objects import Person
from adjudicator.games.outputs import (
    BOARD_FILE,
    Adjudication,
    Refusal,
    Said,
    board_document,
    now,
    report_for,
    state_document,
    trailers,
    write_private_sections,
    write_translated_reports,
)
from adjudicator.games.repo import ADJUDICATOR, GameRepo
from adjudicator.games.snapshot import (
    REPORTS_DIR,
    REVEAL_FILE,
    ROLLBACKS_FILE,
    STATE_FILE,
    Rollbacks,
    Snapshot,
    replay,
    snapshot,
)
from engine.phrases import P, Phrase, Term, Value


class RollbackRefused(Exception):
    """A rollback that cannot be done; nothing was committed. `code` is stable."""

    def __init__(self, code: str, message: Phrase) -> None:
        super().__init__(str(message))
        self.code = code
        self.phrase = message  # said in a reader's language by a refusal's mail

    def __str__(self) -> str:
        return f"{self.code}: {self.args[0]}"


def effective_moves(snap: Snapshot) -> list[int]:
    """Adjudicated move numbers that still count (not undone)."""
    undone = snap.rollbacks.undone
    return [m.number for m in snap.moves if m.number <= snap.adjudicated and m.number not in undone]


def _check_target(snap: Snapshot, to: int) -> None:
    if snap.repo.read(REVEAL_FILE, snap.commit) is not None:
        raise RollbackRefused("game-over", P("the game is over and its secret revealed"))
    if to != 0 and to not in effective_moves(snap):
        raise RollbackRefused(
            "bad-rollback", P("move %(to)s is not an adjudicated move that still counts", to=to)
        )
    latest = max(effective_moves(snap), default=0)
    if to >= latest:
        raise RollbackRefused(
            "bad-rollback",
            P("the game is already at the position after move %(latest)s", latest=latest),
        )


def _undo(snap: Snapshot, to: int, reason: str, by: str, number: int) -> Rollbacks:
    undone = [n for n in effective_moves(snap) if n > to]
    record = {"to": to, "undone": undone, "reason": reason, "by": by, "at": number}
    done = [*snap.rollbacks.done, record]
    return Rollbacks(done, None, snap.rollbacks.refused)


def _files(
    home: Path,
    snap: Snapshot,
    number: int,
    rollbacks: Rollbacks,
    title: Said,
    happened: list[Said],
    when: datetime,
) -> tuple[dict[str, bytes | None], str]:
    after = Snapshot(snap.repo, snap.commit, snap.game, snap.moves, rollbacks, number)
    state, _ = replay(after, home, upto=number)
    lines = [str(line) for line in happened]  # state.json records the English
    state_text = state_document(snap.game.id, number, {"rollback": lines}, state, happened)
    report = report_for(after, number, title, state, happened, when)
    write_private_sections(home, after, number, state)
    write_translated_reports(home, after, number, title, state, happened, when)
    files: dict[str, bytes | None] = {
        ROLLBACKS_FILE: rollbacks.dump().encode(),
        STATE_FILE: state_text.encode(),
        BOARD_FILE: board_document(state, snap.game.language).encode(),
        f"{REPORTS_DIR}/{number:04d}.md": report.encode(),
    }
    return files, state_text


def plan_request(snap: Snapshot, move: MoveName, text: str) -> tuple[Rollbacks, list[Said], Said]:
    """What a rollback request does: new rollbacks, what happened, the report's title.

    Raises Refusal when the request cannot be granted (nothing to agree to, a bad move
    number, a proposal already open).
    """
    request = rollback_request(text)
    assert request is not None
    proposal = snap.rollbacks.proposal
    names = snap.game.names
    if request.to is not None:
        if proposal is not None:
            raise Refusal("rollback-open", P("a rollback proposal is already open"))
        try:
            _check_target(snap, request.to)
        except RollbackRefused as error:
            raise Refusal(error.code, error.phrase) from None
        proposal = {
            "to": request.to,
            "by": move.player,
            "reason": request.reason,
            "agreed": [move.player],
            "move": move.number,
        }
    else:
        if proposal is None:
            raise Refusal("no-rollback", P("there is no rollback proposal to agree to"))
        if move.player in proposal["agreed"]:
            # Each accepted move file restarts the clock: agreeing again would let a
            # player extend their own deadline for as long as the proposal stays open.
            waiting = [n for n in names if n not in proposal["agreed"]]
            raise Refusal(
                "already-agreed",
                P(
                    "%(who)s already agreed to the rollback to move %(to)s (and proposed it); "
                    "it waits for %(waiting)s to agree",
                    who=move.player,
                    to=proposal["to"],
                    waiting=", ".join(waiting),
                )
                if proposal["by"] == move.player
                else P(
                    "%(who)s already agreed to the rollback to move %(to)s; "
                    "it waits for %(waiting)s to agree",
                    who=move.player,
                    to=proposal["to"],
                    waiting=", ".join(waiting),
                ),
            )
        proposal = {**proposal, "agreed": [*proposal["agreed"], move.player]}
    reason = _reason(str(proposal["reason"]))
    about = P("move %(to)s: %(reason)s", to=int(proposal["to"]), reason=reason)
    agreed_names = Term(", ".join(proposal["agreed"]), translated=False)
    by, player = Term(str(proposal["by"]), False), Term(move.player, False)
    waiting = [n for n in names if n not in proposal["agreed"]]
    happened: list[Said]
    title: Said
    if waiting:
        rollbacks = Rollbacks(snap.rollbacks.done, proposal, snap.rollbacks.refused)
        if request.to is not None:
            happened = [P("%(by)s proposes to roll back to %(about)s", by=by, about=about)]
        else:
            happened = [
                P(
                    "%(player)s agrees to roll back to %(about)s (proposed by %(by)s)",
                    player=player,
                    about=about,
                    by=by,
                ),
                P("agreed so far: %(names)s", names=agreed_names),
            ]
        waits = Term(", ".join(waiting), translated=False)
        happened.append(
            P("waiting for %(names)s to agree (a move file holding 'agree rollback')", names=waits)
        )
        title = P("move %(number)s: rollback proposed", number=move.number)
    else:
        rollbacks = _undo(
            snap, int(proposal["to"]), str(proposal["reason"]), "consent", move.number
        )
        happened = [
            P(
                "rolled back to the position after move %(to)s by consent: %(reason)s",
                to=int(proposal["to"]),
                reason=reason,
            ),
            P("%(player)s agreed last; agreed: %(names)s", player=player, names=agreed_names),
        ]
        title = P(
            "move %(number)s: rollback to move %(to)s", number=move.number, to=int(proposal["to"])
        )
    return rollbacks, happened, title


def _reason(reason: str) -> Value:
    """A rollback's reason as its proposer wrote it, or that they gave none."""
    return Term(reason, translated=False) if reason else P("no reason given")


def handle_request(
    repo: GameRepo,
    snap: Snapshot,
    move: MoveName,
    text: str,
    *,
    home: Path,
    pushed: bool = False,
    inbound: str | None = None,
) -> Adjudication:
    """Adjudicate a move file that proposes or agrees to a rollback (or refuse it);
    `inbound` as for `pipeline.submit`."""
    rollbacks, happened, title = plan_request(snap, move, text)
    when = now()
    files, state_text = _files(home, snap, move.number, rollbacks, title, happened, when)
    entry = snap.game.player(move.player)
    if not pushed:
        files[move.path] = text.encode()
    commit = repo.commit(
        files,
        f"Move {move.number} by {move.player}: {happened[0]}"
        + trailers(move.number, state_text, inbound=inbound),
        parent=snap.commit,
        author=ADJUDICATOR if pushed else Person(entry.name, entry.email),
        when=when,
    )
    report = files[f"{REPORTS_DIR}/{move.number:04d}.md"]
    assert report is not None
    return Adjudication(move.number, commit, report.decode())


def rollback_note(to: int, reason: str) -> str:
    """What a rollback by the service records as having happened (verify checks it)."""
    return str(rollback_said(to, reason))


def rollback_said(to: int, reason: str) -> Phrase:
    """`rollback_note` in a translatable form."""
    return P(
        "rolled back to the position after move %(to)s: %(reason)s",
        to=to,
        reason=Term(reason, translated=False),
    )


def rollback(repo: GameRepo, to: int, reason: str, *, home: Path) -> str:
    """Return the game to the position after move `to`; return the new commit. `home`
    is the service's data folder (the game's secret, the players' private sections)."""
    if not reason.strip():
        raise RollbackRefused("no-reason", P("a rollback needs a reason (--reason)"))
    repo.sync_worktree()
    snap = snapshot(repo)
    if snap.pending():
        raise RollbackRefused("pending", P("pushed moves are waiting for the adjudicator"))
    _check_target(snap, to)
    number = snap.adjudicated
    rollbacks = _undo(snap, to, reason, "adjudicator", number)
    happened: list[Said] = [rollback_said(to, reason)]
    when = now()
    title = P("rollback to move %(to)s", to=to)
    files, _ = _files(home, snap, number, rollbacks, title, happened, when)
    del files[f"{REPORTS_DIR}/{number:04d}.md"]  # the report of move N stays as it was
    message = f"Roll back to move {to}: {reason}\n\nPamir-Rollback: {to}\n"
    return repo.commit(files, message, parent=snap.commit, when=when)
