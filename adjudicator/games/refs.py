"""Moving a ref in this process exactly as `git update-ref NAME NEW [OLD]` does (files backend).

The service moves `main` once or twice per submission and the remote-tracking ref once per
forge delivery; a `git update-ref` process costs a few milliseconds each time, this a few
hundred microseconds. GitPython's `SymbolicReference.set_object` cannot stand in: it reads
the old value before it takes the lock (no compare-and-swap) and writes the reflog after
it released it. So this follows git's own steps (refs/files-backend.c, lockfile.c), which
other writers of the same repository rely on (a player's `git push` into a bare game, the
hooks, another node of the service, git gc's `pack-refs`):

1. Create `<ref>.lock` with O_CREAT|O_EXCL. Should another writer hold it, retry with git's
   backoff for core.filesRefLockTimeout (default 100 ms), then give up.
2. Read the ref's value while holding the lock: the loose file, or packed-refs when there
   is no loose file. Compare it with the value expected (None: the ref must not exist).
3. Write the new id and a newline into the lock file. If the ref already has that value,
   git writes neither it nor its reflog (only HEAD's, step 6): nor does this.
4. Append to the ref's reflog (logs/<ref>) when it exists, or create it when
   core.logAllRefUpdates asks for it (by default: in repositories with a working tree,
   for refs/heads/, refs/remotes/, refs/notes/ and HEAD; never in bare ones).
5. Rename the lock file over the ref.
6. When HEAD is a symbolic ref to this ref, append the same entry to HEAD's reflog too,
   holding HEAD.lock meanwhile, as git's "split head update" does.

Durability is git's own: with git's default core.fsync (objects in packs and their
metadata, never references), git does not fsync a ref before the rename, so neither does
this; a repository configured with `core.fsync` including `reference` (or `committed`,
`added`, `all`) has the lock file fsynced first, as git would. Reflogs are never fsynced,
by git either. A crash of the machine can then lose the last ref update, as with git; a
crash of the process cannot tear it (the rename is atomic).
"""

from __future__ import annotations

import configparser
import os
import pwd
import random
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import hexdigits
from typing import Any

from git.config import GitConfigParser

from adjudicator.home.faults import fault

ZERO = "0" * 40
LOCK_SUFFIX = ".lock"
LOCK_TIMEOUT_MS = 100  # core.filesRefLockTimeout's default
HEX = frozenset(hexdigits.lower())
# core.fsync's components that include references (git's config.c `fsync_component_names`
# and its aggregates); `-reference` removes it again.
_FSYNCS_REFS = frozenset(("reference", "committed", "added", "all"))
_LOGGED_BY_DEFAULT = ("refs/heads/", "refs/remotes/", "refs/notes/")


class RefError(RuntimeError):
    """A ref cannot be moved: it is not something git would write over."""


class RefConflict(RefError):
    """The ref is not at the value expected, or another writer holds its lock."""


class RefLocked(RefConflict):
    """Another writer holds the ref's lock, or a writer that died left it."""


Config = Callable[[str, str], Any]  # (section, option) -> the value, or None when unset


def lookup(reader: GitConfigParser) -> Config:
    """A Config reading GitPython's configuration reader (all levels, as git reads them)."""

    def value(section: str, option: str) -> Any:
        try:
            return reader.get_value(section, option)
        except (KeyError, ValueError, configparser.Error):
            return None

    return value


@dataclass(frozen=True)
class Repository:
    """Where a repository keeps what a ref update touches, and its configuration."""

    git_dir: str  # HEAD and its reflog
    common_dir: str  # refs, packed-refs, their reflogs (git_dir but in a linked worktree)
    bare: bool
    config: Config


def update_ref(
    repo: Repository, name: str, new: str, expected: str | None, *, checked: bool = True
) -> None:
    """Point ref `name` (`refs/...`) at `new` if it is at `expected` now (None or ZERO: if
    there is no such ref); with `checked=False`, whatever it is at (`git update-ref NAME
    NEW` without OLD). Raises RefConflict when it is elsewhere or stays locked."""
    path = os.path.join(repo.common_dir, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    lock = _Lock(path, repo.config)
    try:
        fault("ref-locked")  # a kill here leaves <ref>.lock behind (games/leftover_locks.py)
        current = stored_value(repo.common_dir, name)
        wanted = None if expected in (None, "", ZERO) else expected
        if checked and current != wanted:
            raise RefConflict(f"{name} is at {current or 'nothing'}, not {wanted or 'nothing'}")
        moves = current != new  # if not, git writes neither the ref nor its reflog
        if moves:
            lock.write(f"{new}\n".encode("ascii"), fsync=_fsyncs_refs(repo.config))
        head = _LogOnly(repo, name)  # HEAD.lock, when HEAD is `ref: name`
        try:
            entry = _entry(current or ZERO, new, repo.config)
            if moves:
                _append_log(repo, repo.common_dir, name, entry)
                lock.commit()
            head.append(entry)  # HEAD's log gets the entry even then, as git's does
        finally:
            head.release()
    finally:
        lock.release()


def stored_value(common_dir: str, name: str) -> str | None:
    """A ref's value as git's files backend reads it: the loose file `common_dir/name`,
    else its line in packed-refs; None when there is neither."""
    try:
        with open(os.path.join(common_dir, name), "rb") as file:
            text = file.read().decode("ascii", "replace").strip()
    except FileNotFoundError:
        return _packed_value(common_dir, name)
    except IsADirectoryError:
        raise RefError(f"{name} is a folder of refs, not a ref") from None
    if len(text) != 40 or not HEX.issuperset(text):
        # A symbolic ref (`ref: ...`) or a damaged file: git would not write over it blind.
        raise RefError(f"{name} holds {text[:60]!r}, not a commit id")
    return text


def tip_of(path: Path, name: str) -> str | None:
    """A ref's value in the game repository at `path` (a working repository or a bare one)
    as its files say, with no Git process; None when it has none or it cannot be read."""
    folder = path if (path / "HEAD").is_file() else path / ".git"
    try:
        return stored_value(str(folder), name)
    except (OSError, RefError):
        return None


def _packed_value(common_dir: str, name: str) -> str | None:
    try:
        with open(os.path.join(common_dir, "packed-refs"), "rb") as file:
            lines = file.read().decode("utf-8", "surrogateescape").splitlines()
    except FileNotFoundError:
        return None
    for line in lines:  # `<id> <name>`; `# pack-refs with: ...` and `^<peeled id>` lines
        sha, _, ref = line.partition(" ")
        if ref == name and len(sha) == 40:
            return sha
    return None


class _Lock:
    """`<path>.lock`, created exclusively (git's lockfile.c); either renamed over `path`
    (commit) or removed (release), never both."""

    def __init__(self, path: str, config: Config) -> None:
        self.path = path
        self.lock = path + LOCK_SUFFIX
        self.fd: int | None = _create_exclusive(self.lock, config)
        self.held = True

    def write(self, data: bytes, *, fsync: bool) -> None:
        assert self.fd is not None
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]
        if fsync:
            os.fsync(self.fd)
        self._close()

    def commit(self) -> None:
        self._close()
        os.rename(self.lock, self.path)
        self.held = False

    def release(self) -> None:
        """Remove the lock file unless it was committed: once renamed, the name
        `<path>.lock` may already be another writer's lock."""
        self._close()
        if self.held:
            self.held = False
            os.unlink(self.lock)

    def _close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _create_exclusive(lock: str, config: Config) -> int:
    """Open a new lock file, retrying a held one as git does: backoff of about 1, 4, 9,
    16 ... ms (each between 0.75 and 1.25 times that), for core.filesRefLockTimeout ms
    in all (0: no retry; negative: forever)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    timeout: int | None = None
    waited, multiplier, n = 0.0, 1, 1
    while True:
        try:
            return os.open(lock, flags, 0o666)  # the umask applies, as to git's
        except FileExistsError:
            if timeout is None:
                timeout = _lock_timeout(config)  # read only when another writer holds it
            if timeout >= 0 and waited >= timeout:
                raise RefLocked(
                    f"{lock} exists: another process is moving the ref, or one that died "
                    "while it held it left the file"
                ) from None
        wait = multiplier * random.uniform(0.75, 1.25)
        time.sleep(wait / 1000)
        waited += wait
        if multiplier + 2 * n + 1 <= 1000:
            multiplier, n = multiplier + 2 * n + 1, n + 1
        else:
            multiplier = 1000


def _lock_timeout(config: Config) -> int:
    value = config("core", "filesRefLockTimeout")
    return LOCK_TIMEOUT_MS if value is None else int(value)


def _fsyncs_refs(config: Config) -> bool:
    """Whether core.fsync makes git fsync references (its default does not)."""
    value = config("core", "fsync")
    if value is None:
        return False
    chosen = False
    for part in str(value).replace(" ", "").lower().split(","):
        if part == "none":
            chosen = False
        elif part.lstrip("-") in _FSYNCS_REFS:
            chosen = not part.startswith("-")
    return chosen


class _LogOnly:
    """HEAD's share of an update of the branch it points at: git locks HEAD and writes
    the same reflog entry to logs/HEAD ("split head update" in refs/files-backend.c)."""

    def __init__(self, repo: Repository, name: str) -> None:
        self.repo = repo
        self.lock: _Lock | None = None
        head = os.path.join(repo.git_dir, "HEAD")
        try:
            with open(head, "rb") as file:
                points = file.read().decode("utf-8", "replace").strip() == f"ref: {name}"
        except FileNotFoundError:
            points = False
        if points:
            self.lock = _Lock(head, repo.config)

    def append(self, entry: bytes) -> None:
        if self.lock is not None:
            _append_log(self.repo, self.repo.git_dir, "HEAD", entry)

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def _append_log(repo: Repository, folder: str, name: str, entry: bytes) -> None:
    """Append to logs/<name> if it exists, or create it if core.logAllRefUpdates says
    so (git's log_ref_setup: an existing reflog is always kept up)."""
    path = os.path.join(folder, "logs", name)
    flags = os.O_WRONLY | os.O_APPEND
    if _logs_by_default(repo, name):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        flags |= os.O_CREAT
    try:
        descriptor = os.open(path, flags, 0o666)
    except (FileNotFoundError, IsADirectoryError):
        return  # no reflog for this ref, and none wanted
    try:
        os.write(descriptor, entry)
    finally:
        os.close(descriptor)


def _logs_by_default(repo: Repository, name: str) -> bool:
    """git's should_autocreate_reflog: core.logAllRefUpdates `always` logs every ref,
    `true` (the default with a working tree) branches, remote-tracking refs, notes and
    HEAD, `false` (the default of bare repositories) none."""
    value = repo.config("core", "logAllRefUpdates")
    if value is None:
        value = not repo.bare
    if str(value).lower() == "always":
        return True
    if value is True or str(value).lower() in ("true", "yes", "on", "1"):
        return name == "HEAD" or name.startswith(_LOGGED_BY_DEFAULT)
    return False


def _entry(old: str, new: str, config: Config) -> bytes:
    """A reflog line as `git update-ref` without -m writes it: no tab, no message."""
    offset = time.localtime().tm_gmtoff // 60
    sign = "-" if offset < 0 else "+"
    zone = f"{sign}{abs(offset) // 60:02d}{abs(offset) % 60:02d}"
    name, email = committer(config)
    return f"{old} {new} {name} <{email}> {int(time.time())} {zone}\n".encode()


def committer(config: Config) -> tuple[str, str]:
    """The committer git would name in a reflog (ident.c): GIT_COMMITTER_NAME and
    _EMAIL, then committer.* and user.* in the configuration, then EMAIL for the address,
    then the account's full name and `login@host`."""
    env = os.environ
    name = env.get("GIT_COMMITTER_NAME") or _text(config("committer", "name"))
    name = name or _text(config("user", "name")) or _default_name()
    email = env.get("GIT_COMMITTER_EMAIL") or _text(config("committer", "email"))
    email = email or _text(config("user", "email")) or env.get("EMAIL") or _default_email()
    return _without_crud(name), _without_crud(email)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


_CRUD = "".join(chr(c) for c in range(33)) + ".,:;<>\"\\'"


def _without_crud(text: str) -> str:
    """git's strbuf_addstr_without_crud: no leading or trailing punctuation or spaces,
    and no angle brackets or newlines inside."""
    return "".join(c for c in text.strip(_CRUD) if c not in "<>\n")


@cache
def _account() -> pwd.struct_passwd:
    return pwd.getpwuid(os.getuid())


@cache
def _default_name() -> str:
    account = _account()
    gecos = account.pw_gecos.split(",")[0]
    return gecos.replace("&", account.pw_name.capitalize()) or account.pw_name


@cache
def _default_email() -> str:
    """`login@host`, with the host's domain as git finds it (else `host.(none)`)."""
    host = socket.gethostname()
    if "." not in host:
        try:
            canonical = socket.getaddrinfo(host, None, flags=socket.AI_CANONNAME)[0][3]
        except (OSError, IndexError):
            canonical = ""
        host = canonical if "." in canonical else f"{host}.(none)"
    return f"{_account().pw_name}@{host}"
