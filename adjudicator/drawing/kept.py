"""Parts of the board drawn once and kept (`kept`): consecutive positions differ in a few
places, so most of a board is taken as drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
_KEPT: dict[str, Any] = {}
_KEPT_LIMIT = 4096


def kept(function: Callable[P, R]) -> Callable[P, R]:
    """A part of the board drawn once for the same arguments (compared by their `repr`,
    which says everything a part is drawn from). Consecutive positions of a game differ in
    a few places, and a board is drawn at every commit and, by `pamir verify`, again for
    every commit of the history: most regions, borders and tracks are then taken as drawn.
    Bounded, since views come from any game."""

    def drawn(*args: P.args, **options: P.kwargs) -> R:
        key = f"{function.__name__}{args!r}{options!r}"
        found: R | None = _KEPT.get(key)
        if found is None:
            found = function(*args, **options)
            if len(_KEPT) >= _KEPT_LIMIT:
                _KEPT.clear()
            _KEPT[key] = found
        return found

    return drawn


def forget_drawn_parts() -> None:
    """Empty the parts `kept` holds: the next board is drawn whole (for measuring)."""
    _KEPT.clear()
