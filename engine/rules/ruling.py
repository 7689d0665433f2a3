"""Ruling a region [Ruling a Region, p. 7].

A player rules a region when they have at least one tribe there and "a plurality of ruling
pieces (more than all others individually)": strictly more ruling pieces (their tribes plus
the armies of their coalition) than every other player, and more than the armies of every
coalition no player is loyal to, for "Armies belonging to enemy coalitions can prevent you
from taking a ruler token, even if there are no enemy tribes." Ruling is derived from the
pieces whenever it is needed; nothing is stored.
"""

from __future__ import annotations

from engine.cards import COALITIONS, Coalition, RegionId
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


def unheld_coalitions(state: State) -> list[Coalition]:
    """Coalitions no player is loyal to: their armies compete for rule on their own.

    Wakhan is "effectively loyal to all coalitions" [Playing with Wakhan: General Rules,
    p. 16], so in her games every coalition is held: her count already takes in the most
    numerous armies of any single coalition, so no coalition's armies alone can outnumber
    her.
    """
    if state.wakhan is not None:
        return []
    held = {player.loyalty for player in state.players}
    return [coalition for coalition in COALITIONS if coalition not in held]


def ruler(state: State, region: RegionId) -> int | None:
    """The seat that rules `region`, or None when no one does (ties rule no one)."""
    counts = [count_ruling_pieces(state, region, seat) for seat in range(state.num_players)]
    most = max(counts)
    best = counts.index(most)  # the first seat with the most, as `max` picks
    # A rival with as many is a second seat with the most (ruling is asked many times a
    # step: counted in C, without a list of rivals).
    if state.tribes[region][best] == 0 or counts.count(most) > 1:
        return None
    armies = state.armies[region]
    if any(armies[coalition] >= most for coalition in unheld_coalitions(state)):
        return None
    return best
