"""Git access for game repositories: reading files at a commit and committing atomically.

Every adjudicator commit is built with plumbing: objects are written first
(`adjudicator.games.trees`, `adjudicator.games.objects`), then the branch is moved with a
compare-and-swap, exactly as `git update-ref NAME NEW OLD` moves it but in this process
(`adjudicator.games.refs`). A crash before the ref moves leaves only unreferenced objects:
the game is exactly as before. A crash after it leaves the game exactly after. Non-bare
repositories have their working tree brought in line with the branch afterwards
(`adjudicator.games.worktree`).

Objects are read in this process and what was read is kept (`adjudicator.games.objectdb`);
an odd tree is a `GameError` that names the path (`adjudicator.games.objects`). Commits are
signed with the adjudicator's SSH key once a game records it (`adjudicator.games.signing`).
Only SHA-1 repositories are read: one of another object format is refused when opened.

Fault injection for tests (`adjudicator.home.faults`): with PAMIR_FAULT=before-ref or
PAMIR_FAULT=after-ref the process exits (status 70) at that point of the next commit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path

import git
from git.objects.commit import Commit
from git.refs.symbolic import SymbolicReference

from adjudicator.games import refs, signing, treewalks
from adjudicator.games.ancestry import CommitGraph
from adjudicator.games.objectdb import Kept, ObjectDB
from adjudicator.games.objects import (
    TREE_MODE,
    CommitInfo,
    Entry,
    GameError,
    Person,
    commit_bytes,
    decoded,
    describe,
    is_file,
    parse_commit,
)
from adjudicator.games.trees import write_tree
from adjudicator.games.worktree import Worktree
from adjudicator.home.faults import fault

BRANCH = "main"
REF = f"refs/heads/{BRANCH}"
ZERO = "0" * 40


class RepoError(RuntimeError):
    """The repository is not a game repository, or it moved under us."""


class StaleHead(RepoError):
    """The branch moved since we read it: someone else committed first."""


class BranchLocked(StaleHead):
    """The branch's lock file exists: another writer is moving it, or one that died left
    the file (games/leftover_locks.py removes it once it is old)."""


ADJUDICATOR = Person("pamir adjudicator", "adjudicator@pamir.invalid")


def _stamp(when: datetime | None) -> int:
    """The commit's time in seconds (written at +0000); reports' deadlines count from it."""
    return int((when or datetime.now(UTC)).timestamp())


def _object_format(repo: git.Repo) -> str:
    """The repository's `extensions.objectFormat` ("sha1" when it names none), its names
    read in any case, as git reads them."""
    try:
        text = Path(repo.common_dir, "config").read_bytes()
    except OSError:
        text = b"objectformat"  # let GitPython's reader say what is wrong
    if b"objectformat" not in text.lower():
        return "sha1"  # as nearly every repository: without parsing its configuration
    reader = repo.config_reader("repository")
    try:
        found = "sha1"
        for section in reader.sections():
            if section.lower() == "extensions":
                for name, value in reader.items(section):
                    if name.lower() == "objectformat":
                        found = str(value)
        return found
    finally:
        reader.release()


class GameRepo(CommitGraph):
    """One game's Git repository, bare or with a working tree."""

    def __init__(self, path: Path | str) -> None:
        try:
            self.repo = git.Repo(str(path))
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            raise RepoError(f"{path} is not a Git repository") from None
        object_format = _object_format(self.repo)
        if object_format != "sha1":
            # Read as SHA-1, its commits would not be found: a game with moves would look
            # like one with none.
            raise RepoError(
                f"{path} uses the {object_format} object format; "
                "pamir reads SHA-1 repositories only"
            )
        self.path = Path(path)
        # Objects never change: what was read once is kept (commit -> tree, trees, blobs).
        self.objects = ObjectDB(self.repo)
        self._commits = Kept(1024)  # CommitInfo by id
        self.worktree = Worktree(self.repo, REF, self.head)

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

    def commit_info(self, at: str) -> CommitInfo:
        """A commit (`at`: its id, or any name git knows), read in this process."""
        sha = self.objects.commit_id(at)
        info: CommitInfo | None = self._commits.get(sha)
        if info is None:
            info = self._commits.keep(sha, parse_commit(sha, self.objects.raw(bytes.fromhex(sha))))
        return info

    def _root(self, at: str) -> bytes:
        """The id of a commit's tree."""
        return self.objects.commit_facts(at)[0]

    def parents(self, commit: str) -> tuple[str, ...]:
        """A commit's parents, first parent first."""
        return self.objects.commit_facts(commit)[1]

    def changes(self, parent: str, commit: str) -> list[tuple[str, str]]:
        """(status, path) of every file `commit` changes with respect to `parent`, by path:
        A added, D deleted, M modified, T a file's type changed (`git diff-tree -r
        --name-status --no-renames`)."""
        return treewalks.changes(self.objects, self._root(parent), self._root(commit))

    def tree_files(self, commit: str) -> dict[str, tuple[str, int]]:
        """Every entry but folders of a commit, by path: its object id and mode
        (`git ls-tree -r`)."""
        return treewalks.tree_files(self.objects, self._root(commit))

    def _entry(self, at: str, path: str) -> Entry | None:
        """The tree entry at `path` in commit `at`, or None when there is none."""
        tree = self.objects.tree(self._root(at), "the commit's tree")
        parts = path.split("/")
        for depth, part in enumerate(parts):
            item = tree.get(part)
            if item is None or depth == len(parts) - 1:
                return item
            if item.mode != TREE_MODE:
                return None  # a file where a folder would be: nothing at `path`
            tree = self.objects.tree(item.binsha, "/".join(parts[: depth + 1]))
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
            raise GameError(f"{folder} is {describe(tree)}, not a folder")
        files = list(self.objects.tree(tree.binsha, folder).values())
        if not all(is_file(item) for item in files):
            bad = next(item for item in files if not is_file(item))
            raise GameError(f"{folder}/{bad.name} is {describe(bad)}, not a file")
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
        if not is_file(item):
            raise GameError(f"{path} is {describe(item)}, not a file")
        return self.objects.blob(item)

    def read(self, path: str, commit: str | None = None) -> str | None:
        """A file's text at a commit (default: the tip), or None when it is absent.

        Raises GameError when something other than a UTF-8 text file is at `path`.
        """
        data = self.data(path, commit)
        return None if data is None else decoded(data, path)

    def blobs(self, folder: str, commit: str | None = None) -> dict[str, bytes]:
        """Every file directly inside a folder at a commit, by name, as bytes (read once):
        move files are players' input, decoded and checked by their readers."""
        found: dict[str, bytes] = {}
        for blob in self._files(folder, commit):
            found[blob.name] = self.objects.blob(blob)
        return found

    def texts(self, folder: str, commit: str | None = None) -> dict[str, str]:
        """Every file directly inside a folder at a commit, by name, as text.

        Raises GameError for a file that is not UTF-8 text."""
        return {
            name: decoded(data, f"{folder}/{name}")
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
        entries = self.objects.tree(tree.binsha, folder).values()
        return {item.name: f"{item.mode:o} {item.hexsha}" for item in entries}

    def entries(self, folder: str, commit: str | None = None) -> dict[str, Entry]:
        """Each entry directly inside a folder at a commit, by name, as parsed ({} when
        there is no such folder): `ids` without writing every id out."""
        at = commit or self.head()
        tree = None if at is None else self._entry(at, folder)
        if tree is None or tree.mode != TREE_MODE:
            return {}
        return self.objects.tree(tree.binsha, folder)

    def tree_bytes(self, folder: str, commit: str | None = None) -> bytes:
        """The tree object of a folder at a commit, as Git stores it (b"" when there is no
        such folder): to digest a whole folder at C speed."""
        at = commit or self.head()
        tree = None if at is None else self._entry(at, folder)
        if tree is None or tree.mode != TREE_MODE:
            return b""
        return self.objects.tree_raw(tree.binsha)

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
        except BranchLocked:
            raise
        except StaleHead:
            raise StaleHead("the game moved on while this move was being adjudicated") from None
        fault("after-ref")
        self.worktree.committed()
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
            self.objects.commit_facts(new)  # as git: a branch only ever names a commit it has
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
        except refs.RefLocked as locked:
            raise BranchLocked(f"{self.path}: {locked}") from None
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
        tree = write_tree(self.objects, base, changes).hex()
        parents = [self.objects.commit_id(parent)] if parent else []
        stamp = _stamp(when)
        payload = commit_bytes(tree, parents, author, ADJUDICATOR, stamp, message)
        from adjudicator.games.gamefile import GAME_FILE  # loads the engine: only to commit

        # Signed by the game.toml the commit holds: a restore commit on a forge puts back the
        # service's own over whatever a push left at `parent` (no key, or no file at all).
        if GAME_FILE in changes:
            game_toml = changes[GAME_FILE]
        else:
            game_toml = self.data(GAME_FILE, parent) if parent else None
        if signing.recorded_key(game_toml) is not None:
            gpgsig = signing.commit_signature(self.repo, self.path, payload)
            payload = commit_bytes(tree, parents, author, ADJUDICATOR, stamp, message, gpgsig)
        return self.objects.store("commit", payload).hex()

    def signing_key(self) -> Path | None:
        """The private key this repository's commits are signed with, if configured."""
        return signing.signing_key(self.repo)

    def configure_signing(self, key: Path) -> None:
        """Sign this repository's commits with `key` from now on."""
        signing.configure_signing(self.repo, key)

    def worktree_deferred(self) -> AbstractContextManager[None]:
        """Commits made inside leave the working tree alone; it is brought in line once,
        on the way out (however the block ends). For a series of commits that read only
        Git objects, such as a forge delivery's: one checkout instead of one a commit."""
        return self.worktree.deferred()

    def sync_worktree(self) -> None:
        """Make a non-bare repository's files match the branch (the service owns them);
        nothing to do when this object checked that very commit out last."""
        self.worktree.sync()

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
