"""Git's object format, read and written in this process: commits and trees as bytes.

Reading never trusts the tree: anyone who can push to a forge-hosted game can commit a
file, a symbolic link or a submodule where a folder belongs, or bytes that are not text.
Such a tree is a `GameError` that names the path and says what is there, never an
exception from deep inside GitPython.

A commit is written as `git commit-tree` writes it (Documentation/technical in git's
sources; `git cat-file commit` prints it back): the tree, a line per parent, author and
committer, an optional `gpgsig` header whose continuation lines start with a space, a
blank line and the message as given.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from string import hexdigits
from typing import NamedTuple

from git.objects.util import parse_actor_and_date

FILE_MODE = 0o100644
EXECUTABLE_MODE = 0o100755
SYMLINK_MODE = 0o120000
TREE_MODE = 0o040000
SUBMODULE_MODE = 0o160000
FILE_MODES = frozenset((FILE_MODE, EXECUTABLE_MODE))
EMPTY_TREE = bytes.fromhex("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
HEX = frozenset(hexdigits.lower())


class GameError(RuntimeError):
    """The repository cannot be played on: not a game, no secret, inconsistent, or holding
    something the adjudicator cannot read where a game's file or folder belongs.

    Defined here, below `snapshot` (which exports it), so that reading an odd tree raises
    it too: callers need to catch one error for "this game cannot be read".
    """


@dataclass(frozen=True)
class Person:
    name: str
    email: str


def is_id(text: str) -> bool:
    """Whether `text` is a full object id as Git writes it (40 lowercase hex digits)."""
    return len(text) == 40 and HEX.issuperset(text)


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


def commit_facts(name: str, raw: bytes) -> tuple[bytes, tuple[str, ...]]:
    """A commit object's tree id and parent ids, read from its headers alone (`name`: what
    the commit was asked for by, for the GameError when it is not a commit)."""
    headers = raw.partition(b"\n\n")[0].split(b"\n")
    if not headers[0].startswith(b"tree "):
        raise GameError(f"{name} is not a commit")
    parents = tuple(h[7:47].decode("ascii") for h in headers if h.startswith(b"parent "))
    return bytes.fromhex(headers[0][5:45].decode("ascii")), parents


def commit_bytes(
    tree: str,
    parents: Sequence[str],
    author: Person,
    committer: Person,
    stamp: int,
    message: str,
    gpgsig: str | None = None,
) -> bytes:
    """A commit object's content, authored and committed at `stamp` (+0000); the bytes a
    signature covers when `gpgsig` is None."""
    lines = [f"tree {tree}\n".encode("ascii")]
    lines += [f"parent {parent}\n".encode("ascii") for parent in parents]
    lines.append(f"author {author.name} <{author.email}> {stamp} +0000\n".encode())
    lines.append(f"committer {committer.name} <{committer.email}> {stamp} +0000\n".encode())
    if gpgsig:
        signature = gpgsig.rstrip("\n").split("\n")
        lines.append(b"gpgsig" + b"".join(f" {line}\n".encode("ascii") for line in signature))
    lines.append(b"\n")
    lines.append(message.encode())
    return b"".join(lines)


def describe(item: Entry) -> str:
    """What a tree entry is, in words for the host."""
    if item.mode == TREE_MODE:
        return "a folder"
    if item.mode == SUBMODULE_MODE:
        return "a submodule"
    if item.mode == SYMLINK_MODE:
        return "a symbolic link"
    if is_file(item):
        return "a file"
    return f"an entry of unknown mode {item.mode:o}"


def is_file(item: Entry) -> bool:
    return item.mode in FILE_MODES


# One tree entry: `<octal mode> <name>\0` and 20 bytes of object id.
_TREE_ENTRY = re.compile(rb"([0-7]+) ([^\0]*)\0(.{20})", re.DOTALL)
_MODES: dict[bytes, int] = {}


def parse_tree(raw: bytes, where: str) -> dict[str, Entry]:
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


def tree_entries_bytes(entries: Sequence[tuple[str, int, bytes]]) -> bytes:
    """Tree entries (name, mode, id) as a tree object holds them, in the order given."""
    return b"".join(
        b"%o %s\0%s" % (mode, name.encode("utf-8", "surrogateescape"), binsha)
        for name, mode, binsha in entries
    )


def decoded(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise GameError(f"{path} is not UTF-8 text") from None
