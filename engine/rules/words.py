"""Small helpers for the English of the game log."""

from __future__ import annotations


def article(word: str) -> str:
    """'an afghan', 'a british': the word with its indefinite article."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"
