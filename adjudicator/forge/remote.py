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
docs/web.md describes how to set a game up.
"""

from __future__ import annotations

import configparser
import logging
import os
import re
import signal
import subprocess
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import git

from adjudicator.forge import contact
from adjudicator.games import hosting, pipeline
from adjudicator.games.contract import RESTORE_TRAILER, Accepted, Breach, blob_id, tree_files, vet
from adjudicator.games.gamefile import AdjudicatorEntry
from adjudicator.games.moves import MOVES_DIR, ON_RESIGNED, MoveName, parse_name
from adjudicator.games.objects import FILE_MODE
from adjudicator.games.outputs import Adjudication, Refusal, and_followers, refused_phrase
from adjudicator.games.registry import list_games
from adjudicator.games.repo import BRANCH, REF, GameRepo, RepoError, StaleHead
from adjudicator.games.signatures import examine
from adjudicator.games.snapshot import GameError, game_seed, snapshot, state_record
from adjudicator.games.sshkeys import parse_key_line
from adjudicator.home import metrics, store
from adjudicator.home.keys import adjudicator_key, public_key_line
from adjudicator.home.settings import Settings
from adjudicator.home.store import DatabaseStore, store_for
from adjudicator.home.translations import N_, Words
from engine.phrases import Phrase

ORIGIN = "origin"
TRACKING = f"refs/remotes/{ORIGIN}/{BRANCH}"
MAX_ATTEMPTS = 5
GIT_TIMEOUT = 120  # seconds for one fetch or push
GIT_ENV = {"GIT_TERMINAL_PROMPT": "0"}  # never wait for a password nobody will type
ON_BEHALF = re.compile(r"^Move \d+ for [^ ]+ \((?P<why>.*)\): ")
RECORDS = "forge"  # PAMIR_HOME/forge/<id>.json: the last commit adjudicated per game

log = logging.getLogger(__name__)


class RemoteError(RuntimeError):
    """The forge cannot be reached, refuses our pushes, or its history was rewritten."""


@dataclass(frozen=True)
class RefusedMove:
    """A move that did not go into the game: its author should be told why."""

    number: int | None  # None: a move this service had accepted that no longer applies
    player: str
    reason: str  # the engine's words
    text: str  # the move file as submitted
    phrase: Phrase | None = None  # `reason` said in a reader's language (its English: reason)


# A notice to the players: its Markdown text in a reader's words.
Notice = Callable[[Words], str]


@dataclass
class Update:
    """What one `update` did: the adjudicator commits now on the forge, and refusals.

    `restored` lists the pushed commits that broke the contract (their changes were put
    back by an adjudicator commit); `held` says why the game is held for the host (a
    rewritten history that could not be put back); `notices` are what every player should
    be told, each a Markdown text in the reader's words (the caller mails them: this module
    sends no mail)."""

    results: list[Adjudication] = field(default_factory=list)
    # Those of `results` that are players' moves pushed to the forge; the others are this
    # service's own moves, submitted again on top of the forge's.
    pushed: list[Adjudication] = field(default_factory=list)
    refused: list[RefusedMove] = field(default_factory=list)
    attempts: int = 0
    restored: list[Breach] = field(default_factory=list)
    held: str | None = None
    notices: list[Notice] = field(default_factory=list)


@dataclass(frozen=True)
class _LocalMove:
    """A move committed by this service that the forge does not have yet."""

    player: str
    text: str
    on_behalf: str | None


# -- URLs ------------------------------------------------------------------------------------


def normalize_url(url: str) -> str:
    """A comparable form of a repository URL: `host/owner/name` for forges (any scheme,
    credentials, port and `.git` dropped; lower case), the resolved path for local ones."""
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme == "file" or (not parts.scheme and text.startswith(("/", "."))):
        path = unquote(parts.path) if parts.scheme == "file" else text
        return str(Path(path).resolve()).removesuffix("/").removesuffix(".git")
    if parts.scheme and parts.hostname:
        host, path = parts.hostname, parts.path
    elif match := re.match(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>.+)$", text):
        host, path = match.group("host"), match.group("path")  # scp-like: git@host:owner/name
    else:
        return str(Path(text).resolve()).removesuffix(".git")
    path = path.strip("/").removesuffix(".git")
    return f"{host}/{path}".lower()


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
    wanted = {normalize_url(u) for u in urls if u}
    # First, cheaply: each clone's origin URL read from its Git config file, with no
    # process started and no repository opened (a service may host many games).
    if settings.games_dir.is_dir():
        for path in sorted(settings.games_dir.iterdir()):
            origin = _configured_origin(path)
            if origin is not None and normalize_url(origin) in wanted:
                return _game_id_of(path)
    # PostgreSQL mode: a game another node set up, not cloned here yet (before the survey
    # below, which would clone every such game first).
    for game_id, url in hosting.registered(settings).items():
        if normalize_url(url) in wanted and hosting.clone(settings, game_id, url) is not None:
            return game_id
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


# -- Git plumbing ----------------------------------------------------------------------------


def _git(repo: GameRepo, *args: str) -> str:
    # GitPython 3.1's overloads of `execute` leave out the keywords its body takes.
    return str(
        repo.repo.git.execute(  # type: ignore[call-overload,unused-ignore]
            ["git", *args], env=GIT_ENV, kill_after_timeout=GIT_TIMEOUT
        )
    )


def _rev(repo: GameRepo, ref: str) -> str | None:
    """The commit a ref names, read in this process (None: no such ref)."""
    return repo.ref(ref)


def _is_ancestor(repo: GameRepo, old: str, new: str) -> bool:
    return repo.is_ancestor(old, new)


def _fetch(repo: GameRepo) -> str:
    """Fetch origin's main into origin/main (whatever it is: `update` judges it against the
    service's record, never against what the previous fetch saw)."""
    try:
        _git(repo, "fetch", "--quiet", "--no-tags", ORIGIN, f"+{REF}:{TRACKING}")
    except git.GitCommandError as error:
        log.warning("fetch failed in %s: %s", repo.path, error.stderr)
        contact.record(repo.path.name, f"cannot fetch ({str(error.stderr).strip()[:200]})")
        raise RemoteError(f"cannot fetch the game from its forge ({repo.path.name})") from None
    contact.record(repo.path.name)
    after = _rev(repo, TRACKING)
    if after is None:
        raise RemoteError(f"the forge repository of {repo.path.name} has no {BRANCH} branch")
    return after


def _push(repo: GameRepo, meanwhile: Callable[[], object] | None = None) -> bool:
    """Push main to origin; False when the forge refused it (someone pushed meanwhile).

    `meanwhile` runs in this thread while the push is on its way: a push is mostly
    waiting on the forge (20 ms or more, seconds on a slow one), time the caller can use
    to prepare what follows a push that succeeds. What it raises is logged, never the
    push's outcome."""
    command = ["git", "push", "--quiet", "--porcelain", ORIGIN, f"{REF}:{REF}"]
    try:
        process = subprocess.Popen(
            command,
            cwd=repo.path,
            env={**os.environ, **GIT_ENV},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its transport (ssh, git-remote-http) killed with it
        )
    except OSError as error:
        log.info("cannot start git push in %s: %s", repo.path, error)
        return False
    try:
        if meanwhile is not None:
            meanwhile()
    except Exception:
        log.exception("work done during the push of %s failed", repo.path.name)
    except BaseException:  # interrupted: the push is not left running behind
        _stop(process)
        raise
    try:
        _, stderr = process.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        _stop(process)
        log.info("push timed out in %s", repo.path)
        return False
    if process.returncode != 0:
        log.info("push refused in %s: %s", repo.path, stderr.decode("utf-8", "replace"))
        return False
    return True


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill a push and wait for it. The whole group: a transport child (ssh,
    git-remote-http) left running keeps the pipes open, and `communicate` would wait for
    it as long as the forge holds its connection."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


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
    for sha in repo.commits_between(upstream, start):
        commit = repo.repo.commit(sha)
        parents = repo.parents(sha)
        added = [path for status, path in repo.changes(parents[0], sha) if status == "A"]
        names = [p for p in added if p.startswith(f"{MOVES_DIR}/")]
        message = str(commit.message)
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


def _attempt(repo: GameRepo, home: Path, upstream: str, start: str | None) -> Update:
    """Bring main from `start` (the service's own main before this update) onto
    `upstream`, with the files the contract does not allow put back; adjudicate and
    resubmit. The result is not pushed yet."""
    update = Update()
    target = upstream
    if start is not None:
        target, update.restored = _vetted(repo, start, upstream)
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
    anchor = ours or _rev(repo, TRACKING)
    upstream = _fetch(repo)
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
    if anchor is not None and not _is_ancestor(repo, anchor, upstream):
        held = _rewritten(repo, home, upstream, start)
        if held.held is not None:
            return held
        upstream = str(start)
    dropped: list[RefusedMove] = []  # our own moves no longer legal: gone for good
    for attempt in range(1, attempts + 1):
        result = _attempt(repo, home, upstream, start)
        result.attempts = attempt
        dropped += [r for r in result.refused if r.number is None and r not in dropped]
        result.refused = [*(r for r in result.refused if r.number is not None), *dropped]
        head = repo.head()
        meanwhile = None
        if while_pushing is not None and result.results:
            meanwhile = partial(while_pushing, list(result.results))
        if head == upstream or _push(repo, meanwhile):
            repo.set_ref(TRACKING, str(head))  # what the forge has now (a push set it already)
            _record(home, repo, str(head))
            result.notices += [restore_notice(repo, result.restored)] if result.restored else []
            # Counted once on the forge: an attempt whose push was refused is done again.
            metrics.outcomes("webhook", result.pushed)
            return result
        fresh = _fetch(repo)
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
    for sha in reversed(repo.commits_between(ours, upstream)):
        if "\nPamir-Move: " not in str(repo.repo.commit(sha).message):
            continue  # only the service's commits carry it (and players cannot sign them)
        try:
            game = snapshot(repo, sha).game
        except GameError:
            continue
        signed = examine(repo, sha, game)
        if game.adjudicator is not None and signed.kind == "adjudicator" and signed.valid:
            return sha
    return None


# -- The contract on a forge -----------------------------------------------------------------


def _vetted(repo: GameRepo, start: str, upstream: str) -> tuple[str, list[Breach]]:
    """`upstream` itself when every commit the service has not seen keeps the contract;
    otherwise a new adjudicator commit on top of it that puts back every file the service
    owns, keeping only the move files added by the contract, and the offending commits."""
    base = repo.merge_base(start, upstream)
    if base is None:
        raise RemoteError(f"{repo.path.name}: the forge's history shares nothing with the game's")
    if base == upstream:
        return upstream, []
    snap = snapshot(repo, base)  # the service's own commit: its game.toml is trusted
    vetting = vet(repo, base, upstream, snap.game, snap.next_number)
    if not vetting.breaches:
        return upstream, []
    changes = _restoring_changes(repo, base, upstream, vetting.accepted)
    culprits = ", ".join(f"{b.commit[:10]} ({b.author})" for b in vetting.breaches)
    details = "\n".join(f"- {b.describe()}" for b in vetting.breaches)
    message = (
        f"Restore the adjudicator's files after {culprits}\n\n"
        "A player's commit may only add the next move file, by that player; what these "
        f"commits changed is put back:\n\n{details}\n\n"
        f"{RESTORE_TRAILER}: {' '.join(b.commit for b in vetting.breaches)}\n"
    )
    log.warning("%s: restored the files changed by %s", repo.path.name, culprits)
    return repo.make_commit(changes, message, parent=upstream), vetting.breaches


def _blob(repo: GameRepo, sha: str) -> bytes:
    data: bytes = repo.repo.odb.stream(bytes.fromhex(sha)).read()
    return data


def _restoring_changes(
    repo: GameRepo, base: str, upstream: str, accepted: list[Accepted]
) -> dict[str, bytes | None]:
    """The changes that turn `upstream`'s files into `base`'s plus the accepted moves."""
    wanted = {path: _blob(repo, sha) for path, (sha, _) in tree_files(repo, base).items()}
    wanted.update({a.move.path: a.data for a in accepted})
    found = tree_files(repo, upstream)
    changes: dict[str, bytes | None] = {path: None for path in found if path not in wanted}
    for path, data in wanted.items():
        if found.get(path) != (blob_id(data), FILE_MODE):
            changes[path] = data
    return changes


def _rewritten(repo: GameRepo, home: Path, upstream: str, start: str | None) -> Update:
    """The forge's main no longer holds the last commit the service adjudicated: push the
    service's main back over it, or hold the game."""
    name = repo.path.name
    if start is not None and _force_push(repo, start, upstream):
        log.warning("%s: the main branch was rewritten on the forge; put back", name)
        repo.set_ref(TRACKING, start)
        done = Update()
        done.notices.append(put_back_notice(name))
        return done
    reason = (
        f"the {BRANCH} branch of {name} was rewritten on the forge and could not be put back; "
        "the game is held until the host restores it"
    )
    log.error("%s", reason)
    held = Update(held=reason)
    if _hold_is_news(home, repo, upstream):
        held.notices.append(held_notice(name))
    return held


def _force_push(repo: GameRepo, start: str, upstream: str) -> bool:
    """Push `start` over the forge's rewritten main, only if it is still `upstream`."""
    lease = f"--force-with-lease={REF}:{upstream}"
    try:
        _git(repo, "push", "--quiet", "--porcelain", lease, ORIGIN, f"{start}:{REF}")
    except git.GitCommandError as error:
        log.info("forced push refused in %s: %s", repo.path, error.stderr)
        return False
    return True


def _notice(name: str, title: str, body: str) -> Notice:
    """A notice headed by the game's name: `title` and `body` (catalogue messages) in the
    reader's words."""
    return lambda words: f"# {name}: {words(title)}\n\n{words(body)}\n"


def put_back_notice(name: str) -> Notice:
    """The notice of a rewritten history pushed back over the forge's."""
    return _notice(
        name,
        N_("the game's history was put back"),
        N_(
            "Someone rewrote the history of the game's main branch on the forge (a force "
            "push). The adjudicator pushed the game's true history back; pull (`git fetch` "
            "and `git reset --hard origin/main`) before your next move."
        ),
    )


def held_notice(name: str) -> Notice:
    """The notice of a game held for its host (a rewritten history not put back)."""
    return _notice(
        name,
        N_("the game is held"),
        N_(
            "Someone rewrote the history of the game's main branch on the forge, and the "
            "adjudicator could not push the true history back. No move is adjudicated until "
            "the host restores it."
        ),
    )


def restore_notice(repo: GameRepo, breaches: list[Breach]) -> Notice:
    name = repo.path.name

    def notice(words: Words) -> str:
        lines = "\n".join(f"- {words.phrase(b.phrase())}" for b in breaches)
        said = words(
            "A player's commit may only add the next move file, by that player. These commits "
            "did more, and the adjudicator put back what they changed (the move files they "
            "added were not played):"
        )
        return f"# {name}: " + words("pushed changes were put back") + f"\n\n{said}\n\n{lines}\n"

    return notice


# -- The service's record of each forge-hosted game ------------------------------------------


def record_name(repo: GameRepo) -> str:
    return f"{RECORDS}/{repo.path.name}.json"


def _read_record(home: Path, repo: GameRepo) -> dict[str, Any]:
    data: dict[str, Any] = store.read_json(store.store_for(home), record_name(repo)) or {}
    return data


def recorded(home: Path, repo: GameRepo) -> str | None:
    """The last commit the service adjudicated and the forge had, or None."""
    value = _read_record(home, repo).get("adjudicated")
    return str(value) if value else None


def _record(home: Path, repo: GameRepo, commit: str) -> None:
    store.write_json(store.store_for(home), record_name(repo), {"adjudicated": commit})


def _hold_is_news(home: Path, repo: GameRepo, upstream: str) -> bool:
    """Whether the players have not been told yet that the game is held at this forge tip
    (polls come every few minutes: one notice per rewrite is enough)."""
    data = _read_record(home, repo)
    if data.get("held") == upstream:
        return False
    data["held"] = upstream
    store.write_json(store.store_for(home), record_name(repo), data)
    return True


# -- Setting a game up -----------------------------------------------------------------------


def create_remote_game(
    settings: Settings,
    url: str,
    players: list[tuple[str, str]],
    *,
    game_id: str,
    secret: str | None = None,
    turn_hours: int = 48,
    timezone: str = "UTC",
    signing_keys: dict[str, str] | None = None,
    require_signatures: bool | None = None,
) -> GameRepo:
    """Create a game in PAMIR_HOME/games/<id> and push it to an empty forge repository at
    `url`, which becomes the clone's `origin` (the signing options as `create_game`'s)."""
    path = settings.games_dir / game_id
    repo = pipeline.create_game(
        path,
        players,
        home=settings.home,
        secret=secret,
        game_id=game_id,
        turn_hours=turn_hours,
        timezone=timezone,
        signing_keys=signing_keys,
        require_signatures=require_signatures,
    )
    _git(repo, "remote", "add", ORIGIN, url)
    if not _push(repo):
        raise RemoteError(
            f"could not push the new game to {url}: the forge repository must exist and be "
            f"empty (the game is in {path}; push it by hand)"
        )
    _record(settings.home, repo, _fetch(repo))
    _git(repo, "branch", f"--set-upstream-to={ORIGIN}/{BRANCH}", BRANCH)
    hosting.register(settings, game_id, url)
    return repo


def _check_signing_key(recorded: AdjudicatorEntry | None, home: Path) -> None:
    """Refuse a game whose commits another service signed: ours would not verify."""
    if recorded is None:
        return
    ours = parse_key_line(public_key_line(adjudicator_key(home)))
    if not parse_key_line(recorded.signing_key).same_key(ours):
        raise GameError(
            "the game's commits are signed with another adjudicator's key "
            "(game.toml [adjudicator] signing_key), not this service's"
        )


def adopt(settings: Settings, url: str, game_id: str | None = None) -> GameRepo:
    """Clone a forge-hosted game into PAMIR_HOME/games/<id> (the id from its game.toml).

    The game's secret must already be in PAMIR_HOME/secrets/<id>.secret (unless the game
    has ended and revealed it): without it nobody can adjudicate the game.
    """
    try:
        with hosting.scratch_clone(settings, url, "adopt-") as folder:
            repo = GameRepo(folder)
            try:
                snap = snapshot(repo)
                found = snap.game.id
                if game_id is not None and game_id != found:
                    raise GameError(f"the repository holds game {found!r}, not {game_id!r}")
                # Refuses a game whose secret this service does not hold.
                game_seed(snap, settings.home)
                _check_signing_key(snap.game.adjudicator, settings.home)
            finally:
                repo.repo.close()
            target = settings.games_dir / found
            if target.exists() or (settings.games_dir / f"{found}.git").exists():
                raise GameError(f"this service already has a game {found!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            folder.rename(target)
    except hosting.CloneFailed as error:
        log.warning("clone of %s failed: %s", url, error.stderr)
        raise RemoteError(f"cannot clone the game's {BRANCH} branch from the forge") from None
    adopted = GameRepo(target)
    if snap.game.adjudicator is not None:
        adopted.configure_signing(adjudicator_key(settings.home))
    # What the forge has now is taken as the game's history from here on.
    _record(settings.home, adopted, str(adopted.head()))
    hosting.register(settings, found, url)
    return adopted
