"""Reading a state: the frames that belong to the player whose turn it is (docs/state.md,
"Checks when a state is read", stage 5)."""

from __future__ import annotations

from typing import Any

import pytest
from positions import Position

import engine

MOHAN_LAL = 1


def doc_with(stack: list[dict[str, Any]], active: int) -> dict[str, Any]:
    """A hand-written position: bob (seat 1) has four cards in court, `stack` is pending."""
    state = Position({"alice": "british", "bob": "russian"}).court("bob", 1, 2, 3, 4).build()
    doc = engine.to_dict(state)
    doc["removed"].sort()
    doc["stack"], doc["active"] = stack, active
    return doc


def test_cleanup_discards_are_the_active_players() -> None:
    """[Cleanup, p. 9] cleanup runs for the player whose turn it is, and its frame has no seat
    of its own: a court-limit discard of bob's on alice's turn would run alice's cleanup and
    start bob's turn after it. Such a state is refused when read.
    """
    cleanup = {"kind": "cleanup", "step": "court"}
    discard = {"kind": "discard", "player": 1, "place": "court", "count": 1}
    doc = doc_with([cleanup, {**discard, "reason": "court limit"}], active=0)
    with pytest.raises(engine.StateError, match=r"stack\[1\]\.player: 1 is not the active seat 0"):
        engine.from_dict(doc)
    engine.from_dict(doc_with([cleanup, {**discard, "reason": "court limit"}], active=1))


def test_a_leverage_discard_may_be_another_players() -> None:
    """[Discarding a Card in Your Court, p. 8] a player who cannot repay leverage discards on
    anyone's turn: only cleanup's discards are tied to the active player.
    """
    turn = {"kind": "turn", "player": 0}
    discard = {"kind": "discard", "player": 1, "place": "any", "count": 1, "reason": "leverage"}
    engine.from_dict(doc_with([turn, discard], active=0))


def test_the_icons_of_a_played_card_are_the_active_players() -> None:
    """[Play, p. 11] the active player plays a card and resolves its impact icons: an `icons`
    frame of another seat is refused.
    """
    icons = {"kind": "icons", "player": 1, "card": MOHAN_LAL, "index": 0}
    turn = {"kind": "turn", "player": 0}
    spy = {"kind": "spy", "player": 1, "region": "kabul"}
    doc = doc_with([turn, icons, spy], active=0)
    with pytest.raises(engine.StateError, match=r"stack\[1\]\.player: 1 is not the active seat 0"):
        engine.from_dict(doc)
