"""The adjudication pipeline: submission -> engine -> views -> report -> one Git commit.

`submit` adjudicates a move given on the command line: the move file, `state.json` and
`reports/NNNN.md` land together in one commit, or nothing lands. `adjudicate_pending`
adjudicates move files that were pushed (checked beforehand by the pre-receive hook) with
one adjudicator commit each. Every adjudicator commit carries the trailers
`Pamir-Move: N` and `Pamir-State: sha256:...`. Each adjudication is timed for /metrics
(`pamir_adjudication_seconds`); the ways in count what became of their moves.

A resigned player's seat is the stand-in's (games/resign.py) whatever the way in: `submit`
refuses a move in their name, and after every move both functions play the stand-in for
each resigned seat that must decide then (`Adjudication.followed`), so that no way in
leaves the game waiting for a player who left it.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from datetime import datetime
from pathlib import Path

import tomli_w

import engine
from adjudicator.games import continuations, positions
from adjudicator.games.codes import refusal_phrase
from adjudicator.games.continuations import is_continuation, kept_phrase
from adjudicator.games.moves import (
    ON_RESIGNED,
    RESIGN,
    RESIGNED,
    MoveName,
    Outcome,
    apply_submission,
    check_canonical,
    move_limit,
    public_reason,
    read_submission,
    resigns_to_end,
    rollback_request,
    seat_taken,
)
from adjudicator.games.objects import Person
from adjudicator.games.outputs import (
    BOARD_FILE,
    Adjudication,
    Refusal,
    Said,
    board_document,
    move_title,
    now,
    report_for,
    state_document,
    trailers,
    write_private_sections,
    write_translated_reports,
)
from adjudicator.games.repo import ADJUDICATOR, GameRepo
from adjudicator.games.rollback import handle_request
from adjudicator.games.seeds import (
    load_secret,
)
from adjudicator.games.snapshot import (
    REPORTS_DIR,
    REVEAL_FILE,
    ROLLBACKS_FILE,
    STATE_FILE,
    Rollbacks,
    Snapshot,
    game_seed,
    replay,
    snapshot,
)
from adjudicator.games.waiting import standin_lines
from adjudicator.home import metrics
from engine.aliases import english_text
from engine.phrases import P, Phrase

log = logging.getLogger(__name__)

ENGINE_VERSION = engine.__version__


def _adjudicated_files(
    home: Path, snap: Snapshot, move: MoveName, outcome: Outcome, when: datetime
) -> tuple[dict[str, bytes | None], str, str]:
    """The files an adjudicated move changes: state, report, and the reveal at the end."""
    last = {
        "number": move.number,
        "player": move.player,
        "actions": outcome.actions,
        "log": outcome.log,
    }
    said = outcome.happened()
    state_text = state_document(snap.game.id, move.number, last, outcome.state, said)
    title = move_title(move.number, move.player)
    report = report_for(snap, move.number, title, outcome.state, said, when)
    files: dict[str, bytes | None] = {
        STATE_FILE: state_text.encode(),
        BOARD_FILE: board_document(outcome.state, snap.game.language).encode(),
        f"{REPORTS_DIR}/{move.number:04d}.md": report.encode(),
    }
    if outcome.state.phase == "over":
        secret = load_secret(home, snap.game.id)
        if secret is not None:
            files[REVEAL_FILE] = tomli_w.dumps({"secret": secret}).encode()
    return files, state_text, report


def _write_for_readers(
    home: Path, snap: Snapshot, move: MoveName, outcome: Outcome, when: datetime
) -> None:
    """What each player reads besides the commit: their private section (in their
    language) and the report in the languages other than the game's."""
    notes = {}
    if outcome.continuation:
        notes[move.player.lower()] = kept_phrase(outcome.continuation, outcome.waits_for)
    write_private_sections(home, snap, move.number, outcome.state, notes)
    title = move_title(move.number, move.player)
    happened = outcome.happened()
    write_translated_reports(home, snap, move.number, title, outcome.state, happened, when)


def position(snap: Snapshot, home: Path) -> engine.State:
    """The full position after the last adjudicated move (the game's secret, until it is
    revealed, is in the service's data folder `home`): from the position cache, else
    replayed from the seed (and cached)."""
    game_seed(snap, home)  # no secret, no game: the cache does not stand in for it
    state = positions.load(snap, home)
    if state is None:
        state, _ = replay(snap, home, upto=snap.adjudicated)
        positions.store(snap, home, state)
    return state


def _remember(repo: GameRepo, home: Path, commit: str, state: engine.State) -> None:
    """Cache the position a new adjudicator commit records, for the next submission."""
    positions.store(snapshot(repo, commit), home, state)


def submit(
    repo: GameRepo,
    author: str,
    text: str,
    *,
    home: Path,
    expected: int | None = None,
    on_behalf: str | None = None,
    inbound: str | None = None,
) -> Adjudication:
    """Adjudicate a move file for `author`: one commit with the move, state and report.

    `on_behalf` is set when the service itself submits for the player (a deadline passed,
    a stand-in): the commit is then the adjudicator's and says why. `home` is the
    service's data folder (the game's secret, the players' private sections). `inbound`
    names the email the move came in, recorded as the commit's `Pamir-Inbound` trailer.
    """
    with metrics.adjudicating():
        done = _submit(repo, author, text, home, expected, on_behalf, inbound)
    # The stand-in's moves and continuations are played in a loop already.
    if on_behalf != ON_RESIGNED and not is_continuation(on_behalf):
        done.followed = _standin_follows(repo, home)
    return done


def _standin_follows(repo: GameRepo, home: Path) -> list[Adjudication]:
    """The moves that follow at once, each committed: the stand-in's for the resigned seats
    that must decide now, and the continuations of players whose decision it is again,
    until neither has anything to play."""
    done: list[Adjudication] = []
    while len(done) < MAX_STANDIN_MOVES:
        try:
            played = play_resigned(repo, home)
        except Exception:  # the move before stands: the scheduler plays the seat instead
            log.exception("game %s: the stand-in could not play a resigned seat", repo.path.name)
            played = []
        try:
            played += play_continuations(repo, home)
        except Exception:  # the move before stands; the continuation waits for the next
            log.exception("game %s: a continuation could not be played", repo.path.name)
        if not played:
            break
        done += played
    return done


def check_submission(
    snap: Snapshot,
    author: str,
    text: str,
    home: Path,
    expected: int | None = None,
    on_behalf: str | None = None,
) -> tuple[MoveName, str]:
    """The checks of a submission before it is played, in order, for a move and its preview
    (games/preview.py) alike: its name and its canonical text, or a Refusal. Reads only."""
    if snap.pending():
        raise Refusal(
            "pending", P("pushed moves are waiting for the adjudicator; try again shortly")
        )
    try:
        entry = snap.game.player(author)
    except KeyError:
        reason = P("no player is called %(name)s in this game", name=repr(author))
        raise Refusal("unknown-player", reason) from None
    if on_behalf is None and (taken := seat_taken(snap.game, entry.name)) is not None:
        # No way in takes a move, a rollback request or an agreement from a player who
        # left the game: the seat is the stand-in's.
        raise Refusal(RESIGNED, taken)
    number = snap.next_number
    if expected is not None and expected != number:
        raise Refusal(
            "stale" if expected < number else "out-of-order",
            P(
                "this submission is numbered %(expected)s but the next move is %(number)s: "
                "pull the latest state and submit again",
                expected=format(expected, "04d"),
                number=format(number, "04d"),
            ),
        )
    move = MoveName(number, entry.name)
    try:  # every way in ends here: the size limit and the encoding hold for all of them
        text = read_submission(text.encode("utf-8", "surrogatepass"), move_limit(home))
    except engine.MoveError as error:
        raise Refusal.of(error) from None
    if snap.repo.read(REVEAL_FILE, snap.commit) is not None:
        raise Refusal("game-over", P("the game is over and its secret revealed"))
    text = english_text(text)  # the record is in the notation's canonical words
    return move, text


def play_submission(
    state: engine.State, move: MoveName, text: str, may_resign: bool = False
) -> Outcome:
    """A checked submission played on the position `state`, or a Refusal."""
    if state.phase == "over":
        raise Refusal("game-over", P("the game is over; no move can be submitted"))
    try:
        return apply_submission(state, move.player, text, may_resign=may_resign)
    except engine.MoveError as error:
        raise Refusal.of(error) from None


def _submit(
    repo: GameRepo,
    author: str,
    text: str,
    home: Path,
    expected: int | None,
    on_behalf: str | None,
    inbound: str | None,
) -> Adjudication:
    snap = snapshot(repo)  # read from Git objects: the working tree plays no part
    move, text = check_submission(snap, author, text, home, expected, on_behalf)
    entry, number = snap.game.player(move.player), move.number
    if rollback_request(text) is not None:
        return handle_request(repo, snap, move, text, home=home, inbound=inbound)
    may_resign = on_behalf == ON_RESIGNED and resigns_to_end(snap.game, entry.name)
    outcome = play_submission(position(snap, home), move, text, may_resign)
    when = now()
    files, state_text, report = _adjudicated_files(home, snap, move, outcome, when)
    # A continuation's lines are not in the record until they are played: only the lines
    # played are this move's (a replay of them stops where this adjudication stopped).
    recorded = "".join(f"{line}\n" for line in outcome.played) if outcome.continuation else text
    files[move.path] = recorded.encode()
    if on_behalf is None:
        message = f"Move {number} by {entry.name}: {'; '.join(outcome.actions)}"
        by = Person(entry.name, entry.email)
    else:
        message = f"Move {number} for {entry.name} ({on_behalf}): {'; '.join(outcome.actions)}"
        by = ADJUDICATOR
    commit = repo.commit(
        files,
        message + trailers(number, state_text, inbound=inbound),
        parent=snap.commit,
        author=by,
        when=when,
    )
    _write_for_readers(home, snap, move, outcome, when)
    _remember(repo, home, commit, outcome.state)
    _keep_continuation(home, snap.game.id, move, outcome)
    if on_behalf is not None:  # the other ways in (mail, page) log their own moves
        log.info("game %s: move %d played for %s (%s)", snap.game.id, number, entry.name, on_behalf)
    return Adjudication(number, commit, report)


def adjudicate_pending(repo: GameRepo, home: Path) -> list[Adjudication]:
    """Adjudicate pushed move files in order, one adjudicator commit each (`home`: the
    service's data folder); the stand-in's moves that follow are the last one's
    `followed`."""
    done: list[Adjudication] = []
    while True:
        snap = snapshot(repo)
        pending = snap.pending()
        if not pending:
            break
        with metrics.adjudicating():
            done.append(_adjudicate_one(repo, home, snap, pending[0]))
    if done:
        done[-1].followed = _standin_follows(repo, home)
    return done


def _adjudicate_one(repo: GameRepo, home: Path, snap: Snapshot, move: MoveName) -> Adjudication:
    """Adjudicate a pushed move file, or commit its refusal."""
    try:
        if (taken := seat_taken(snap.game, move.player)) is not None:
            raise Refusal(RESIGNED, taken)  # pushed where no hook refused it: not played
        # A forge has no pre-receive hook: the size and the encoding are checked here.
        text = read_submission(snap.data(move), move_limit(home))
        check_canonical(text)  # no hook on a forge: the hook's check is made here
        if rollback_request(text) is not None:
            return handle_request(repo, snap, move, text, home=home, pushed=True)
        outcome = apply_submission(position(snap, home), move.player, text)
    except Refusal as refusal:
        # Pushed and accepted, yet not playable now: record the refusal so that the
        # game goes on and the author learns why.
        return record_refusal(repo, home, snap, move, str(refusal), refusal.phrase)
    except engine.MoveError as error:
        reason = public_reason(error)
        return record_refusal(repo, home, snap, move, reason, error.said())
    when = now()
    files, state_text, report = _adjudicated_files(home, snap, move, outcome, when)
    message = f"Adjudicate move {move.number} by {move.player}: {'; '.join(outcome.actions)}"
    commit = repo.commit(
        files, message + trailers(move.number, state_text), parent=snap.commit, when=when
    )
    _write_for_readers(home, snap, move, outcome, when)
    _remember(repo, home, commit, outcome.state)
    _keep_continuation(home, snap.game.id, move, outcome)
    log.info("game %s: pushed move %d by %s adjudicated", snap.game.id, move.number, move.player)
    return Adjudication(move.number, commit, report)


def record_refusal(
    repo: GameRepo,
    home: Path,
    snap: Snapshot,
    move: MoveName,
    reason: str,
    phrase: Phrase | None = None,
) -> Adjudication:
    """Commit that a pushed move was refused: it stays in the repository, replays skip it.
    The `reason` is public (report, state.json, commit message): no legal actions in it.
    `phrase` is the reason in a form said in every language (its English is `reason`):
    the report says it in the game's language, state.json keeps it for pages and mails."""
    rollbacks = Rollbacks(
        snap.rollbacks.done, snap.rollbacks.proposal, [*snap.rollbacks.refused, move.number]
    )
    state = position(snap, home)
    happened: list[Said] = [
        P(
            "move %(number)s by %(player)s was refused: %(reason)s",
            number=move.number,
            player=move.player,
            reason=refusal_phrase(reason, phrase),
        )
    ]
    last = {"number": move.number, "player": move.player, "refused": reason}
    state_text = state_document(snap.game.id, move.number, last, state, refused=phrase)
    when = now()
    title = P("move %(number)s refused", number=move.number)
    # A refusal changes no position: the clock keeps running (games/clockstart.py).
    report = report_for(snap, move.number, title, state, happened, when, restarts=False)
    files: dict[str, bytes | None] = {
        ROLLBACKS_FILE: rollbacks.dump().encode(),
        STATE_FILE: state_text.encode(),
        BOARD_FILE: board_document(state, snap.game.language).encode(),
        f"{REPORTS_DIR}/{move.number:04d}.md": report.encode(),
    }
    message = f"Refuse move {move.number} by {move.player}: {reason}"
    commit = repo.commit(
        files, message + trailers(move.number, state_text), parent=snap.commit, when=when
    )
    write_private_sections(home, snap, move.number, state)
    write_translated_reports(home, snap, move.number, title, state, happened, when, restarts=False)
    _remember(repo, home, commit, state)
    log.info(
        "game %s: pushed move %d by %s refused: %s", snap.game.id, move.number, move.player, reason
    )
    return Adjudication(move.number, commit, report, refused=True)


def _keep_continuation(home: Path, game_id: str, move: MoveName, outcome: Outcome) -> None:
    """Keep the mover's continuation, if the move left one; any earlier one of theirs is
    replaced (or dropped): a player's move is their latest word."""
    if not outcome.continuation:
        continuations.drop(home, game_id, move.player)
        return
    kept = continuations.Kept(
        after=move.number,
        turn=outcome.state.turn,
        lines=outcome.continuation,
        waits_for=outcome.waits_for,
    )
    continuations.keep(home, game_id, move.player, kept)


def play_continuations(repo: GameRepo, home: Path) -> list[Adjudication]:
    """Play the continuation of each player whose decision it is again, in the turn it was
    kept in, as a move of the adjudicator's for them (docs/decisions.md#continuations).
    One that is no longer legal is dropped, and its player's own section of the last move
    says why; one whose turn is over is dropped the same way."""
    done: list[Adjudication] = []
    while len(done) < MAX_STANDIN_MOVES:
        snap = snapshot(repo)
        kept = continuations.kept(home, snap.game.id)
        if not kept or snap.pending() or repo.read(REVEAL_FILE, snap.commit) is not None:
            break
        state = position(snap, home)
        ready = _ready_continuation(state, kept)
        if ready is None:
            break
        player, found = ready
        continuations.drop(home, snap.game.id, player)
        if state.phase == "over" or state.turn != found.turn:
            reason: Phrase | str = P("the turn it belonged to is over")
        else:
            who = state.name(state.seat(player))
            note = f"# note: the rest of move {found.after} by {who}, kept until "
            note += f"{' and '.join(found.waits_for)} decided\n"
            text = note + "".join(f"{line}\n" for line in found.lines)
            try:
                done.append(
                    submit(
                        repo, who, text, home=home, on_behalf=continuations.on_behalf(found.after)
                    )
                )
                continue
            except Refusal as refusal:
                reason = refusal.phrase
        notes = {player: continuations.dropped_phrase(found.after, found.lines, reason)}
        write_private_sections(home, snap, snap.adjudicated, state, notes)
        log.info("game %s: the continuation of %s was dropped: %s", snap.game.id, player, reason)
    return done


def _ready_continuation(
    state: engine.State, kept: dict[str, continuations.Kept]
) -> tuple[str, continuations.Kept] | None:
    """A continuation to play (or drop) now: its player decides again, or its turn is over."""
    decision = engine.pending(state)
    deciding = {state.name(s).lower() for s in decision.seats} if decision is not None else set()
    for player, found in sorted(kept.items()):
        if player in deciding or state.phase == "over" or state.turn != found.turn:
            return player, found
    return None


# -- the stand-in for resigned seats (games/resign.py) -----------------------------------

MAX_STANDIN_MOVES = 50  # per call; the scheduler plays on if every seat has resigned


def end_resigned(repo: GameRepo, home: Path, player: str) -> Adjudication:
    """End the game for `player`, who resigned from a game with `on_resign = "end"`: one
    adjudicator commit, whose move file holds the line `resign`. Raises Refusal when the
    game cannot take a move now (pushed move files wait: adjudicate them first)."""
    snap = snapshot(repo)
    name = snap.game.player(player).name
    text = f"# note: {name} resigned, and the host chose that the game then ends\n{RESIGN}\n"
    return submit(repo, name, text, home=home, on_behalf=ON_RESIGNED)


def play_resigned(repo: GameRepo, home: Path) -> list[Adjudication]:
    """Play the stand-in for every resigned seat that must decide now, one adjudicator
    commit each, until no resigned seat must (or a bound is reached)."""
    done: list[Adjudication] = []
    while len(done) < MAX_STANDIN_MOVES:
        snap = snapshot(repo)
        if snap.pending() or repo.read(REVEAL_FILE, snap.commit) is not None:
            break  # pushed moves come first; their adjudication calls this again
        if snap.game.on_resign == "end" and (gone := snap.game.resigned_players):
            with suppress(Refusal):  # logged by the caller's next try
                done.append(end_resigned(repo, home, gone[0]))  # an end that had to wait
            break
        if not snap.game.resigned_players:
            break  # nobody left the game: no seat is the stand-in's, and no position is read
        state = position(snap, home)
        decision = engine.pending(state)
        if decision is None:
            break
        seats = [s for s in decision.seats if snap.game.has_resigned(state.name(s))]
        played = _play_seat(repo, home, state, seats[0]) if seats else None
        if played is None:
            break
        done.append(played)
    return done


def _play_seat(repo: GameRepo, home: Path, state: engine.State, seat: int) -> Adjudication | None:
    lines = standin_lines(state, seat)
    if not lines:
        return None
    who = state.name(seat)
    text = f"# note: {who} resigned: the stand-in plays for them\n" + "\n".join(lines) + "\n"
    try:
        return submit(repo, who, text, home=home, on_behalf=ON_RESIGNED)
    except Refusal:
        return None  # the game moved meanwhile; whoever moved it plays on
