"""Ruling a region [Ruling a Region, p. 7].

A player rules a region when they have at least one tribe there and strictly more ruling
pieces (their tribes plus the armies of their coalition) than every other player. Ruling
is derived from the pieces whenever it is needed; nothing is stored.
"""

from __future__ import annotations

from engine.cards import RegionId
from engine.state import State


def count_ruling_pieces(state: State, region: RegionId, seat: int) -> int:
    """Tribes of `seat` in the region plus armies loyal to them.

    Wakhan counts her tribes and only the most numerous armies of a single coalition there
    [Playing with Wakhan: General Rules, p. 16].
    """
    if state.is_wakhan(seat):
        return state.tribes[region][seat] + max(state.armies[region].values())
    loyalty = state.players[seat].loyalty
    armies = state.armies[region][loyalty] if loyalty else 0
    return state.tribes[region][seat] + armies


def ruler(state: State, region: RegionId) -> int | None:
    """The seat that rules `region`, or None when no one does (ties rule no one)."""
    tribes = state.tribes[region]
    best: int | None = None
    best_count = -1
    tied = False
    for seat in range(state.num_players):
        count = count_ruling_pieces(state, region, seat)
        if count > best_count:
            best, best_count, tied = seat, count, False
        elif count == best_count:
            tied = True
    if best is None or tied or tribes[best] == 0:
        return None
    return best


def is_ruler(state: State, seat: int, region: RegionId) -> bool:
    return ruler(state, region) == seat
