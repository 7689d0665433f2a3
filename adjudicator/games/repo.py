"""Git access for game repositories: reading files at a commit and committing atomically.

Every adjudicator commit is built with plumbing: objects are written first, then the
branch is moved with a compare-and-swap `git update-ref`. A crash before the ref moves
leaves only unreferenced objects: the game is exactly as before. A crash after it leaves
the game exactly after. Non-bare repositories have their working tree brought in line
with the branch afterwards (and again before each operation), since the service owns it.

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
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

import git
from git.objects.blob import Blob
from git.objects.commit import Commit
from git.objects.fun import tree_to_stream
from git.refs.symbolic import SymbolicReference
from gitdb.base import IStream
from gitdb.db.loose import LooseObjectDB

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
SIGNING_CONFIG = ("pamir", "signingKey")  # the repository's own configuration


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


def _what(item: Any) -> str:
    """What a tree entry is, in words for the host."""
    if item.type == "tree":
        return "a folder"
    if item.type == "submodule":
        return "a submodule"
    if item.mode == SYMLINK_MODE:
        return "a symbolic link"
    return "a file"


def _is_file(item: Any) -> bool:
    return isinstance(item, Blob) and item.mode in (FILE_MODE, EXECUTABLE_MODE)


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
        self._blobs: dict[str, bytes] = {}  # blob contents by id: blobs never change

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

    def head(self) -> str | None:
        """The commit at the tip of the game branch, or None before the first commit.

        Read from the ref's file (or packed-refs) in this process, as git does: it is read
        several times a submission, and a `git rev-parse` costs a process each time."""
        try:
            return str(SymbolicReference.dereference_recursive(self.repo, REF))
        except ValueError:  # no such ref yet
            return None

    def _entry(self, at: str, path: str) -> Any | None:
        """The tree entry at `path` in commit `at`, or None when there is none."""
        try:
            return self.repo.commit(at).tree / path
        except KeyError:
            return None
        except (TypeError, ValueError) as error:  # GitPython's words for unknown modes
            raise GameError(f"{path} cannot be read: {error}") from None

    def _files(self, folder: str, commit: str | None) -> list[Blob]:
        """The files directly inside a folder at a commit ([] when there is no folder).

        Raises GameError when `folder` is not a folder, or holds anything but files.
        """
        at = commit or self.head()
        if at is None:
            return []
        tree = self._entry(at, folder)
        if tree is None:
            return []
        if tree.type != "tree":
            raise GameError(f"{folder} is {_what(tree)}, not a folder")
        files: list[Blob] = []
        try:
            for item in tree:
                if not _is_file(item):
                    raise GameError(f"{folder}/{item.name} is {_what(item)}, not a file")
                files.append(item)
        except (TypeError, ValueError) as error:
            raise GameError(f"{folder} cannot be read: {error}") from None
        return files

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
        data: bytes = item.data_stream.read()
        return data

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
            data = self._blobs.get(blob.hexsha)
            if data is None:
                data = self._blobs[blob.hexsha] = blob.data_stream.read()
            found[blob.name] = data
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
        (`100644 9f2c...`), read from the raw tree object. GitPython's tree walk checks
        every name and costs about 40 µs an entry, too slow for a 300-move folder read at
        every submission; no entry is read or trusted here, only told apart."""
        at = commit or self.head()
        tree = None if at is None else self._entry(at, folder)
        if tree is None or tree.type != "tree":
            return {}
        raw: bytes = self.repo.odb.stream(tree.binsha).read()
        found: dict[str, str] = {}
        start = 0
        while start < len(raw):  # entries: "<mode> <name>\0" and 20 bytes of object id
            space = raw.index(b" ", start)
            nul = raw.index(b"\0", space)
            name = raw[space + 1 : nul].decode("utf-8", "surrogateescape")
            found[name] = f"{raw[start:space].decode()} {raw[nul + 1 : nul + 21].hex()}"
            start = nul + 21
        return found

    def names(self, folder: str, commit: str | None = None) -> list[str]:
        """File names directly inside a folder at a commit, sorted."""
        return sorted(item.name for item in self._files(folder, commit))

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
            self.repo.git.update_ref(REF, made, parent or ZERO)
        except git.GitCommandError:
            raise StaleHead("the game moved on while this move was being adjudicated") from None
        fault("after-ref")
        self.sync_worktree()
        return made

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
        base = self.repo.commit(parent).tree if parent else None
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

        game_toml = self.data(GAME_FILE, parent) if parent else changes.get(GAME_FILE)
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

    def _write_tree(self, base: git.Tree | None, changes: dict[str, bytes | None]) -> bytes:
        """Write the tree of `base` with `changes` applied; return its id.

        Trees are written directly into the object database: no index file is read or
        written, so bare repositories stay free of one.
        """
        entries: dict[str, tuple[bytes, int]] = {}
        if base is not None:
            entries = {item.name: (item.binsha, item.mode) for item in base}
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
            sub = base / name if base is not None and name in entries else None
            subtree = sub if isinstance(sub, git.Tree) else None
            binsha = self._write_tree(subtree, inner)
            if binsha == EMPTY_TREE:
                entries.pop(name, None)
            else:
                entries[name] = (binsha, TREE_MODE)
        ordered = sorted(
            ((sha, mode, name) for name, (sha, mode) in entries.items()),
            key=lambda e: e[2] + ("/" if e[1] == TREE_MODE else ""),
        )
        if not ordered:
            return EMPTY_TREE  # a folder left empty disappears from its parent
        stream = BytesIO()
        tree_to_stream(ordered, stream.write)
        return self._store("tree", stream.getvalue())

    def sync_worktree(self) -> None:
        """Make a non-bare repository's files match the branch (the service owns them)."""
        if not self.bare and self.head() is not None:
            self.repo.git.reset("--hard", "-q", REF)

    def log(self, path: str | None = None) -> list[Commit]:
        """Commits of the game branch, oldest first (only those touching `path`, if given)."""
        if self.head() is None:
            return []
        commits = self.repo.iter_commits(REF, paths=path) if path else self.repo.iter_commits(REF)
        return list(reversed(list(commits)))
