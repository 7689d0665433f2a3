"""Moves in words, for people: a history line or a mail's subject says what happened as
a sentence (`Choose Afghan loyalty; buy Herati Bandits (54).`), from the notation the
commits record (`loyalty afghan; purchase 54`), through `engine.describe_action`."""

from __future__ import annotations

from functools import lru_cache

import engine
from adjudicator.home.translations import Words


@lru_cache(maxsize=1)
def _any_position() -> engine.State:
    """A position to word actions in: a recorded action's phrase depends on no position
    but for `decline` (a prize, or a removed spy), which reads as declining a prize here."""
    return engine.new_game(["a", "b"], 0)


@lru_cache(maxsize=4096)
def in_words(actions: str, words: Words | None = None) -> str:
    """Actions as recorded (`loyalty afghan; purchase 54`) as a sentence: 'Choose Afghan
    loyalty; buy Herati Bandits (54).' A part that is not an action stays as it is (a
    refusal's reason, a note). In the reader's `words` (by default English)."""
    phrases: list[str] = []
    for part in actions.split("; "):
        try:
            read = engine.read_action(part)
        except engine.MoveError:
            phrases.append(part)
            continue
        if not read:
            phrases.append(part)
        elif words is None:
            phrases.append(engine.describe_action(_any_position(), read[0]))
        else:
            phrases.append(words.phrase(engine.phrase_action(_any_position(), read[0])))
    sentence = "; ".join(phrases)
    return sentence[:1].upper() + sentence[1:] + ("" if sentence.endswith(".") else ".")
