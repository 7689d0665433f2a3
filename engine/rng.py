"""A small deterministic random number generator kept inside the game state.

A game is its seed plus its ordered list of actions, so every random draw must come from
state that is saved with the game. Python's `random` module is not used: its algorithms
are not promised to stay the same across versions, and its state is large. SplitMix64 is
tiny (one 64-bit integer), fast, and gives the same numbers on every platform.
"""

from __future__ import annotations

from typing import Final

_MASK: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15
# 2**64 less its remainder by n, the bound under which `below` takes a draw, for every n a
# game draws from (a deck, the legal actions): worked out once, it saves three operations
# on integers wider than a machine word at every draw.
_LIMITS: Final = tuple((1 << 64) - ((1 << 64) % n) if n else 0 for n in range(1024))


def next_u64(rng_state: int) -> tuple[int, int]:
    """Return (new_state, random 64-bit value) for a SplitMix64 state."""
    rng_state = (rng_state + _GAMMA) & _MASK
    z = rng_state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return rng_state, z ^ (z >> 31)


def below(rng_state: int, n: int) -> tuple[int, int]:
    """Return (new_state, a uniform integer in [0, n)), without modulo bias."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = _LIMITS[n] if n < len(_LIMITS) else (1 << 64) - ((1 << 64) % n)
    while True:
        rng_state, value = next_u64(rng_state)
        if value < limit:
            return rng_state, value % n


def shuffle(rng_state: int, items: list[int]) -> int:
    """Shuffle `items` in place (Fisher-Yates) and return the new generator state."""
    for i in range(len(items) - 1, 0, -1):
        rng_state, j = below(rng_state, i + 1)
        items[i], items[j] = items[j], items[i]
    return rng_state


def seed_state(seed: int) -> int:
    """Turn any integer seed into a generator state."""
    return seed & _MASK
