"""What a player's commit may do, for every game however it is hosted.

A player's commit adds exactly one file, the next move file `moves/NNNN-PLAYER.txt`, and
its author's address is the one game.toml gives PLAYER, who has not resigned (the seat is
then the stand-in's, games/resign.py). Its SSH signature, if it has one
by a key the game knows, must verify and be PLAYER's; with `require_signatures` it must
have one (`adjudicator.games.signatures`). Neither its author nor its committer may claim
the adjudicator's identity, which is the service's alone (`adjudicator.games.identity`).
Everything else in a game
repository is the adjudicator's, press files (`press/NNNN.md`) included: table talk is
relayed and rate-limited by the service (games/press.py). The pre-receive hook of a bare
repository refuses a push that breaks this; the service puts back what a push to a forge
changed (`adjudicator.forge.recovery`); `pamir verify` names any commit in the history that
breaks it. docs/game-repository.md states the contract.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from adjudicator.games.gamefile import GameFile
from adjudicator.games.identity import impersonation
from adjudicator.games.moves import MOVES_DIR, MoveName, parse_name, seat_taken
from adjudicator.games.objects import GameError
from adjudicator.games.press import PRESS_DIR
from adjudicator.games.repo import ADJUDICATOR, GameRepo
from adjudicator.games.signatures import examine, judge_player
from engine.phrases import P, Phrase, Term

# The trailer of the adjudicator's commit that puts back what pushed commits changed on a
# forge: the full ids of those commits. `pamir verify` checks what it put back.
RESTORE_TRAILER = "Pamir-Restore"


class ContractBreach(Exception):
    """A player's commit that does more (or less) than add the next move file: `said` is
    why, translatable (its English is the exception's text)."""

    def __init__(self, said: Phrase) -> None:
        super().__init__(str(said))
        self.said = said


@dataclass(frozen=True)
class Breach:
    """One commit that broke the contract, and how."""

    commit: str
    author: str  # "Name <email>", as the commit says
    problem: str
    said: Phrase | None = None  # the problem, translatable

    def describe(self) -> str:
        return f"commit {self.commit[:10]} by {self.author}: {self.problem}"

    def phrase(self) -> Phrase:
        """`describe` in a translatable form."""
        return P(
            "commit %(commit)s by %(author)s: %(problem)s",
            commit=self.commit[:10],
            author=self.author,
            problem=self.said or self.problem,
        )


@dataclass(frozen=True)
class Accepted:
    """A move file a player's commit added by the contract, with its bytes then (a
    player's input: its readers check its size and encoding)."""

    commit: str
    move: MoveName
    data: bytes


@dataclass
class Vetting:
    """The player commits of a range, judged one by one."""

    accepted: list[Accepted] = field(default_factory=list)
    breaches: list[Breach] = field(default_factory=list)


def is_adjudicator_commit(repo: GameRepo, commit: str) -> bool:
    """Whether the adjudicator made the commit: every commit it makes has it as committer
    (players' own commits of pushed move files do not)."""
    return repo.commit_info(commit).committer.email.lower() == ADJUDICATOR.email


def author_of(repo: GameRepo, commit: str) -> str:
    author = repo.commit_info(commit).author
    return f"{author.name} <{author.email}>"


def changes(repo: GameRepo, parent: str, commit: str) -> list[tuple[str, str]]:
    """(status, path) of every file a commit changes with respect to `parent`."""
    return repo.changes(parent, commit)


def check_commit(
    repo: GameRepo, commit: str, game: GameFile, expected: int, *, seats: bool = True
) -> MoveName:
    """The move file a player's commit adds, if it keeps the contract: exactly one new
    file, the move numbered `expected`, named for a player of `game` who has not resigned
    (`seats`: checked), authored with that player's address and signed as `game` asks
    (`game`: game.toml at the commit's parent), and neither authored nor committed as the
    adjudicator (`identity`). Raises ContractBreach saying what is wrong."""
    made = repo.commit_info(commit)
    claimed = impersonation(made)
    if claimed is not None:
        raise ContractBreach(claimed)
    if len(made.parents) != 1:
        raise ContractBreach(P("a merge commit (pull with --rebase, then push the move on top)"))
    changed = changes(repo, made.parents[0], commit)
    if not changed:
        raise ContractBreach(P("an empty commit: a commit must add the next move file"))
    for status, path in changed:
        folder, _, name = path.rpartition("/")
        if path.startswith(f"{PRESS_DIR}/"):
            raise ContractBreach(
                P(
                    "%(path)s: press files are the adjudicator's; send press by mail, which "
                    "relays it to the players and keeps it here",
                    path=path,
                )
            )
        if status != "A" or folder != MOVES_DIR or parse_name(name) is None:
            raise ContractBreach(
                P(
                    "%(path)s: a push may only add move files moves/NNNN-PLAYER.txt "
                    "(the adjudicator writes everything else)",
                    path=path,
                )
            )
    if len(changed) > 1:
        raise ContractBreach(P("%(path)s: one move file a commit", path=changed[1][1]))
    move = parse_name(changed[0][1].rpartition("/")[2])
    assert move is not None
    checked = _check_move(move, made.author.email, game, expected)
    if seats and (taken := seat_taken(game, checked.player)) is not None:
        # The seat is the stand-in's: a push by the player who left it plays nothing.
        raise ContractBreach(P("%(path)s: %(problem)s", path=checked.path, problem=taken))
    _check_plain_file(repo, commit, checked)
    problem = judge_player(examine(repo, commit, game), checked.player, game)
    if problem is not None:
        # The signature's problem is the signing tools' words, kept as they are.
        raise ContractBreach(
            P("%(path)s: %(problem)s", path=checked.path, problem=Term(problem, translated=False))
        )
    return checked


def _check_move(move: MoveName, email: str, game: GameFile, expected: int) -> MoveName:
    if move.number != expected:
        raise ContractBreach(
            P(
                "%(path)s: the next move is number %(number)s; pull and renumber",
                path=move.path,
                number=format(expected, "04d"),
            )
        )
    try:
        entry = game.player(move.player)
    except KeyError:
        raise ContractBreach(
            P("%(path)s: no player is called %(name)s", path=move.path, name=repr(move.player))
        ) from None
    if email.lower() != entry.email.lower():
        raise ContractBreach(
            P(
                "%(path)s: a move file must be committed by its player (author email "
                "%(email)s), not %(author)s",
                path=move.path,
                email=entry.email,
                author=email or "nobody",
            )
        )
    return MoveName(move.number, entry.name, move.file)


def _check_plain_file(repo: GameRepo, commit: str, move: MoveName) -> None:
    """A move file must be a file: a symbolic link or a submodule in its place would make
    the game unreadable once adjudicated (and a link may point at any file)."""
    try:
        repo.data(move.path, commit)
    except GameError:
        raise ContractBreach(
            P(
                "%(path)s: a move file must be a plain file, not a symbolic link or a submodule",
                path=move.path,
            )
        ) from None


def commits_between(repo: GameRepo, base: str, tip: str) -> list[str]:
    """The commits of `tip` that `base` does not have, oldest first."""
    return repo.commits_between(base, tip)


def vet(repo: GameRepo, base: str, tip: str, game: GameFile, expected: int) -> Vetting:
    """Judge every commit after `base` up to `tip` as a player's: which added a move file
    by the contract (numbered on from `expected`), and which broke it."""
    result = Vetting()
    for commit in commits_between(repo, base, tip):
        try:
            move = check_commit(repo, commit, game, expected)
        except ContractBreach as breach:
            result.breaches.append(
                Breach(commit, author_of(repo, commit), str(breach), breach.said)
            )
            continue
        result.accepted.append(Accepted(commit, move, repo.data(move.path, commit) or b""))
        expected += 1
    return result


def tree_files(repo: GameRepo, commit: str) -> dict[str, tuple[str, int]]:
    """Every file of a commit: its blob id and mode, by path."""
    return repo.tree_files(commit)


def blob_id(data: bytes) -> str:
    """The id Git gives a file's content (to compare contents without writing them)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def restored_commits(message: str) -> list[str]:
    """The commits an adjudicator's restore commit says it put back, from its trailer."""
    for line in message.splitlines():
        if line.startswith(f"{RESTORE_TRAILER}: "):
            return line.removeprefix(f"{RESTORE_TRAILER}: ").split()
    return []
