"""A refusal's example is of the verb the player wrote: `battle 3 moon` is answered with a
battle, not with `betray 12 34`."""

from __future__ import annotations

import pytest

import engine


@pytest.mark.parametrize(
    ("line", "example"),
    [
        ("battle 3 moon", "battle 43 kandahar or battle 33 71"),
        ("betray 3 moon", "betray 12 34"),
        ("march spy 3 moon", "march spy 12 34"),
    ],
)
def test_the_example_fits_the_verb(line: str, example: str) -> None:
    state = engine.new_game(["alice", "bob"], 3)
    with pytest.raises(engine.MoveError) as refused:
        engine.parse_line(line, state)
    assert refused.value.code == "bad-arguments"
    assert example in str(refused.value)
    verb = line.split()[0]
    assert all(
        word == verb for word in ("betray", "battle", "march") if f"{word} " in str(refused.value)
    )
