"""Walks of a game's commit graph in this process, as git's own commands walk it.

A submission and `pamir verify` ask which commits a push brings, whether one commit
descends from another and where two histories part; each answer here reads only the
parents of commits already kept (`adjudicator.games.objectdb`), with no git process.
"""

from __future__ import annotations


class CommitGraph:
    """The walks, over a subclass's `parents`."""

    def parents(self, commit: str) -> tuple[str, ...]:
        """A commit's parents, first parent first."""
        raise NotImplementedError

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
