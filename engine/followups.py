"""The follow-up decisions a player's legal actions raise: playing a card may then ask
where to place its spy, a battle which pieces to remove, a purchase which cards to discard.

A reply holds a player's actions one a line, and a follow-up of the same player is
answered by the next line (docs/email.md#playing-a-move): the turn mail says in advance
which actions raise which follow-ups. Each legal action is tried on the position, which is
pure and cheap (under 1 ms for a whole turn's actions); only follow-ups of the same player
are told, by kind and answer, never anything the trial saw beyond that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from engine.game import apply, options_for, pending
from engine.state import State


def N_(message: str) -> str:
    """Mark a message for the catalogues (docs/i18n.md); the reader's language is applied
    where it is shown."""
    return message


# What a follow-up asks, by the kind of decision, in words after "may then ask".
ASKS: Final = {
    "spy": N_("where to place the card's spy"),
    "road": N_("where to place the card's road"),
    "take": N_("which piece to take from the board when the supply is empty"),
    "battle": N_("which pieces to remove in the battle"),
    "safe_house": N_("whether spies escape to a safe house"),
    "build": N_("where to build the next block"),
    "infrastructure": N_("where to build the free block"),
    "move": N_("what to move next"),
    "tax": N_("whom to tax next"),
    "prize": N_("whether to take the betrayed card as a prize"),
    "discard": N_("which cards to discard, to keep within your limits or repay leverage"),
    "choose": N_("which player the event card chooses"),
    "bribe": N_("how much bribe to pay"),
    "pay": N_("how to pay"),
}
ANSWER: Final = re.compile(r"\((`[^()]*`)\)\s*$")  # a prompt ends with how to answer it


@dataclass(frozen=True)
class FollowUp:
    """Actions with one verb (`play`), the follow-up they may raise, and its answer."""

    verb: str
    kind: str
    asks: str
    answer: str  # e.g. "`spy CARD`"


def follow_ups(state: State, player: str) -> list[FollowUp]:
    """The follow-ups of `player` that their legal actions now raise, one per verb and
    kind, in the order of the actions (none when they need not decide)."""
    seat = state.seat(player)
    now = pending(state)
    ongoing = {"turn", now.kind if now is not None else "turn"}  # not a new question
    found: dict[tuple[str, str], FollowUp] = {}
    for action in options_for(state, seat):
        after = pending(apply(state, player, action))
        if after is None or seat not in after.seats or after.kind in ongoing:
            continue
        answer = ANSWER.search(after.prompt)
        asks = ASKS.get(after.kind, after.prompt.split(" (")[0])
        found[(action.verb, after.kind)] = FollowUp(
            action.verb, after.kind, asks, answer.group(1) if answer else ""
        )
    return list(found.values())
