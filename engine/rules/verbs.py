"""The words of the move notation that name actions and pieces (docs/notation.md).

They are kept with the rules because setup refuses a player name that is a word of the
notation; the verbs of the card-based actions come from their table (`card_based.py`).
"""

from __future__ import annotations

from typing import Final

from engine.rules.card_based import CARD_ACTIONS

PIECES: Final = ("army", "road", "tribe", "spy", "gift")
VERBS: Final = (
    "purchase", "play", "pass", *CARD_ACTIONS,
    "loyalty", "demand", "waive", "pay", "refuse", "road", "spy", "take", "discard", "choose",
    "collect", "army", "march", "remove", "accept", "decline", "done", "policy",
)  # fmt: skip
