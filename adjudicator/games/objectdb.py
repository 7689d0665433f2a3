"""A repository's Git objects, read and written in this process, and what is kept of them.

An object id names its content, in any repository, so what was read of a commit or a tree
once is true in every game and in every process's later requests: the service keeps the
parsed trees and commits in bounded caches shared by all repositories, instead of
re-reading them. Objects are written loose (zlib, then a rename into objects/), as
`git hash-object -w` writes them, without starting one process per object.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from io import BytesIO
from typing import Any

import git
from gitdb import IStream, LooseObjectDB

from adjudicator.games.objects import Entry, GameError, commit_facts, is_id, parse_tree


class Kept(OrderedDict[Any, Any]):
    """A bounded cache of facts about Git objects, the oldest forgotten first."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key: Any, value: Any) -> Any:
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)
        return value


TREES = Kept(4096)  # tree id -> its entries
LAST_READ: dict[str, tuple[bytes, dict[str, Entry]]] = {}  # folder -> its last tree read
RAW_TREES = Kept(64)  # tree id -> its bytes, for the trees a submission appends to
COMMITS = Kept(65536)  # commit id -> (tree id, parent ids)


class ObjectDB:
    """One repository's object database."""

    def __init__(self, repo: git.Repo) -> None:
        self.repo = repo
        self._loose = f"{repo.common_dir}/objects/"  # where loose objects are
        # gitdb's own loose-object writer: GitPython's database would start a
        # `git hash-object` for each object.
        self._writer = LooseObjectDB(repo.odb.root_path())
        self._blobs = Kept(4096)  # blob contents by id, for this repository

    def commit_id(self, at: str) -> str:
        """The id of a commit (`at`: its id, or any name git knows)."""
        return at if is_id(at) else str(self.repo.commit(at).hexsha)

    def raw(self, binsha: bytes) -> bytes:
        """An object's content, without its header. A loose object is read and inflated
        in this process (a round trip to git's `cat-file --batch` costs about ten times
        more, and `pamir verify` reads thousands); a packed one is asked of git."""
        name = binsha.hex()
        try:
            with open(f"{self._loose}{name[:2]}/{name[2:]}", "rb") as file:
                data = zlib.decompress(file.read())
        except FileNotFoundError:
            return bytes(self.repo.odb.stream(binsha).read())
        except zlib.error:
            raise GameError(f"Git object {name} cannot be read") from None
        return data[data.index(b"\0") + 1 :]

    def store(self, kind: str, data: bytes) -> bytes:
        """Write an object (`kind`: blob, tree or commit) and return its id."""
        return bytes(self._writer.store(IStream(kind, len(data), BytesIO(data))).binsha)

    def commit_facts(self, at: str) -> tuple[bytes, tuple[str, ...]]:
        """A commit's tree id and parent ids (`at`: a commit id, or any name git knows)."""
        sha = self.commit_id(at)
        facts: tuple[bytes, tuple[str, ...]] | None = COMMITS.get(sha)
        if facts is None:
            facts = COMMITS.keep(sha, commit_facts(at, self.raw(bytes.fromhex(sha))))
        return facts

    def tree(self, binsha: bytes, where: str) -> dict[str, Entry]:
        """A tree's entries by name (`where`: the folder it is, for messages)."""
        entries: dict[str, Entry] | None = TREES.get(binsha)
        if entries is None:
            raw = self.raw(binsha)
            # The moves and reports folders grow by one file at the end at each commit:
            # when this tree is the last one read at `where` and more, only the new
            # entries are parsed, so reading the folder at every commit stays linear.
            last = LAST_READ.get(where)
            if last is not None and len(raw) > len(last[0]) and raw.startswith(last[0]):
                entries = {**last[1], **parse_tree(raw[len(last[0]) :], where)}
            else:
                entries = parse_tree(raw, where)
            LAST_READ[where] = (raw, entries)
            TREES.keep(binsha, entries)
            RAW_TREES.keep(binsha, raw)
        else:
            TREES.move_to_end(binsha)
        return entries

    def tree_raw(self, binsha: bytes) -> bytes:
        """A tree object's bytes, as kept when it was last read or written."""
        raw: bytes | None = RAW_TREES.get(binsha)
        return self.raw(binsha) if raw is None else raw

    def blob(self, item: Entry) -> bytes:
        """A file's bytes, read once per repository."""
        data: bytes | None = self._blobs.get(item.hexsha)
        if data is None:
            data = self._blobs.keep(item.hexsha, self.raw(item.binsha))
        return data
