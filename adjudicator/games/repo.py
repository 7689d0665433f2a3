"""Git access for game repositories: reading files at a commit and committing atomically.

Every adjudicator commit is built with plumbing: objects are written first, then the
branch is moved with a compare-and-swap, exactly as `git update-ref NAME NEW OLD` moves
it but in this process (`adjudicator.games.refs`). A crash before the ref moves leaves
only unreferenced objects: the game is exactly as before. A crash after it leaves the
game exactly after. Non-bare repositories have their working tree brought in line with
the branch afterwards (after the last of a series of commits: `worktree_deferred`), and
again before each operation, since the service owns it.

Reading never trusts the tree: anyone who can push to a forge-hosted game can commit a
file, a symbolic link or a submodule where a folder belongs, or bytes that are not text.
Such a tree is a `GameError` that names the path and says what is there, never an
exception from deep inside GitPython.

Commits are signed with the adjudicator's SSH key once a game records it
(`[adjudicator] signing_key` in game.toml, docs/signing.md): the commit object is
serialized, its bytes signed with `ssh-keygen -Y sign -n git`, and the signature written
as its `gpgsig` header, as `git commit -S` does with `gpg.format = ssh`. The private key's
path is in the repository's own configuration (`pamir.signingKey`, never committed). A
game that records a key is never given an unsigned commit: without the key nothing is
committed.

Fault injection for tests (`adjudicator.home.faults`): with PAMIR_FAULT=before-ref or
PAMIR_FAULT=after-ref the process exits (status 70) at that point of the next commit.
"""

from __future__ import annotations

import configparser
import re
import tomllib
import zlib
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from io import BytesIO
from pathlib import Path
from string import hexdigits
from typing import Any, NamedTuple

import git
from git.objects.commit import Commit
from git.objects.util import parse_actor_and_date
from git.refs.symbolic import SymbolicReference
from gitdb.base import IStream
from gitdb.db.loose import LooseObjectDB

from adjudicator.games import refs
from adjudicator.home.faults import fault
from adjudicator.home.keys import KeyProblem, sign

BRANCH = "main"
REF = f"refs/heads/{BRANCH}"
ZERO = "0" * 40
FILE_MODE = 0o100644
EXECUTABLE_MODE = 0o100755
SYMLINK_MODE = 0o120000
TREE_MODE = 0o040000
EMPTY_TREE = bytes.fromhex("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
SIGNING_CONFIG = ("pamir", "signingKey")
HEX = frozenset(hexdigits.lower())  # the repository's own configuration


class RepoError(RuntimeError):
    """The repository is not a game repository, or it moved under us."""


class StaleHead(RepoError):
    """The branch moved since we read it: someone else committed first."""


class GameError(RuntimeError):
    """The repository cannot be played on: not a game, no secret, inconsistent, or holding
    something the adjudicator cannot read where a game's file or folder belongs.

    Defined here, below `snapshot` (which exports it), so that reading an odd tree raises
    it too: callers need to catch one error for "this game cannot be read".
    """


SUBMODULE_MODE = 0o160000


class Entry(NamedTuple):
    """One entry of a tree object: its name, mode and object id."""

    name: str
    mode: int
    binsha: bytes

    @property
    def hexsha(self) -> str:
        return self.binsha.hex()


@dataclass(frozen=True)
class CommitInfo:
    """What a commit object says, parsed in this process from its bytes (`raw`, as
    signatures need them)."""

    sha: str
    tree: str
    parents: tuple[str, ...]
    author: Person
    committer: Person
    committed: datetime  # with the committer's own offset, as Git records it
    message: str
    raw: bytes

    @property
    def summary(self) -> str:
        return self.message.partition("\n")[0]


def _person(line: bytes) -> tuple[Person, datetime]:
    """An author or committer header (`author Name <email> 1700000000 +0100`), read by
    GitPython's own parser, so that who made a commit is read exactly as before."""
    actor, stamp, west = parse_actor_and_date(line.decode("utf-8", "replace"))
    when = datetime.fromtimestamp(stamp, timezone(timedelta(seconds=-west)))
    return Person(str(actor.name or ""), str(actor.email or "")), when


def parse_commit(sha: str, raw: bytes) -> CommitInfo:
    """A commit object's headers and message (GameError when it is not a commit)."""
    head, _, message = raw.partition(b"\n\n")
    headers = head.split(b"\n")
    if not headers[0].startswith(b"tree "):
        raise GameError(f"{sha} is not a commit")
    parents: list[str] = []
    author = committer = (Person("", ""), datetime.fromtimestamp(0, UTC))
    for line in headers[1:]:
        if line.startswith(b"parent "):
            parents.append(line[7:47].decode("ascii"))
        elif line.startswith(b"author "):
            author = _person(line)
        elif line.startswith(b"committer "):
            committer = _person(line)
    return CommitInfo(
        sha,
        headers[0][5:45].decode("ascii"),
        tuple(parents),
        author[0],
        committer[0],
        committer[1],
        message.decode("utf-8", "replace"),
        raw,
    )


class _Kept(OrderedDict[Any, Any]):
    """A bounded cache of facts about Git objects. An object id names its content, in any
    repository, so what was read of a commit or a tree once is true in every game and in
    every process's later requests: the service keeps them instead of re-reading."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key: Any, value: Any) -> Any:
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)
        return value


_TREES = _Kept(4096)  # tree id -> its entries
_LAST_READ: dict[str, tuple[bytes, dict[str, Entry]]] = {}  # folder -> its last tree read
_RAW_TREES = _Kept(64)  # tree id -> its bytes, for the trees a submission appends to
_COMMITS = _Kept(65536)  # commit id -> (tree id, parent ids)


def _what(item: Entry) -> str:
    """What a tree entry is, in words for the host."""
    if item.mode == TREE_MODE:
        return "a folder"
    if item.mode == SUBMODULE_MODE:
        return "a submodule"
    if item.mode == SYMLINK_MODE:
        return "a symbolic link"
    if _is_file(item):
        return "a file"
    return f"an entry of unknown mode {item.mode:o}"


_FILE_MODES = frozenset((FILE_MODE, EXECUTABLE_MODE))


def _is_file(item: Entry) -> bool:
    return item.mode in _FILE_MODES


# One tree entry: `<octal mode> <name>\0` and 20 bytes of object id.
_TREE_ENTRY = re.compile(rb"([0-7]+) ([^\0]*)\0(.{20})", re.DOTALL)
_MODES: dict[bytes, int] = {}


def _parse_tree(raw: bytes, where: str) -> dict[str, Entry]:
    """A tree object's entries by name.

    Parsed here rather than by GitPython, which checks every name on every walk (about
    40 µs an entry: a 300-move folder read at each commit made `pamir verify` quadratic);
    by one regular expression, since the moves folder of a long game is read at every
    commit of `pamir verify`. A name no Git tree may hold is refused, as GitPython did."""
    entries: dict[str, Entry] = {}
    end = 0
    for match in _TREE_ENTRY.finditer(raw):
        mode_text, name_bytes, binsha = match.groups()
        name = name_bytes.decode("utf-8", "surrogateescape")
        if match.start() != end or not name or "/" in name or name in (".", ".."):
            raise GameError(f"{where} cannot be read: a malformed entry {name!r}")
        mode = _MODES.get(mode_text)
        if mode is None:
            mode = (
                _MODES.setdefault(mode_text, int(mode_text, 8))
                if len(_MODES) < 64
                else int(mode_text, 8)
            )
        entries[name] = Entry(name, mode, binsha)
        end = match.end()
    if end != len(raw):
        raise GameError(f"{where} cannot be read: a malformed entry at byte {end}")
    return entries


def _decoded(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise GameError(f"{path} is not UTF-8 text") from None


@dataclass(frozen=True)
class Person:
    name: str
    email: str

    def actor(self) -> git.Actor:
        return git.Actor(self.name, self.email)


ADJUDICATOR = Person("pamir adjudicator", "adjudicator@pamir.invalid")


def _stamp(when: datetime | None) -> int:
    """The commit's time in seconds (written at +0000); reports' deadlines count from it."""
    return int((when or datetime.now(UTC)).timestamp())


def recorded_key(game_toml: bytes | None) -> str | None:
    """The adjudicator's public key a game.toml records, if any."""
    if game_toml is None:
        return None
    try:
        table = tomllib.loads(game_toml.decode("utf-8")).get("adjudicator", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # not a game the service could have written: read as unsigned
    key = table.get("signing_key") if isinstance(table, dict) else None
    return key if isinstance(key, str) else None


class GameRepo:
    """One game's Git repository, bare or with a working tree."""

    def __init__(self, path: Path | str) -> None:
        try:
            self.repo = git.Repo(str(path))
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise RepoError(f"{path} is not a Git repository") from None
        self.path = Path(path)
        self._objects = f"{self.repo.common_dir}/objects/"  # where loose objects are
        self._commits = _Kept(1024)  # CommitInfo by id
        # Objects never change: what was read once is kept (commit -> tree, trees, blobs).
        self._blobs = _Kept(4096)  # blob contents by id, for this repository
        self._synced: str | None = None  # the commit this object last checked out
        self._deferred = 0  # inside `worktree_deferred` (how deep): commits do not check out

    @classmethod
    def init(cls, path: Path, *, bare: bool = False) -> GameRepo:
        if path.exists() and any(path.iterdir()):
            raise RepoError(f"{path} exists and is not empty")
        path.mkdir(parents=True, exist_ok=True)
        git.Repo.init(str(path), bare=bare, initial_branch=BRANCH)
        return cls(path)

    @property
    def bare(self) -> bool:
        return bool(self.repo.bare)

    def ref(self, name: str) -> str | None:
        """The commit a ref (`refs/remotes/origin/main`, ...) points at, read in this
        process; None when there is no such ref."""
        try:
            return str(SymbolicReference.dereference_recursive(self.repo, name))
        except ValueError:
            return None

    def head(self) -> str | None:
        """The commit at the tip of the game branch, or None before the first commit.

        Read from the ref's file (or packed-refs) in this process, as git does: it is read
        several times a submission, and a `git rev-parse` costs a process each time."""
        return self.ref(REF)

    def _commit_facts(self, at: str) -> tuple[bytes, tuple[str, ...]]:
        """A commit's tree id and parent ids (`at`: a commit id, or any name git knows)."""
        is_id = len(at) == 40 and HEX.issuperset(at)
        facts: tuple[bytes, tuple[str, ...]] | None = _COMMITS.get(at) if is_id else None
        if facts is None:
            sha = at if is_id else self.repo.commit(at).hexsha
            raw = self.raw(bytes.fromhex(sha))
            headers = raw.partition(b"\n\n")[0].split(b"\n")
            if not headers[0].startswith(b"tree "):
                raise GameError(f"{at} is not a commit")
            parents = tuple(h[7:47].decode("ascii") for h in headers if h.startswith(b"parent "))
            facts = _COMMITS.keep(sha, (bytes.fromhex(headers[0][5:45].decode("ascii")), parents))
        return facts

    def raw(self, binsha: bytes) -> bytes:
        """An object's content, without its header. A loose object is read and inflated
        in this process (a round trip to git's `cat-file --batch` costs about ten times
        more, and `pamir verify` reads thousands); a packed one is asked of git."""
        name = binsha.hex()
        try:
            with open(f"{self._objects}{name[:2]}/{name[2:]}", "rb") as file:
                data = zlib.decompress(file.read())
        except FileNotFoundError:
            return bytes(self.repo.odb.stream(binsha).read())
        except zlib.error:
            raise GameError(f"Git object {name} cannot be read") from None
        return data[data.index(b"\0") + 1 :]

    def commit_info(self, at: str) -> CommitInfo:
        """A commit (`at`: its id, or any name git knows), read in this process."""
        sha = at if len(at) == 40 and HEX.issuperset(at) else self.repo.commit(at).hexsha
        info: CommitInfo | None = self._commits.get(sha)
        if info is None:
            info = self._commits.keep(sha, parse_commit(sha, self.raw(bytes.fromhex(sha))))
        return info

    def _root(self, at: str) -> bytes:
        """The id of a commit's tree."""
        return self._commit_facts(at)[0]

    def parents(self, commit: str) -> tuple[str, ...]:
        """A commit's parents, first parent first."""
        return self._commit_facts(commit)[1]

    def ancestors(self, commit: str) -> set[str]:
        """The commit and every commit it descends from."""
        seen = {commit}
        stack = [commit]
        while stack:
            for parent in self.parents(stack.pop()):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return seen

    def is_ancestor(self, old: str, new: str) -> bool:
        """Whether `old` is `new` or one of its ancestors (`git merge-base --is-ancestor`)."""
        seen = {new}
        stack = [new]
        while stack:
            current = stack.pop()
            if current == old:
                return True
            for parent in self.parents(current):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return False

    def merge_base(self, one: str, other: str) -> str | None:
        """A best common ancestor of two commits, as `git merge-base` gives: one that is
        no other common ancestor's ancestor (a game's history has exactly one)."""
        common = self.ancestors(one) & self.ancestors(other)
        beneath = {p for c in common for p in self.parents(c)}
        best = sorted(common - beneath)
        return best[0] if best else None

    def commits_between(self, base: str, tip: str) -> list[str]:
        """The commits `tip` has and `base` does not, parents before children
        (`git rev-list --reverse --topo-order base..tip`)."""
        excluded = self.ancestors(base)
        ordered: list[str] = []
        done: set[str] = set(excluded)
        stack: list[tuple[str, bool]] = [(tip, False)]
        while stack:
            commit, expanded = stack.pop()
            if expanded:
                ordered.append(commit)
                continue
            if commit in done:
                continue
            done.add(commit)
            stack.append((commit, True))
            for parent in reversed(self.parents(commit)):
                if parent not in done:
                    stack.append((parent, False))
        return ordered

    def changes(self, parent: str, commit: str) -> list[tuple[str, str]]:
        """(status, path) of every file `commit` changes with respect to `parent`, by path:
        A added, D deleted, M modified, T a file's type changed (`git diff-tree -r
        --name-status --no-renames`)."""
        found: list[tuple[str, str]] = []
        self._diff(self._root(parent), self._root(commit), "", found)
        return sorted(found, key=lambda change: change[1])

    def _diff(self, old: bytes | None, new: bytes | None, prefix: str, found: list[Any]) -> None:
        before = self._tree(old, prefix or "tree") if old is not None else {}
        after = self._tree(new, prefix or "tree") if new is not None else {}
        for name in sorted(set(before) | set(after)):
            was, now = before.get(name), after.get(name)
            if was is not None and now is not None and was == now:
                continue
            path = prefix + name
            was_tree = was is not None and was.mode == TREE_MODE
            now_tree = now is not None and now.mode == TREE_MODE
            if was_tree or now_tree:
                self._diff(
                    was.binsha if was_tree and was else None,
                    now.binsha if now_tree and now else None,
                    path + "/",
                    found,
                )
                if was is not None and not was_tree:
                    found.append(("D", path))
                if now is not None and not now_tree:
                    found.append(("A", path))
            elif was is None:
                found.append(("A", path))
            elif now is None:
                found.append(("D", path))
            else:
                found.append(("M" if was.mode == now.mode else "T", path))

    def tree_files(self, commit: str) -> dict[str, tuple[str, int]]:
        """Every entry but folders of a commit, by path: its object id and mode
        (`git ls-tree -r`)."""
        found: dict[str, tuple[str, int]] = {}
        folders: list[tuple[bytes, str]] = [(self._root(commit), "")]
        while folders:
            tree, prefix = folders.pop()
            for entry in self._tree(tree, prefix or "tree").values():
                if entry.mode == TREE_MODE:
                    folders.append((entry.binsha, f"{prefix}{entry.name}/"))
                else:
                    found[prefix + entry.name] = (entry.hexsha, entry.mode)
        return dict(sorted(found.items()))

    def _tree(self, binsha: bytes, where: str) -> dict[str, Entry]:
        entries: dict[str, Entry] | None = _TREES.get(binsha)
        if entries is None:
            raw = self.raw(binsha)
            # The moves and reports folders grow by one file at the end at each commit:
            # when this tree is the last one read at `where` and more, only the new
            # entries are parsed, so reading the folder at every commit stays linear.
            last = _LAST_READ.get(where)
            if last is not None and len(raw) > len(last[0]) and raw.startswith(last[0]):
                entries = {**last[1], **_parse_tree(raw[len(last[0]) :], where)}
            else:
                entries = _parse_tree(raw, where)
            _LAST_READ[where] = (raw, entries)
            _TREES.keep(binsha, entries)
            _RAW_TREES.keep(binsha, raw)
        else:
            _TREES.move_to_end(binsha)
        return entries

    def _entry(self, at: str, path: str) -> Entry | None:
        """The tree entry at `path` in commit `at`, or None when there is none."""
        tree = self._tree(self._root(at), "the commit's tree")
        parts = path.split("/")
        for depth, part in enumerate(parts):
            item = tree.get(part)
            if item is None or depth == len(parts) - 1:
                return item
            if item.mode != TREE_MODE:
                return None  # a file where a folder would be: nothing at `path`
            tree = self._tree(item.binsha, "/".join(parts[: depth + 1]))
        return None

    def _files(self, folder: str, commit: str | None) -> list[Entry]:
        """The files directly inside a folder at a commit ([] when there is no folder).

        Raises GameError when `folder` is not a folder, or holds anything but files.
        """
        at = commit or self.head()
        if at is None:
            return []
        tree = self._entry(at, folder)
        if tree is None:
            return []
        if tree.mode != TREE_MODE:
            raise GameError(f"{folder} is {_what(tree)}, not a folder")
        files = list(self._tree(tree.binsha, folder).values())
        if not _FILE_MODES.issuperset([item.mode for item in files]):
            bad = next(item for item in files if not _is_file(item))
            raise GameError(f"{folder}/{bad.name} is {_what(bad)}, not a file")
        return files

    def _blob(self, item: Entry) -> bytes:
        data: bytes | None = self._blobs.get(item.hexsha)
        if data is None:
            data = self._blobs.keep(item.hexsha, self.raw(item.binsha))
        return data

    def data(self, path: str, commit: str | None = None) -> bytes | None:
        """A file's bytes at a commit (default: the tip), or None when it is absent.

        Raises GameError when something other than a file is at `path`.
        """
        at = commit or self.head()
        if at is None:
            return None
        item = self._entry(at, path)
        if item is None:
            return None
        if not _is_file(item):
            raise GameError(f"{path} is {_what(item)}, not a file")
        return self._blob(item)

    def read(self, path: str, commit: str | None = None) -> str | None:
        """A file's text at a commit (default: the tip), or None when it is absent.

        Raises GameError when something other than a UTF-8 text file is at `path`.
        """
        data = self.data(path, commit)
        return None if data is None else _decoded(data, path)

    def blobs(self, folder: str, commit: str | None = None) -> dict[str, bytes]:
        """Every file directly inside a folder at a commit, by name, as bytes (read once):
        move files are players' input, decoded and checked by their readers."""
        found: dict[str, bytes] = {}
        for blob in self._files(folder, commit):
            found[blob.name] = self._blob(blob)
        return found

    def texts(self, folder: str, commit: str | None = None) -> dict[str, str]:
        """Every file directly inside a folder at a commit, by name, as text.

        Raises GameError for a file that is not UTF-8 text."""
        return {
            name: _decoded(data, f"{folder}/{name}")
            for name, data in self.blobs(folder, commit).items()
        }

    def object_id(self, path: str, commit: str) -> str | None:
        """The Git object id at `path` in `commit` (None when there is nothing there):
        what it holds, without reading it."""
        item = self._entry(commit, path)
        return None if item is None else str(item.hexsha)

    def ids(self, folder: str, commit: str | None = None) -> dict[str, str]:
        """Each entry directly inside a folder at a commit, by name: its mode and object id
        (`100644 9f2c...`), without reading any of them."""
        at = commit or self.head()
        tree = None if at is None else self._entry(at, folder)
        if tree is None or tree.mode != TREE_MODE:
            return {}
        entries = self._tree(tree.binsha, folder).values()
        return {item.name: f"{item.mode:o} {item.hexsha}" for item in entries}

    def entries(self, folder: str, commit: str | None = None) -> dict[str, Entry]:
        """Each entry directly inside a folder at a commit, by name, as parsed ({} when
        there is no such folder): `ids` without writing every id out."""
        at = commit or self.head()
        tree = None if at is None else self._entry(at, folder)
        if tree is None or tree.mode != TREE_MODE:
            return {}
        return self._tree(tree.binsha, folder)

    def tree_bytes(self, folder: str, commit: str | None = None) -> bytes:
        """The tree object of a folder at a commit, as Git stores it (b"" when there is no
        such folder): to digest a whole folder at C speed."""
        at = commit or self.head()
        tree = None if at is None else self._entry(at, folder)
        if tree is None or tree.mode != TREE_MODE:
            return b""
        raw: bytes | None = _RAW_TREES.get(tree.binsha)
        return self.raw(tree.binsha) if raw is None else raw

    def names(self, folder: str, commit: str | None = None) -> list[str]:
        """File names directly inside a folder at a commit, sorted."""
        return sorted([item.name for item in self._files(folder, commit)])

    def commit(
        self,
        changes: dict[str, bytes | None],
        message: str,
        *,
        parent: str | None,
        author: Person = ADJUDICATOR,
        when: datetime | None = None,
    ) -> str:
        """Commit file changes (None deletes) on top of `parent`, atomically.

        Raises StaleHead when the branch is no longer at `parent`.
        """
        made = self.make_commit(changes, message, parent=parent, author=author, when=when)
        fault("before-ref")
        try:
            self.update_ref(REF, made, parent)
        except StaleHead:
            raise StaleHead("the game moved on while this move was being adjudicated") from None
        fault("after-ref")
        if not self._deferred:
            self.sync_worktree()
        return made

    def update_ref(self, name: str, new: str, expected: str | None) -> None:
        """Point ref `name` at commit `new` only if it is at `expected` now (None: only if
        there is no such ref), as `git update-ref NAME NEW OLD` does, with git's lock file,
        reflog and durability, in this process (`adjudicator.games.refs`).

        Raises StaleHead when the ref is elsewhere, or another process holds its lock."""
        self._move_ref(name, new, expected, checked=True)

    def set_ref(self, name: str, new: str) -> None:
        """Point ref `name` at commit `new` wherever it is now (`git update-ref NAME NEW`)."""
        self._move_ref(name, new, None, checked=False)

    def _move_ref(self, name: str, new: str, expected: str | None, *, checked: bool) -> None:
        try:
            self._commit_facts(new)  # as git: a branch only ever names a commit it has
        except (GameError, ValueError):
            raise RepoError(f"{self.path}: cannot point {name} at {new}: no such commit") from None
        reader = self.repo.config_reader()
        try:
            config = refs.lookup(reader)
            if config("core", "sharedRepository") not in (None, False, 0, "umask"):
                # Files shared between accounts get git's permission rules, not repeated
                # here: git itself moves the ref.
                self._git_update_ref(name, new, expected, checked=checked)
                return
            dirs = str(self.repo.git_dir), str(self.repo.common_dir)
            where = refs.Repository(*dirs, self.bare, config)
            refs.update_ref(where, name, new, expected, checked=checked)
        except refs.RefConflict as conflict:
            raise StaleHead(f"{self.path}: {conflict}") from None
        except refs.RefError as error:
            raise RepoError(f"{self.path}: {error}") from None
        finally:
            reader.release()

    def _git_update_ref(self, name: str, new: str, expected: str | None, *, checked: bool) -> None:
        try:
            if checked:
                self.repo.git.update_ref(name, new, expected or ZERO)
            else:
                self.repo.git.update_ref(name, new)
        except git.GitCommandError as error:
            raise StaleHead(f"{self.path}: {str(error.stderr).strip()}") from None

    def make_commit(
        self,
        changes: dict[str, bytes | None],
        message: str,
        *,
        parent: str | None,
        author: Person = ADJUDICATOR,
        when: datetime | None = None,
    ) -> str:
        """Write a commit of file changes on top of `parent` without moving any branch;
        signed when the game records the adjudicator's key (at `parent`, or in the
        first commit's own game.toml)."""
        base = self._root(parent) if parent else None
        tree = git.Tree(self.repo, self._write_tree(base, changes))
        parents = [self.repo.commit(parent)] if parent else []
        stamp = _stamp(when)
        made = Commit(
            self.repo,
            Commit.NULL_BIN_SHA,
            tree,
            author.actor(),
            stamp,
            0,
            ADJUDICATOR.actor(),
            stamp,
            0,
            message,
            parents,
            Commit.default_encoding,
        )
        stream = BytesIO()
        made._serialize(stream)
        from adjudicator.games.gamefile import GAME_FILE  # loads the engine: only to commit

        # Signed by the game.toml the commit holds: a restore commit on a forge puts back the
        # service's own over whatever a push left at `parent` (no key, or no file at all).
        if GAME_FILE in changes:
            game_toml = changes[GAME_FILE]
        else:
            game_toml = self.data(GAME_FILE, parent) if parent else None
        if recorded_key(game_toml) is not None:
            made.gpgsig = self._sign(stream.getvalue())
            stream = BytesIO()
            made._serialize(stream)
        return self._store("commit", stream.getvalue()).hex()

    def signing_key(self) -> Path | None:
        """The private key this repository's commits are signed with, if configured."""
        reader = self.repo.config_reader("repository")
        try:
            return Path(str(reader.get_value(*SIGNING_CONFIG)))
        except (KeyError, ValueError, configparser.Error):
            return None
        finally:
            reader.release()

    def configure_signing(self, key: Path) -> None:
        """Sign this repository's commits with `key` from now on."""
        with self.repo.config_writer("repository") as writer:
            writer.set_value(*SIGNING_CONFIG, str(key))

    def _sign(self, payload: bytes) -> str:
        key = self.signing_key()
        if key is None:
            raise GameError(
                f"{self.path}: this game's commits are signed by the adjudicator, but the "
                "repository names no signing key (git config pamir.signingKey "
                "PAMIR_HOME/keys/adjudicator/id_ed25519)"
            )
        try:
            return sign(payload, key)
        except KeyProblem as error:
            raise GameError(f"{self.path}: cannot sign the commit: {error}") from None

    def _store(self, kind: str, data: bytes) -> bytes:
        """Write a loose object in this process (zlib, then a rename into objects/), as
        `git hash-object -w` would, without starting one process per object."""
        stream = IStream(kind, len(data), BytesIO(data))
        return bytes(LooseObjectDB.store(self.repo.odb, stream).binsha)

    def _write_tree(self, base: bytes | None, changes: dict[str, bytes | None]) -> bytes:
        """Write the tree `base` (an id, None: empty) with `changes` applied; return its id.

        Trees are written directly into the object database: no index file is read or
        written, so bare repositories stay free of one. The base is read through the
        parsed-tree cache and the new tree serialized here, so a submission's cost does
        not grow with the number of move files."""
        appended = self._appended_tree(base, changes)
        if appended is not None:
            return appended
        entries: dict[str, tuple[bytes, int]] = {}
        if base is not None:
            entries = {e.name: (e.binsha, e.mode) for e in self._tree(base, "tree").values()}
        nested: dict[str, dict[str, bytes | None]] = {}
        for path, data in changes.items():
            head, sep, rest = path.partition("/")
            if sep:
                nested.setdefault(head, {})[rest] = data
            elif data is None:
                entries.pop(head, None)
            else:
                entries[head] = (self._store("blob", data), FILE_MODE)
        for name, inner in nested.items():
            if changes.get(name) is not None:
                continue  # a file takes the folder's place: what was in it goes with it
            sha, mode = entries.get(name, (b"", 0))
            binsha = self._write_tree(sha if mode == TREE_MODE else None, inner)
            if binsha == EMPTY_TREE:
                entries.pop(name, None)
            else:
                entries[name] = (binsha, TREE_MODE)
        if not entries:
            return EMPTY_TREE  # a folder left empty disappears from its parent
        # Git's order: by name, a folder's name compared as if it ended with "/".
        ordered = sorted(entries, key=lambda n: n + ("/" if entries[n][1] == TREE_MODE else ""))
        raw = b"".join(
            b"%o %s\0%s" % (entries[n][1], n.encode("utf-8", "surrogateescape"), entries[n][0])
            for n in ordered
        )
        return self._store("tree", raw)

    def _appended_tree(self, base: bytes | None, changes: dict[str, bytes | None]) -> bytes | None:
        """The common case of `_write_tree` at C speed: new files whose names sort after
        every entry of `base` (the next move file, the next report) are appended to its
        bytes, which are then not parsed and written out again entry by entry. None when
        the changes are anything else."""
        if (
            base is None
            or not changes
            or any(data is None or "/" in path for path, data in changes.items())
        ):
            return None
        old = self._tree(base, "tree")
        if any(path in old for path in changes):
            return None
        names = sorted(changes)
        if not all(name.isascii() for name in names):
            return None  # Git orders bytes; only ASCII names compare the same as str here
        if old:
            last = old[next(reversed(old))]  # parsed in the tree's own order: the last entry
            if not last.name.isascii() or names[0] <= last.name + (
                "/" if last.mode == TREE_MODE else ""
            ):
                return None
        raw = _RAW_TREES.get(base)
        if raw is None:
            raw = self.raw(base)
        added = {name: (self._store("blob", changes[name] or b""), FILE_MODE) for name in names}
        raw += b"".join(
            b"%o %s\0%s" % (mode, name.encode("utf-8", "surrogateescape"), binsha)
            for name, (binsha, mode) in added.items()
        )
        made = self._store("tree", raw)
        # The next submission reads this tree first: it is known already.
        entries = {**old, **{n: Entry(n, mode, sha) for n, (sha, mode) in added.items()}}
        _TREES.keep(made, entries)
        _RAW_TREES.keep(made, raw)
        return made

    @contextmanager
    def worktree_deferred(self) -> Iterator[None]:
        """Commits made inside leave the working tree alone; it is brought in line once,
        on the way out (however the block ends). For a series of commits that read only
        Git objects, such as a forge delivery's: one checkout instead of one a commit."""
        self._deferred += 1
        try:
            yield
        finally:
            self._deferred -= 1
            if not self._deferred:
                self.sync_worktree()

    def sync_worktree(self) -> None:
        """Make a non-bare repository's files match the branch (the service owns them);
        nothing to do when this object checked that very commit out last."""
        head = self.head()
        if not self.bare and head is not None and head != self._synced:
            self.repo.git.reset("--hard", "-q", REF)
            self._synced = head

    def log(self, path: str | None = None) -> list[Commit]:
        """Commits of the game branch, oldest first (only those touching `path`, if given)."""
        head = self.head()
        if head is None:
            return []
        return list(reversed(list(self.touching(head, path))))

    def touching(self, at: str, path: str | None = None) -> Iterator[Commit]:
        """The commits from `at` back, newest first, that changed the file at `path` (all
        of them without a path), as `git log -- path` lists them.

        A game's history is a line (the contract refuses merges), walked here from the
        commit and tree objects this process keeps; a history with a merge is left to git,
        whose rules for following a path through merges this does not repeat."""
        commit: str | None = at
        while commit is not None:
            parents = self.parents(commit)
            if len(parents) > 1:
                yield from (
                    self.repo.iter_commits(commit, paths=path)
                    if path
                    else (self.repo.iter_commits(commit))
                )
                return
            parent = parents[0] if parents else None
            if path is None or self._id_at(commit, path) != (
                self._id_at(parent, path) if parent else None
            ):
                yield Commit(self.repo, bytes.fromhex(commit))
            commit = parent

    def _id_at(self, commit: str, path: str) -> tuple[int, bytes] | None:
        item = self._entry(commit, path)
        return None if item is None else (item.mode, item.binsha)
