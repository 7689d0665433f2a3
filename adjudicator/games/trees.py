"""Writing the tree of a commit: a base tree with file changes applied.

Trees are written directly into the object database: no index file is read or written, so
bare repositories stay free of one. The base is read through the parsed-tree cache and the
new tree serialized here, so a submission's cost does not grow with the number of move
files.
"""

from __future__ import annotations

from adjudicator.games.objectdb import RAW_TREES, TREES, ObjectDB
from adjudicator.games.objects import EMPTY_TREE, FILE_MODE, TREE_MODE, Entry, tree_entries_bytes


def write_tree(objects: ObjectDB, base: bytes | None, changes: dict[str, bytes | None]) -> bytes:
    """Write the tree `base` (an id, None: empty) with `changes` applied (None deletes a
    file); return its id."""
    appended = _appended_tree(objects, base, changes)
    if appended is not None:
        return appended
    entries: dict[str, tuple[bytes, int]] = {}
    if base is not None:
        entries = {e.name: (e.binsha, e.mode) for e in objects.tree(base, "tree").values()}
    nested: dict[str, dict[str, bytes | None]] = {}
    for path, data in changes.items():
        head, sep, rest = path.partition("/")
        if sep:
            nested.setdefault(head, {})[rest] = data
        elif data is None:
            entries.pop(head, None)
        else:
            entries[head] = (objects.store("blob", data), FILE_MODE)
    for name, inner in nested.items():
        if changes.get(name) is not None:
            continue  # a file takes the folder's place: what was in it goes with it
        sha, mode = entries.get(name, (b"", 0))
        binsha = write_tree(objects, sha if mode == TREE_MODE else None, inner)
        if binsha == EMPTY_TREE:
            entries.pop(name, None)
        else:
            entries[name] = (binsha, TREE_MODE)
    if not entries:
        return EMPTY_TREE  # a folder left empty disappears from its parent
    # Git's order: by name, a folder's name compared as if it ended with "/".
    ordered = sorted(entries, key=lambda n: n + ("/" if entries[n][1] == TREE_MODE else ""))
    raw = tree_entries_bytes([(n, entries[n][1], entries[n][0]) for n in ordered])
    return objects.store("tree", raw)


def _appended_tree(
    objects: ObjectDB, base: bytes | None, changes: dict[str, bytes | None]
) -> bytes | None:
    """The common case of `write_tree` at C speed: new files whose names sort after every
    entry of `base` (the next move file, the next report) are appended to its bytes, which
    are then not parsed and written out again entry by entry. None when the changes are
    anything else."""
    if (
        base is None
        or not changes
        or any(data is None or "/" in path for path, data in changes.items())
    ):
        return None
    old = objects.tree(base, "tree")
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
    raw = objects.tree_raw(base)
    added = {name: (objects.store("blob", changes[name] or b""), FILE_MODE) for name in names}
    raw += tree_entries_bytes([(name, mode, binsha) for name, (binsha, mode) in added.items()])
    made = objects.store("tree", raw)
    # The next submission reads this tree first: it is known already.
    entries = {**old, **{n: Entry(n, mode, sha) for n, (sha, mode) in added.items()}}
    TREES.keep(made, entries)
    RAW_TREES.keep(made, raw)
    return made
