"""What each refusal code means, in words a player can read in their language.

A refusal names its stable code (`line 2: not-in-market: ...`, docs/notation.md and
docs/game-repository.md list them); the engine's own explanation that follows is English.
A player who reads another language gets, under it, each code's meaning from the
catalogue (`explained_codes`), so that every refusal is understood whatever its details.
"""

from __future__ import annotations

import re

from adjudicator.home.translations import N_, SOURCE, Words
from engine.phrases import P, Phrase, Term, Value

CODES: dict[str, str] = {
    "not-utf-8": N_("The move file is not UTF-8 text."),
    "too-large": N_("The move file is larger than the service accepts."),
    "syntax": N_("The words cannot be split: a double quote is not closed."),
    "empty": N_("There is no action at all."),
    "not-canonical": N_(
        "A pushed move file is written in the notation's English words: the service reads "
        "Polish words only in moves sent by mail or the web page."
    ),
    "unknown-verb": N_("The first word is not a verb of the notation."),
    "unknown-player": N_("No player of this game has that name."),
    "which-player": N_("Several players must decide now: start the line with `NAME:`."),
    "missing-argument": N_("A card is missing: give its number or its name."),
    "bad-arguments": N_("The wrong number or shape of arguments for this verb."),
    "bad-argument": N_("A count is not a whole number."),
    "unknown-card": N_("No card has that number or name."),
    "unknown-border": N_("These are not two regions that share a border."),
    "unknown-region": N_("That is not a region."),
    "unknown-coalition": N_("That is not a coalition."),
    "unknown-piece": N_("That is not a piece: army, road, tribe, spy or gift."),
    "bad-policy": N_("That is not one of the forms of a standing policy."),
    "game-over": N_("The game is over; no action is legal."),
    "not-your-decision": N_("You have nothing to decide now."),
    "wrong-decision": N_("This verb does not answer the decision pending now."),
    "no-actions-left": N_("Both actions of the turn are used."),
    "not-in-market": N_("That card is not in the market."),
    "cannot-afford": N_("That card costs more rupees than you have."),
    "paid-this-turn": N_("You placed a rupee on that card this turn."),
    "not-purchasable": N_("That card cannot be purchased."),
    "not-in-hand": N_("That card is not in your hand."),
    "bad-card": N_("That card is not one of the choices."),
    "illegal": N_("That action is not among the legal actions now."),
    "ambiguous": N_("The name fits several legal actions: give the card number."),
    "rollback-open": N_("Another rollback proposal is open."),
    "bad-rollback": N_("A rollback can only go back to a move that still counts."),
    "no-rollback": N_("No rollback proposal is open."),
    "already-agreed": N_("You have agreed to this rollback already."),
    "rollback-alone": N_("A rollback request must be alone in its move."),
    "pending": N_("Pushed moves are waiting for the adjudicator: try again shortly."),
    "stale": N_("The move is numbered for a position that is no longer the latest."),
    "out-of-order": N_("The move is numbered past the next move."),
    "stale-reply": N_("The reply answers a mail sent before the game's last move."),
}
# `line 3: not-in-market: ...` or `not-in-market: ...` at the start of a refusal's line.
_CODE = re.compile(r"^\s*(?:line \d+: )?([a-z0-9-]+): ", re.M)


def explained_codes(refusal: str, words: Words) -> list[str]:
    """For a reader of another language than English, one line per code the refusal
    names: `` `not-in-market`: Tej karty nie ma na rynku.`` (English readers have the
    engine's own words, which say it already)."""
    if words.language == SOURCE:
        return []
    seen = dict.fromkeys(m.group(1) for m in _CODE.finditer(refusal) if m.group(1) in CODES)
    return [f"`{code}`: {words(CODES[code])}" for code in seen]


def refusal_phrase(refusal: str, phrase: Phrase | None = None) -> Value:
    """A refusal as a report line quotes it: its `phrase` when it has one whose English is
    the refusal (said in the reader's language); else (a refusal recorded without one) the
    engine's English words, and for a reader of another language its code's meaning first
    (the English reads as the refusal)."""
    if phrase is not None and str(phrase) == refusal:
        return phrase
    codes = [m.group(1) for m in _CODE.finditer(refusal) if m.group(1) in CODES]
    if not codes:
        return Term(refusal, translated=False)
    meaning = Term("", message=CODES[codes[0]])  # nothing in English: the words say it
    return P("%(refusal)s%(meaning)s", refusal=refusal, meaning=meaning)
