"""`pamir verify`: replay the game and check every committed state and report.

Walks the game branch from its first commit. At each commit, `state.json` must be what
the replay gives after the moves adjudicated by then (with the rollbacks recorded by
then); each report must be what the replay renders at the commit that adjudicated it, and
must not have changed since. With `reveal.toml` the secret is checked against the
commitment; before the reveal only the service holding the secret can verify.
`board.svg`, in each commit that has one, must be the replayed position drawn. In a game
in another language than English, a report's line and a board may also be in English, as
the engine said some lines, and the board was drawn, before they spoke the game's language.
A report's line may also be the replay's in the engine's earlier English wording
(`EARLIER_WORDING`: counts said "1 rupee(s)" before they said "1 rupee").

Every commit must also keep the contract of `adjudicator.games.contract`: one the
adjudicator made (its committer) is checked against the replay; any other only adds the
next move file, by its player. A player's commit that broke it is acceptable only when a
later restore commit of the service names it and put back exactly the files the
adjudicator had, plus the move files added by the contract meanwhile: it is then reported
as refused, not as a divergence.

Every commit's signer is named (`signers`): a player, the adjudicator, or nobody
(`adjudicator.games.signatures`, docs/signing.md). A player's commit whose signature does
not hold breaks the contract like any other; an adjudicator's commit must be signed by the
key game.toml records, once the game records one, or the history diverges.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.games.contract import (
    Breach,
    ContractBreach,
    author_of,
    blob_id,
    check_commit,
    is_adjudicator_commit,
    restored_commits,
    tree_files,
)
from adjudicator.games.gamefile import GameFile
from adjudicator.games.moves import (
    RESIGNED,
    apply_submission,
    check_canonical,
    move_limit,
    public_reason,
    read_submission,
    rollback_request,
    seat_taken,
)
from adjudicator.games.objects import FILE_MODE, CommitInfo
from adjudicator.games.outputs import (
    BOARD_FILE,
    NEW_GAME_TITLE,
    Refusal,
    Said,
    move_title,
    refused_phrase,
    report_for,
    state_phrases,
)
from adjudicator.games.repo import GameRepo
from adjudicator.games.rollback import rollback_note
from adjudicator.games.signatures import describe_adjudicator, examine, judge_adjudicator
from adjudicator.games.snapshot import (
    REPORTS_DIR,
    REVEAL_FILE,
    STATE_FILE,
    GameError,
    ReplayError,
    Snapshot,
    game_seed,
    initial_state,
    replay_steps,
    snapshot,
)
from adjudicator.home.translations import SOURCE, words_for
from engine.state import as_said
from engine.view_types import PublicView


@dataclass(frozen=True)
class Signer:
    """Who signed one commit of the history, in words (docs/signing.md)."""

    commit: str
    summary: str
    signer: str


@dataclass
class Verification:
    commits: int = 0
    moves: int = 0
    revealed: bool = False
    divergence: str | None = None
    checked_reports: dict[str, str] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)  # tampering the service put back
    signers: list[Signer] = field(default_factory=list)  # every commit checked, in order

    @property
    def ok(self) -> bool:
        return self.divergence is None


class _Replayer:
    """Replays incrementally while the rollbacks stay the same; from scratch otherwise.

    The moves are played by `replay_steps`, the loop every replay uses; this only keeps
    its place between commits and what each move did."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.key: str | None = None
        self.number = 0
        self.state: engine.State | None = None
        self.logs: dict[int, list[str]] = {}
        self.saids: dict[int, list[Said]] = {}  # each move's log as phrases
        self.actions: dict[int, list[str]] = {}
        self.paths: dict[int, str] = {}  # each move replayed: its file
        self.fresh: list[int] = []  # moves replayed since the caller last looked

    def state_after(self, snap: Snapshot, number: int) -> engine.State:
        key = snap.rollbacks.dump()
        if self.state is None or key != self.key or number < self.number:
            self.key, self.number = key, 0
            self.state = initial_state(snap.game, self.seed)
        for step in replay_steps(snap, self.state, after=self.number, upto=number):
            self.paths[step.move.number] = step.move.path
            self.fresh.append(step.move.number)
            if step.outcome is not None:
                self.state = step.outcome.state
                self.logs[step.move.number] = step.outcome.log
                self.saids[step.move.number] = list(step.outcome.happened())
                self.actions[step.move.number] = step.outcome.actions
        self.number = number
        return self.state


class Diverged(Exception):
    """A commit breaks the contract of a game repository (the message says which)."""


class _Contract:
    """Follows the contract through the history: which player commits broke it, and
    whether the service's restore commits put back exactly the right files."""

    def __init__(self, repo: GameRepo, commits: list[CommitInfo], game: GameFile) -> None:
        self.repo = repo
        restores = [c for c in commits if restored_commits(c.message)]
        self.named = {
            named
            for commit in restores
            if _is_services(repo, commit.sha, game)
            for named in restored_commits(commit.message)
        }
        self.pending: list[Breach] = []  # broke the contract; a restore commit follows
        self.clean: dict[str, tuple[str, int]] = {}  # what the restore must leave
        self.expected = 0
        self.refused: list[str] = []

    def step(self, commit: CommitInfo) -> tuple[bool, Breach | None]:
        """Check one commit: (skip the replay checks, a breach to report after them).
        Raises Diverged when the commit cannot be accepted at all."""
        sha = commit.sha
        if not commit.parents:
            return False, None
        if self.is_service(sha):
            self._restore(commit)
            return False, None
        parent = commit.parents[0]
        if not self.pending:
            snap = snapshot(self.repo, parent)
            self.game, self.expected = snap.game, snap.next_number
        try:
            # A move by a player who had resigned breaks the contract; but the versions
            # before that rule adjudicated such pushes, and their histories still verify:
            # it is checked where the service put one back (named by a restore commit).
            seats = sha in self.named
            move = check_commit(self.repo, sha, self.game, self.expected, seats=seats)
        except ContractBreach as error:
            breach = Breach(sha, author_of(self.repo, sha), str(error))
            if sha not in self.named:
                if self.pending:
                    raise Diverged(breach.describe()) from None
                return False, breach  # the replay's own words come first, if it differs
            if not self.pending:
                self.clean = tree_files(self.repo, parent)
            self.pending.append(breach)
            return True, None
        self.expected += 1
        if self.pending:
            text = self.repo.read(move.path, sha) or ""
            self.clean[move.path] = (blob_id(text.encode()), FILE_MODE)
        return bool(self.pending), None

    def is_service(self, commit: str) -> bool:
        """Whether a commit is checked as the adjudicator's: it is committed as the
        adjudicator, and no restore commit of the service names it as a pushed commit it
        put back (one that claimed the identity, refused since: a player's)."""
        return is_adjudicator_commit(self.repo, commit) and commit not in self.named

    def _restore(self, commit: CommitInfo) -> None:
        if not self.pending:
            return
        sha = commit.sha
        named = restored_commits(commit.message)
        first = self.pending[0].describe()
        if set(named) != {b.commit for b in self.pending}:
            raise Diverged(f"{first}; not put back by the adjudicator")
        if tree_files(self.repo, sha) != self.clean:
            raise Diverged(f"{first}; commit {sha[:10]} did not put back the right files")
        self.refused += [f"{b.describe()} (put back by {sha[:10]})" for b in self.pending]
        self.pending = []

    def finish(self) -> None:
        if self.pending:
            raise Diverged(self.pending[0].describe())


def verify(repo: GameRepo, home: Path) -> Verification:
    """Check the whole history; raise GameError when the game cannot be replayed at all
    (no secret before the reveal, or a revealed secret that does not match). Before the
    reveal the secret is looked for in the service's data folder `home`.

    Linear in the length of the game: each commit's objects are read in this process once
    (trees and blobs are shared by id between commits), the replay resumes where the
    previous commit left off, and reports and move files are compared by their Git object
    ids at the tip rather than read again."""
    result = Verification()
    head = repo.head()
    # The secret revealed at the tip seeds every position of the game; checked here
    # against the commitment before anything is replayed.
    # The commitment is the first commit's: a player's commit that changes it, or one that
    # adds a reveal of its own, is named (a changed commitment below, when the history is
    # walked).
    commits = [repo.commit_info(c.hexsha) for c in repo.log()]
    first = snapshot(repo, commits[0].sha if commits else None)
    try:
        seed = game_seed(first, home, reveal_at=head)
    except GameError as error:
        if repo.read(REVEAL_FILE, head) is None:
            raise  # no secret at all: this service cannot verify before the reveal
        result.divergence = f"reveal.toml: {error}{_written_by(repo)}"
        return result
    replayer = _Replayer(seed)
    lasts: dict[int, dict[str, object]] = {}  # the 'last' each engine move must show
    contract = _Contract(repo, commits, first.game)
    keys = first.game  # game.toml at each commit's parent: the keys in force
    replayed: dict[int, str] = {}  # move number -> object id of the text last replayed
    limit = move_limit(home)
    for commit in commits:
        result.commits += 1
        try:
            skip, breach = contract.step(commit)
            _check_signer(repo, commit, keys, result, contract.is_service(commit.sha))
        except Diverged as error:
            result.divergence = str(error)
            return result
        if skip:
            continue  # a tampered tree the service put back later: nothing to replay
        snap = snapshot(repo, commit.sha)
        keys = snap.game
        try:
            state = replayer.state_after(snap, snap.adjudicated)
        except ReplayError as error:
            result.divergence = f"commit {commit.sha[:10]}: move cannot be replayed: {error.error}"
            return result
        for number in replayer.fresh:
            replayed[number] = repo.object_id(replayer.paths[number], commit.sha) or ""
        replayer.fresh.clear()
        problem = _check_commit(repo, commit, snap, state, replayer, lasts, result, limit)
        if problem is None and breach is not None:
            problem = breach.describe()
        if problem is not None:
            result.divergence = problem
            return result
    try:
        contract.finish()
    except Diverged as error:
        result.divergence = str(error)
        return result
    result.refused = contract.refused
    if head is not None:
        reports = repo.ids(REPORTS_DIR, head)
        for path, written in result.checked_reports.items():
            if reports.get(path.removeprefix(f"{REPORTS_DIR}/"), "").split(" ")[-1] != written:
                result.divergence = f"{path} was changed after its move was adjudicated"
                return result
        for move in snapshot(repo, head).moves:
            played = replayed.get(move.number)
            if played is not None and repo.object_id(move.path, head) != played:
                result.divergence = f"{move.path} was changed after it was adjudicated"
                return result
    result.revealed = repo.read(REVEAL_FILE, head) is not None
    return result


# A refusal's stable part: the line it names and its code (docs/notation.md lists the
# codes; the words after them may improve from one version to the next).
REFUSAL_CODE = re.compile(r"^(?:line (\d+): )?([a-z][a-z0-9-]*): ")
TOO_LARGE = re.compile(r"too-large: the move file is (\d+) bytes; max_move_bytes allows (\d+)")


def _refusal_problem(
    commit: CommitInfo,
    snap: Snapshot,
    state: engine.State,
    number: int | None,
    limit: int,
) -> str | None:
    """For the commit that refused a pushed move: what it records (state.json's
    'last.refused', its subject) against the refusal the move meets in the replayed
    position, as the pipeline refuses it (None when they agree, or for any other commit).
    The move must be refused there, state.json's 'last' must record exactly that refusal
    and the subject give the same reason; a refusal kept with its phrase must name the
    replay's line and code. The reason's words are not compared, as they may have
    improved since (the phrase must say them: `_check_commit`). A rollback request
    refused is left to its report. A move refused as too large is taken at its word when
    it is as large as it says and larger than the limit it names: the limit is a setting,
    which may have been another then."""
    if number is None or number not in snap.rollbacks.refused:
        return None
    if not commit.summary.startswith(f"Refuse move {number} by "):
        return None
    where = f"commit {commit.sha[:10]}"
    move = next((m for m in snap.moves if m.number == number), None)
    if move is None:
        return f"{where}: it refuses move {number}, which it does not hold"
    data = snap.data(move)
    last = (snap.document or {}).get("last")
    recorded = last.get("refused") if isinstance(last, dict) else None
    # A move pushed by a player who had resigned is refused before it is read; the
    # versions before that rule refused it for what the engine said, as below.
    taken = seat_taken(snap.game, move.player)
    try:
        if taken is not None and str(recorded).startswith(f"{RESIGNED}: "):
            raise Refusal(RESIGNED, taken)
        text = read_submission(data, max(limit, len(data)))
        check_canonical(text)
        if rollback_request(text) is not None:
            return None
        apply_submission(state, move.player, text)
    except Refusal as refused:
        reason = str(refused)
    except engine.MoveError as error:
        reason = public_reason(error)
    else:
        reason = ""
    if not isinstance(recorded, str) or last != {
        "number": number,
        "player": move.player,
        "refused": recorded,
    }:
        return f"{where}: {STATE_FILE} 'last' does not record move {number}'s refusal"
    if commit.summary != f"Refuse move {number} by {move.player}: {recorded}".partition("\n")[0]:
        return f"{where}: its subject and {STATE_FILE} give move {number}'s refusal differently"
    too_large = TOO_LARGE.fullmatch(recorded)
    if too_large and int(too_large.group(1)) == len(data) > int(too_large.group(2)):
        return None
    if not reason:
        return f"{where}: move {number} is recorded as refused, but it plays in the replay"
    phrases = (snap.document or {}).get("phrases")
    if not isinstance(phrases, dict) or "refused" not in phrases:
        # Recorded before refusals were kept as phrases: an older version may have refused
        # it under another code (a line in Polish words was an unknown word before it was
        # `not-canonical`); that the replay refuses it too is what can be checked.
        return None
    found, wanted = REFUSAL_CODE.match(recorded), REFUSAL_CODE.match(reason)
    if found is None or wanted is None or found.groups() != wanted.groups():
        return (
            f"{where}: move {number} is recorded as refused for another reason than the "
            f"replay's ({reason.partition(': ')[0] if wanted is None else wanted.group(0)}...)"
        )
    return None


def _check_commit(
    repo: GameRepo,
    commit: CommitInfo,
    snap: Snapshot,
    state: engine.State,
    replayer: _Replayer,
    lasts: dict[int, dict[str, object]],
    result: Verification,
    limit: int,
) -> str | None:
    """What one commit's state.json, board.svg and report show against the replay (None
    when they agree). The public view is made once and drawn, reported and compared.
    `limit` is the service's `max_move_bytes`."""
    sha, message = commit.sha, commit.message
    committed = snap.document or {}
    view = engine.view(state)
    expected = {"game": snap.game.id, "move": snap.adjudicated, "view": view}
    found = {key: committed.get(key) for key in expected}
    if found != expected:
        where = [k for k in expected if found[k] != expected[k]]
        return (
            f"commit {sha[:10]} ({commit.summary}): {STATE_FILE} differs from the replay "
            f"after move {snap.adjudicated} in {', '.join(where)}"
        )
    board = repo.read(BOARD_FILE, sha)  # games begun before it have none
    if board is not None and not _board_agrees(board, view, snap.game.language):
        return (
            f"commit {sha[:10]}: {BOARD_FILE} differs from the replay's board "
            f"after move {snap.adjudicated}"
        )
    number = _adjudicated_move(message)
    if number is not None and number in replayer.actions:
        lasts[number] = {
            "number": number,
            "player": _author(snap, number),
            "actions": replayer.actions[number],
            "log": replayer.logs[number],
        }
    if "Pamir-Rollback:" in message and snap.rollbacks.done:
        record = snap.rollbacks.done[-1]
        lasts[snap.adjudicated] = {
            "rollback": [rollback_note(int(record["to"]), str(record["reason"]))]
        }
    refusal = _refusal_problem(commit, snap, state, number, limit)
    if refusal is not None:
        return refusal
    want_last = lasts.get(snap.adjudicated)
    if want_last is not None and committed.get("last") != want_last:
        return (
            f"commit {sha[:10]}: {STATE_FILE} 'last' differs from move "
            f"{snap.adjudicated} as the replay plays it"
        )
    said = replayer.saids.get(number) if number is not None else None
    if number == 0:
        said = list(state.said) if len(state.said) == len(state.log) else list(state.log)
    # The last move's lines, at every commit after it too, as 'last' is checked.
    last_said = said
    if last_said is None and want_last is not None and "log" in want_last:
        last_said = replayer.saids.get(snap.adjudicated)
    if "phrases" in committed:  # (state.json files made before it have none)
        phrases = state_phrases(state, last_said)
        found = committed["phrases"] if isinstance(committed["phrases"], dict) else {}
        # (a rollback's lines are the report's, which is checked against the replay)
        found_phrases = {k: v for k, v in found.items() if k in phrases}
        if json.loads(json.dumps(phrases, ensure_ascii=False)) != found_phrases:
            return (
                f"commit {sha[:10]}: {STATE_FILE} 'phrases' differ from the replay "
                f"after move {snap.adjudicated}"
            )
        # A refused move's reason as a phrase must say `last.refused`, which pages and
        # mails show in its stead; and nothing else may be there.
        others = set(found) - set(phrases) - {"log"}
        if others - {"refused"} or ("refused" in others and refused_phrase(committed) is None):
            return (
                f"commit {sha[:10]}: {STATE_FILE} 'phrases' hold what no adjudication writes "
                f"({', '.join(sorted(others))}) after move {snap.adjudicated}"
            )
    if number is None:
        return None
    path = f"{REPORTS_DIR}/{number:04d}.md"
    report = repo.read(path, sha)
    happened = said
    if happened is not None and report is not None:
        title = NEW_GAME_TITLE if number == 0 else move_title(number, _author(snap, number))
        want = report_for(snap, number, title, state, happened, commit.committed, view=view)
        if report != want and not _lines_agree(
            report, want, snap, number, title, state, happened, commit
        ):
            return f"commit {sha[:10]}: {path} differs from the replay's report"
    if report is not None:
        result.checked_reports[path] = repo.object_id(path, sha) or ""
    result.moves = max(result.moves, number)
    return None


def _check_signer(
    repo: GameRepo, commit: CommitInfo, keys: GameFile, result: Verification, service: bool
) -> None:
    """Name the commit's signer; raise Diverged when a commit checked as the adjudicator's
    (`service`) is not signed as it must be (a player's is judged with the rest of the
    contract). One signed by the adjudicator's key that does not verify was changed after
    the service signed it; one that is not signed by that key at all only claims the
    adjudicator's identity, and is said to be no commit of the service."""
    signature = examine(repo, commit.sha, keys)
    if not service:
        result.signers.append(Signer(commit.sha, commit.summary, signature.describe()))
        return
    result.signers.append(Signer(commit.sha, commit.summary, describe_adjudicator(signature, keys)))
    problem = judge_adjudicator(signature, keys)
    if problem is None:
        return
    where = f"commit {commit.sha[:10]} ({commit.summary})"
    if signature.kind == "adjudicator":
        raise Diverged(f"{where} by the adjudicator: {problem}")
    who = commit.committer
    raise Diverged(
        f"{where} is not the service's: it claims the adjudicator's identity (committer "
        f"{who.name} <{who.email}>), but {problem}"
    )


def _is_services(repo: GameRepo, commit: str, game: GameFile) -> bool:
    """Whether a commit is the service's own: committed as the adjudicator and, in a game
    that records the adjudicator's key (`game`: the first commit's game.toml, which no
    command changes), signed by it. Only such a restore commit is believed about what it
    put back: a player's commit may carry any trailer."""
    if not is_adjudicator_commit(repo, commit):
        return False
    if game.adjudicator is None:
        return True  # a game from before signing: nothing tells the service's apart
    signature = examine(repo, commit, game)
    return signature.kind == "adjudicator" and bool(signature.valid)


def _written_by(repo: GameRepo) -> str:
    """Who last wrote reveal.toml, when it was not the adjudicator."""
    touched = repo.log(REVEAL_FILE)
    if not touched or is_adjudicator_commit(repo, touched[-1].hexsha):
        return ""
    sha = touched[-1].hexsha
    return f" (written by commit {sha[:10]} by {author_of(repo, sha)})"


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _adjudicated_move(message: str) -> int | None:
    for line in message.splitlines():
        if line.startswith("Pamir-Move: "):
            return int(line.removeprefix("Pamir-Move: ").strip())
    return None


def _author(snap: Snapshot, number: int) -> str:
    return next(m.player for m in snap.moves if m.number == number)


# The engine's English lines as they read before: a report committed then says them so.
# Each pattern rewrites one line of the replay's report into its earlier wording; the
# committed line must be exactly that, so nothing else of it is let through.
EARLIER_WORDING: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"(purchased .+ for \d+) rupees?( and took the \d+) rupees?( on it)"),
        r"\1 rupee(s)\2 rupee(s)\3",
    ),
    (re.compile(r"(purchased .+ for \d+) rupees?$"), r"\1 rupee(s)"),
    (re.compile(r"(scored \d+) victory points?$"), r"\1 victory point(s)"),
    (re.compile(r"(repaid \d+) rupees?( of leverage on )"), r"\1 rupee(s)\2"),
    (re.compile(r"(for the \d+) rupees?( she is short)"), r"\1 rupee(s)\2"),
    (re.compile(r"(: \d+) tribes?( removed \(Overthrow Rule\))"), r"\1 tribe(s)\2"),
    (re.compile(r"( takes \d+) arguments?(, not \d+: see docs/notation\.md)"), r"\1 argument(s)\2"),
)


def earlier_wording(line: str) -> str:
    """The line in the engine's earlier English wording (the line itself where none)."""
    for pattern, earlier in EARLIER_WORDING:
        line = pattern.sub(earlier, line)
    return line


def _lines_agree(
    report: str,
    want: str,
    snap: Snapshot,
    number: int,
    title: Said,
    state: engine.State,
    happened: list[Said],
    commit: CommitInfo,
) -> bool:
    """Whether the report is the replay's with some lines as the engine said them before:
    in its earlier English wording (`EARLIER_WORDING`), or, in a game in another language
    than English, in English (the engine said events', Wakhan's and the component limits'
    lines, among others, only in English before it said every line in the game's language;
    docs/i18n.md). Every other line is the same in every rendering."""
    renderings = [want]
    if snap.game.language != SOURCE:
        english = [as_said(str(line)) for line in happened]
        renderings.append(report_for(snap, number, title, state, english, commit.committed))
    lines = report.split("\n")
    split = [r.split("\n") for r in renderings]
    if any(len(r) != len(lines) for r in split):
        return False
    return all(
        line in {*rendered, *(earlier_wording(r) for r in rendered)}
        for line, *rendered in zip(lines, *split, strict=True)
    )


def _board_agrees(board: str, view: PublicView, language: str) -> bool:
    """Whether a committed board.svg is the view drawn: in the game's language, or in
    English, as every board was drawn before the drawing spoke the game's language."""
    if board == board_svg(view, words_for(language)):
        return True
    return language != SOURCE and board == board_svg(view)
