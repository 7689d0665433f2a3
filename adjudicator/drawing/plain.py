"""A view as the plain dict that the board drawing (`board.py`) still reads.

The engine's views are typed (`engine.View`), and `board.py` takes `dict[str, Any]`, which
a TypedDict is not: this is the one place that says "this view is a dict". It goes once
`board.py` takes `View`: deleting it then shows every caller to unwrap.
"""

from __future__ import annotations

from typing import Any, cast

from engine.view_types import View


def plain_view(view: View) -> dict[str, Any]:
    """`view` itself, typed as the plain dict `board.py`'s functions take."""
    return cast(dict[str, Any], view)
