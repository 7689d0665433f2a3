"""A non-bare game repository's working tree, brought in line with the game branch.

The service owns the files: after each commit (or after the last of a series of commits:
`Worktree.deferred`), and again before each operation, they are reset to the branch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import git


class Worktree:
    """The files of one repository (nothing to do for a bare one)."""

    def __init__(self, repo: git.Repo, ref: str, tip: Callable[[], str | None]) -> None:
        self._repo = repo
        self._ref = ref  # the branch the files follow
        self._tip = tip  # the commit that branch is at now
        self._synced: str | None = None  # the commit this object last checked out
        self._deferred = 0  # inside `deferred` (how deep): commits do not check out

    def sync(self) -> None:
        """Make the files match the branch; nothing to do when this object checked that
        very commit out last."""
        head = self._tip()
        if not self._repo.bare and head is not None and head != self._synced:
            self._repo.git.reset("--hard", "-q", self._ref)
            self._synced = head

    def committed(self) -> None:
        """The branch moved: the files follow, unless inside `deferred`."""
        if not self._deferred:
            self.sync()

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Commits made inside leave the files alone; they are brought in line once, on the
        way out (however the block ends)."""
        self._deferred += 1
        try:
            yield
        finally:
            self._deferred -= 1
            if not self._deferred:
                self.sync()
