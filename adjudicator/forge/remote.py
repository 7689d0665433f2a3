"""Games hosted on a forge (GitHub, Gitea): the service's clone and keeping it in step.

Players push move files to the forge's repository. The service keeps a working clone in
PAMIR_HOME/games/<id> whose `origin` remote is the forge's repository. On each push (a
webhook delivery, or the scheduler's poll) `update` fetches, fast-forwards the clone's
`main` to `origin/main`, adjudicates the pushed moves and pushes the adjudicator commits
back. If a player pushed again meanwhile, the push back is refused as not a fast-forward:
the clone goes back to the fresh `origin/main` and adjudicates again (a bounded number of
times). Moves the service committed itself (by email, at a deadline) that have not reached
the forge yet are submitted again on top, so that none is lost.

Callers hold the game's lock (`registry.game_lock`) around `update`, and tell the players
what it did (`adjudicator.mail.ledger.announce`).
The fetches and pushes are in `transport`, what is put back on the forge in `recovery`,
what the players are told in `notices`, and setting a game up in `newgames`.
docs/web.md describes how to set a game up.
"""

from __future__ import annotations

import configparser
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from adjudicator.forge.notices import RefusedMove, Update, restore_notice
from adjudicator.forge.records import record, recorded
from adjudicator.forge.recovery import rewritten, vetted
from adjudicator.forge.transport import ORIGIN, TRACKING, RemoteError, fetch, push, rev
from adjudicator.games import hosting, pipeline
from adjudicator.games.hosting import normalize_url
from adjudicator.games.moves import MOVES_DIR, ON_RESIGNED, MoveName, parse_name
from adjudicator.games.outputs import (
    INBOUND_TRAILER,
    Adjudication,
    Refusal,
    and_followers,
    refused_phrase,
)
from adjudicator.games.registry import list_games
from adjudicator.games.repo import REF, GameRepo, RepoError, StaleHead
from adjudicator.games.signatures import examine
from adjudicator.games.snapshot import GameError, snapshot, state_record
from adjudicator.home import backend, metrics
from adjudicator.home.settings import Settings
from adjudicator.home.store import DatabaseStore, store_for

MAX_ATTEMPTS = 5
ON_BEHALF = re.compile(r"^Move \d+ for [^ ]+ \((?P<why>.*)\): ")
_INBOUND = re.compile(rf"^{INBOUND_TRAILER}: (\S+)$", re.MULTILINE)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _LocalMove:
    """A move committed by this service that the forge does not have yet."""

    player: str
    text: str
    on_behalf: str | None


# -- URLs ------------------------------------------------------------------------------------


def origin_url(repo: GameRepo) -> str | None:
    """The URL of a clone's `origin` remote, or None (read in this process)."""
    reader = repo.repo.config_reader("repository")
    try:
        return str(reader.get_value(f'remote "{ORIGIN}"', "url")).strip() or None
    except (KeyError, ValueError, configparser.Error):
        return None
    finally:
        reader.release()


def is_remote(repo: GameRepo) -> bool:
    """Whether a game is a clone of a forge-hosted game (it has an `origin` remote)."""
    return not repo.bare and origin_url(repo) is not None


_REMOTE_SECTION = re.compile(r'^\s*\[remote\s+"origin"\]\s*$')
_URL_LINE = re.compile(r"^\s*url\s*=\s*(.+?)\s*$")


def _configured_origin(path: Path) -> str | None:
    """The `origin` URL in a working clone's .git/config, read as text."""
    config = path / ".git" / "config"
    if not config.is_file():
        return None
    inside = False
    for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.lstrip().startswith("["):
            inside = bool(_REMOTE_SECTION.match(line))
        elif inside and (match := _URL_LINE.match(line)):
            return match.group(1)
    return None


def _game_id_of(path: Path) -> str | None:
    try:
        repo = GameRepo(path)
    except RepoError:
        return None
    try:
        return snapshot(repo).game.id
    except (GameError, ValueError):
        # Still this game, though it cannot be read now: the delivery is what may repair it.
        return path.name.removesuffix(".git")
    finally:
        repo.repo.close()


def find_game(settings: Settings, full_name: str, urls: Sequence[str]) -> str | None:
    """The id of the game whose service clone tracks the forge repository `full_name`
    reached at `urls`: its `origin` URL matches one of them, or game.toml's option
    `remote` names the repository (as `owner/name` or a URL)."""
    if backend.of(settings).several_nodes:
        # PostgreSQL mode: the registry holds every forge-hosted game (a clone made by hand
        # is registered when a node starts: hosting.register_clones), found by one indexed
        # lookup and cloned here when another node set it up; a repository it does not
        # name is no game of the service's, whatever the number of games (no survey).
        found = hosting.find(settings, list(urls))
        if found is not None and hosting.clone(settings, *found) is not None:
            return found[0]
        return None
    wanted = {normalize_url(u) for u in urls if u}
    # First, cheaply: each clone's origin URL read from its Git config file, with no
    # process started and no repository opened (a service may host many games).
    if settings.games_dir.is_dir():
        for path in sorted(settings.games_dir.iterdir()):
            origin = _configured_origin(path)
            if origin is not None and normalize_url(origin) in wanted:
                return _game_id_of(path)
    games = list_games(settings)
    try:
        for game_id, repo in games:
            if repo.bare:
                continue  # a self-hosted game: players push to it, not to a forge
            origin = origin_url(repo)
            if origin is not None and normalize_url(origin) in wanted:
                return game_id
            option = snapshot(repo).game.options.get("remote")
            if option and (
                option.strip().lower() == full_name.lower() or normalize_url(option) in wanted
            ):
                return game_id
    finally:
        for _, repo in games:
            repo.repo.close()
    return None


# -- The clone's commits ------------------------------------------------------------------------


def _is_ancestor(repo: GameRepo, old: str, new: str) -> bool:
    return repo.is_ancestor(old, new)


def _move_to(repo: GameRepo, commit: str, expected: str | None) -> None:
    """Point main at `commit` (compare-and-swap, in this process). The files are checked
    out once, at the end of `update`: everything in between reads Git objects."""
    try:
        repo.update_ref(REF, commit, expected)
    except StaleHead:
        raise RepoError(f"{repo.path.name}: the game moved while it was being updated") from None


def _local_only(repo: GameRepo, upstream: str, start: str) -> list[_LocalMove]:
    """Moves the service committed on `start` that `upstream` does not have, oldest first.

    Adjudications of pushed moves are simply made again; any other local-only commit
    (a rollback by the service, say) cannot be redone automatically.
    """
    moves: list[_LocalMove] = []
    played = _inbound_keys(repo, start, upstream)
    for sha in repo.commits_between(upstream, start):
        commit = repo.repo.commit(sha)
        parents = repo.parents(sha)
        added = [path for status, path in repo.changes(parents[0], sha) if status == "A"]
        names = [p for p in added if p.startswith(f"{MOVES_DIR}/")]
        message = str(commit.message)
        if _inbound_key(message) in played:
            continue  # the same message, played by another node: on the forge already
        if not names:
            if "\nPamir-Move: " in message:
                continue  # an adjudication: redone from the move files
            raise RemoteError(
                f"{repo.path.name}: commit {sha[:10]} ({message.splitlines()[0]}) is not on "
                "the forge and cannot be redone; push it by hand"
            )
        for name in names:
            move = parse_name(name.removeprefix(f"{MOVES_DIR}/"))
            text = repo.read(name, sha)
            if move is None or text is None:
                continue
            behalf = ON_BEHALF.match(message.splitlines()[0])
            moves.append(_LocalMove(move.player, text, behalf.group("why") if behalf else None))
    return moves


def _inbound_key(message: str) -> str | None:
    """The inbound message a commit names in its Pamir-Inbound trailer, or None."""
    found = _INBOUND.search(message)
    return found.group(1) if found else None


def _inbound_keys(repo: GameRepo, start: str, upstream: str) -> set[str]:
    """The inbound messages that the commits of `upstream` since `start`'s branched off
    name (PostgreSQL mode: a message one node committed but could not push, delivered
    again to another node that played it)."""
    base = repo.merge_base(start, upstream)
    shas = repo.commits_between(base, upstream) if base is not None else []
    keys = (_inbound_key(str(repo.repo.commit(sha).message)) for sha in shas)
    return {key for key in keys if key is not None}


def _refusal_of(repo: GameRepo, done: Adjudication) -> RefusedMove | None:
    """The refusal an adjudicator commit records (`last.refused` in its state.json)."""
    document = state_record(repo, done.commit)
    last = document.get("last")
    if not isinstance(last, dict) or not last.get("refused"):
        return None
    player = str(last["player"])
    # Quoted back to the author as it was: a refused file may not even be UTF-8.
    data = repo.data(MoveName(done.number, player).path, done.commit) or b""
    submitted = data.decode("utf-8", "replace")
    return RefusedMove(
        done.number, player, str(last["refused"]), submitted, refused_phrase(document)
    )


# -- Keeping the clone in step ---------------------------------------------------------------


def _attempt(
    repo: GameRepo, home: Path, upstream: str, start: str | None, own: str | None = None
) -> Update:
    """Bring main from `start` (the service's own main before this update) onto
    `upstream`, with the files the contract does not allow put back; adjudicate and
    resubmit. `own`: the newest commit of `upstream` the service made itself. The result
    is not pushed yet."""
    update = Update()
    target = upstream
    if start is not None:
        target, update.restored = vetted(repo, start, upstream, own)
    replays: list[_LocalMove] = []
    if start is None or _is_ancestor(repo, start, target):
        new = target  # a fast-forward (or nothing to do)
    elif not _is_ancestor(repo, target, start):
        # Both moved: our unpushed commits go on top of the forge's, made again.
        replays, new = _local_only(repo, upstream, start), target
    else:
        new = start  # ahead of the forge: only a push is missing
    _move_to(repo, new, repo.head())
    update.pushed = pipeline.adjudicate_pending(repo, home)
    update.results.extend(and_followers(update.pushed))
    for move in replays:
        try:
            done = pipeline.submit(
                repo, move.player, move.text, home=home, on_behalf=move.on_behalf
            )
        except Refusal as refusal:
            if move.on_behalf == ON_RESIGNED:
                continue  # the stand-in played that seat anew after the forge's moves
            gone = RefusedMove(None, move.player, str(refusal), move.text, refusal.phrase)
            update.refused.append(gone)
        else:
            update.results.extend(and_followers([done]))
    for done in update.results:
        refused = _refusal_of(repo, done)
        if refused is not None:
            update.refused.append(refused)
    return update


def update(
    repo: GameRepo,
    home: Path,
    *,
    attempts: int = MAX_ATTEMPTS,
    while_pushing: Callable[[Sequence[Adjudication]], object] | None = None,
) -> Update:
    """Fetch, put back what the contract does not allow, adjudicate, push back; retry
    when the push is not a fast-forward. A forge whose history no longer holds the last
    commit the service adjudicated gets the service's history back, or the game is held.
    The caller holds the game's lock; `home` is the service's data folder.

    `while_pushing` is given the adjudications of each attempt while its push runs (the
    caller composes their mails then, say): they are on the forge only if the push
    succeeds, which `update` returning them says.

    Everything on the way reads Git objects, never the clone's files: those are checked
    out once, at the end, however many commits were made (or whatever went wrong)."""
    if repo.bare or origin_url(repo) is None:
        raise RemoteError(f"{repo.path.name} is not a clone of a forge-hosted game")
    with repo.worktree_deferred():
        return _update(repo, home, attempts, while_pushing)


def _update(
    repo: GameRepo,
    home: Path,
    attempts: int,
    while_pushing: Callable[[Sequence[Adjudication]], object] | None,
) -> Update:
    start = repo.head()
    ours = recorded(home, repo)
    anchor = ours or rev(repo, TRACKING)
    upstream = fetch(repo)
    if (
        ours is not None
        and start is not None
        and ours != start
        and _is_ancestor(repo, ours, upstream)  # first: `ours` is then known here
        and _is_ancestor(repo, start, ours)
    ):
        # This clone is behind the service's own last push: another node of the service
        # (PostgreSQL mode, the record is every node's) adjudicated since. Its commits are
        # the service's, not players' to vet: start from there.
        _move_to(repo, ours, start)
        start = ours
    own = _pushed_unrecorded(repo, home, ours, upstream)
    if own is not None and start is not None and _is_ancestor(repo, start, own):
        _move_to(repo, own, start)
        start = own
    if own is None and ours is not None and _is_ancestor(repo, ours, upstream):
        own = ours  # the last push of the service (of any node): its commits are trusted
    if anchor is not None and not _is_ancestor(repo, anchor, upstream):
        held = rewritten(repo, home, upstream, start)
        if held.held is not None:
            return held
        upstream = str(start)
    dropped: list[RefusedMove] = []  # our own moves no longer legal: gone for good
    for attempt in range(1, attempts + 1):
        result = _attempt(repo, home, upstream, start, own)
        result.attempts = attempt
        dropped += [r for r in result.refused if r.number is None and r not in dropped]
        result.refused = [*(r for r in result.refused if r.number is not None), *dropped]
        head = repo.head()
        meanwhile = None
        if while_pushing is not None and result.results:
            meanwhile = partial(while_pushing, list(result.results))
        if head == upstream or push(repo, meanwhile):
            repo.set_ref(TRACKING, str(head))  # what the forge has now (a push set it already)
            record(home, repo, str(head))
            result.notices += [restore_notice(repo, result.restored)] if result.restored else []
            # Counted once on the forge: an attempt whose push was refused is done again.
            metrics.outcomes("webhook", result.pushed)
            return result
        fresh = fetch(repo)
        if fresh == upstream:
            raise RemoteError(f"the forge refused the push of {repo.path.name}")
        upstream = fresh  # a player pushed meanwhile: start again from theirs
    raise RemoteError(
        f"{repo.path.name}: players kept pushing; gave up after {attempts} attempts "
        "(the next push or poll will try again)"
    )


def _pushed_unrecorded(repo: GameRepo, home: Path, ours: str | None, upstream: str) -> str | None:
    """PostgreSQL mode: the newest commit after the service's record that the service
    itself made (signed with its key, verified) and pushed, by a node that died before it
    recorded it; None if there is none. Without it, that commit would be taken for a
    player's breaking the contract, and its move adjudicated again."""
    if ours is None or ours == upstream or not isinstance(store_for(home), DatabaseStore):
        return None
    if not _is_ancestor(repo, ours, upstream):
        return None  # a rewritten history: not this case
    try:  # the keys of the service's own commit: a pushed commit may change game.toml
        game = snapshot(repo, ours).game
    except GameError:
        return None
    for sha in reversed(repo.commits_between(ours, upstream)):
        if "\nPamir-Move: " not in str(repo.repo.commit(sha).message):
            continue  # only the service's commits carry it (and players cannot sign them)
        signed = examine(repo, sha, game)
        if game.adjudicator is not None and signed.kind == "adjudicator" and signed.valid:
            return sha
    return None
