"""Walks of a commit's trees in this process: what changed between two trees, and every
file of one (`git diff-tree -r`, `git ls-tree -r`), from the trees kept parsed."""

from __future__ import annotations

from adjudicator.games.objectdb import ObjectDB
from adjudicator.games.objects import TREE_MODE


def changes(objects: ObjectDB, old: bytes, new: bytes) -> list[tuple[str, str]]:
    """(status, path) of every file that differs from tree `old` to tree `new`, by path:
    A added, D deleted, M modified, T a file's type changed (`--no-renames`)."""
    found: list[tuple[str, str]] = []
    _diff(objects, old, new, "", found)
    return sorted(found, key=lambda change: change[1])


def _diff(
    objects: ObjectDB,
    old: bytes | None,
    new: bytes | None,
    prefix: str,
    found: list[tuple[str, str]],
) -> None:
    before = objects.tree(old, prefix or "tree") if old is not None else {}
    after = objects.tree(new, prefix or "tree") if new is not None else {}
    for name in sorted(set(before) | set(after)):
        was, now = before.get(name), after.get(name)
        if was is not None and now is not None and was == now:
            continue
        path = prefix + name
        was_tree = was is not None and was.mode == TREE_MODE
        now_tree = now is not None and now.mode == TREE_MODE
        if was_tree or now_tree:
            _diff(
                objects,
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


def tree_files(objects: ObjectDB, root: bytes) -> dict[str, tuple[str, int]]:
    """Every entry but folders under tree `root`, by path: its object id and mode."""
    found: dict[str, tuple[str, int]] = {}
    folders: list[tuple[bytes, str]] = [(root, "")]
    while folders:
        tree, prefix = folders.pop()
        for entry in objects.tree(tree, prefix or "tree").values():
            if entry.mode == TREE_MODE:
                folders.append((entry.binsha, f"{prefix}{entry.name}/"))
            else:
                found[prefix + entry.name] = (entry.hexsha, entry.mode)
    return dict(sorted(found.items()))
