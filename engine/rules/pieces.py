"""Moving pieces between the supply and the board, with no rule consequences.

Coalition blocks are armies (in a region) or roads (on a border); cylinders are tribes (in
a region), spies (on a court card) or gifts (on the loyalty dial) [Components, p. 2].
Rule consequences of removing pieces (the Overthrow Rule) live in `engine.rules.court`.
Every placement is recorded in `state.placed` so that the Component Limits rule can tell
which pieces were placed this turn [Component Limits, p. 8].
"""

from __future__ import annotations

from engine.cards import Coalition, RegionId
from engine.state import State


def placed_key(kind: str, location: str | int, owner: str | int) -> str:
    """The key under which a placement this turn is counted: 'army:kabul:british'."""
    return f"{kind}:{location}:{owner}"


def _mark(state: State, key: str) -> None:
    state.placed[key] = state.placed.get(key, 0) + 1


def _cap(state: State, key: str, left: int) -> None:
    """After pieces leave a location, at most `left` of those there were placed this turn.

    Older pieces are taken to leave first: Component Limits may only take those, and for
    any other removal it makes no difference which of two identical pieces goes.
    """
    have = state.placed.get(key, 0)
    if have > left:
        if left > 0:
            state.placed[key] = left
        else:
            del state.placed[key]


def add_army(state: State, region: RegionId, coalition: Coalition) -> None:
    state.block_supply[coalition] -= 1
    state.armies[region][coalition] += 1
    _mark(state, placed_key("army", region, coalition))


def add_road(state: State, border: str, coalition: Coalition) -> None:
    state.block_supply[coalition] -= 1
    state.roads[border][coalition] += 1
    _mark(state, placed_key("road", border, coalition))


def remove_armies(state: State, region: RegionId, coalition: Coalition, count: int = 1) -> None:
    state.armies[region][coalition] -= count
    state.block_supply[coalition] += count
    _cap(state, placed_key("army", region, coalition), state.armies[region][coalition])


def remove_roads(state: State, border: str, coalition: Coalition, count: int = 1) -> None:
    state.roads[border][coalition] -= count
    state.block_supply[coalition] += count
    _cap(state, placed_key("road", border, coalition), state.roads[border][coalition])


def add_tribe(state: State, seat: int, region: RegionId) -> None:
    state.players[seat].cylinders -= 1
    state.tribes[region][seat] += 1
    _mark(state, placed_key("tribe", region, seat))


def drop_tribes(state: State, seat: int, region: RegionId, count: int) -> None:
    """Return tribes to their owner's supply (no overthrow check: see court.remove_tribes)."""
    state.tribes[region][seat] -= count
    state.players[seat].cylinders += count
    _cap(state, placed_key("tribe", region, seat), state.tribes[region][seat])


def add_spy(state: State, seat: int, card: int) -> None:
    state.players[seat].cylinders -= 1
    spies = state.spies.get(card)
    if spies is None:
        spies = state.spies[card] = [0] * state.num_players
    spies[seat] += 1
    _mark(state, placed_key("spy", card, seat))


def remove_spies(state: State, seat: int, card: int, count: int = 1) -> None:
    spies = state.spies[card]
    spies[seat] -= count
    state.players[seat].cylinders += count
    if not any(spies):
        del state.spies[card]
    _cap(state, placed_key("spy", card, seat), spies[seat])


def return_all_spies(state: State, card: int) -> None:
    """Every spy on a card goes back to its owner's supply [Discarding a Card, p. 8]."""
    spies = state.spies.get(card)
    if spies is None:
        return
    for seat, count in enumerate(spies):
        if count:
            remove_spies(state, seat, card, count)


def count_blocks(state: State, coalition: Coalition) -> int:
    """Blocks of a coalition on the map: armies plus roads [Dominance Checks, p. 15]."""
    armies = sum(counts[coalition] for counts in state.armies.values())
    roads = sum(counts[coalition] for counts in state.roads.values())
    return armies + roads


def count_spies(state: State, seat: int) -> int:
    return sum(spies[seat] for spies in state.spies.values())


def count_tribes(state: State, seat: int) -> int:
    return sum(tribes[seat] for tribes in state.tribes.values())


def count_cylinders_in_play(state: State, seat: int) -> int:
    """Cylinders not on the player board (tribes, spies, gifts); the VP marker aside."""
    return count_tribes(state, seat) + count_spies(state, seat) + sum(state.players[seat].gifts)


def movable(state: State, key: str, count: int) -> int:
    """How many of `count` pieces at a location were not placed this turn."""
    return count - state.placed.get(key, 0)


def _transfer_mark(state: State, old: str, new: str, left: int) -> None:
    """A moved piece keeps its 'placed this turn' status [Component Limits, p. 8].

    The piece that moves is an older one when there is one, as for any removal.
    """
    if state.placed.get(old, 0) > left:
        _cap(state, old, left)
        _mark(state, new)


def move_army(state: State, origin: RegionId, destination: RegionId, coalition: Coalition) -> None:
    state.armies[origin][coalition] -= 1
    state.armies[destination][coalition] += 1
    old, new = placed_key("army", origin, coalition), placed_key("army", destination, coalition)
    _transfer_mark(state, old, new, state.armies[origin][coalition])


def move_spy(state: State, seat: int, origin: int, destination: int) -> None:
    spies = state.spies[origin]
    spies[seat] -= 1
    if not any(spies):
        del state.spies[origin]
    target = state.spies.get(destination)
    if target is None:
        target = state.spies[destination] = [0] * state.num_players
    target[seat] += 1
    old, new = placed_key("spy", origin, seat), placed_key("spy", destination, seat)
    _transfer_mark(state, old, new, spies[seat])


def move_tribe(state: State, seat: int, origin: RegionId, destination: RegionId) -> None:
    """Move a tribe (Nationalism); the Overthrow Rule is the caller's concern."""
    state.tribes[origin][seat] -= 1
    state.tribes[destination][seat] += 1
    old, new = placed_key("tribe", origin, seat), placed_key("tribe", destination, seat)
    _transfer_mark(state, old, new, state.tribes[origin][seat])
