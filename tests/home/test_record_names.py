"""A record's name (adjudicator/home/store.py `check_name`): a relative path of plain
parts, as a PurePosixPath reads it back unchanged, with no part `.`, `..` or hidden."""

from __future__ import annotations

from itertools import product
from pathlib import PurePosixPath

import pytest

from adjudicator.home.store import StoreError, check_name

# The characters that matter to the rule, and two that do not.
ALPHABET = ["a", ".", "/", "\\", "\0", " ", "\n"]


def is_record_name(name: str) -> bool:
    """The rule as the parts of a path say it (as `check_name` once tested it)."""
    parts = PurePosixPath(name).parts
    return not (
        not parts
        or name.startswith("/")
        or "\\" in name
        or "\0" in name
        or any(p in {".", ".."} or p.startswith(".") for p in parts)
        or "/".join(parts) != name
    )


def accepted(name: str) -> bool:
    try:
        return check_name(name) == name
    except StoreError:
        return False


def test_every_short_name_is_judged_as_its_path_s_parts_judge_it() -> None:
    for length in range(7):
        for letters in product(ALPHABET, repeat=length):
            name = "".join(letters)
            assert accepted(name) == is_record_name(name), repr(name)


@pytest.mark.parametrize(
    "name", ["private/kabul/0021-alice.md", "mail/ledger/kabul.json", "a..b/c.", "x y/z"]
)
def test_a_record_s_name_is_accepted(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize(
    "name", ["", "/etc/passwd", "a//b", "a/./b", "a/../b", "../a", ".hidden", "a/", "a\\b"]
)
def test_what_is_no_record_s_name_is_refused(name: str) -> None:
    with pytest.raises(StoreError, match="not a record's name"):
        check_name(name)
