"""The documentation's examples, run: the README's tour of the engine, the console sessions of
`pamir engine` in the README and in docs/notation.md, and the error messages notation.md
quotes for positions it describes in words.

What the docs show as printed is compared with what the code prints, so that an example
whose output goes stale fails here. The README's session with a game repository (`pamir new`,
`pamir move`, `pamir log`) is not run: its commit ids and times differ on every run.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from positions import Position, act

import engine
from adjudicator.cli.commands import apply_moves

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
NOTATION = ROOT / "docs" / "notation.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
KABUL_BAZAAR = 8  # Kabul, rank 2, tax
AFGHAN_HANDICRAFTS = 9  # Kabul
KHYBER_PASS = 29  # Punjab, tax


def section(path: Path, heading: str) -> str:
    """The text under `heading` (a whole heading line) up to the next heading at its level."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = lines.index(heading + "\n") + 1
    fenced = False
    for end in range(start, len(lines)):
        line = lines[end]
        fenced ^= line.startswith("```")
        if not fenced and re.match(rf"#{{1,{level}}} ", line):
            return "".join(lines[start:end])
    return "".join(lines[start:])


def blocks(text: str, language: str) -> list[str]:
    """The contents of the fenced blocks of one language, in order."""
    return [body for lang, body in FENCE.findall(text) if lang == language]


def session(block: str) -> list[tuple[str, str]]:
    """A console block as (command, the output shown after it) pairs."""
    pairs: list[tuple[str, str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            pairs.append((line[2:].rstrip("\n"), ""))
        else:
            command, shown = pairs[-1]
            pairs[-1] = (command, shown + line)
    return pairs


def run_session(block: str, folder: Path) -> None:
    """Run each command with bash in `folder`, comparing its output with the block's."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command, shown in session(block):
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
        assert done.stdout == shown, f"$ {command}"


def test_the_readme_tour_prints_what_it_shows() -> None:
    tour = section(README, "## A short tour of the engine")
    (code,), (shown,) = blocks(tour, "python"), blocks(tour, "text")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(README), "exec"), {})
    assert printed.getvalue() == shown


@pytest.mark.parametrize(
    ("path", "heading"),
    [(README, "## The command line"), (NOTATION, "### Examples")],
    ids=["readme", "notation"],
)
def test_console_sessions_print_what_they_show(
    path: Path, heading: str, home: Path, tmp_path: Path
) -> None:
    (block,) = blocks(section(path, heading), "console")
    run_session(block, tmp_path)


def refusal(state: engine.State, line: str) -> str:
    """The message `pamir engine apply` gives for a one-line move file."""
    with pytest.raises(engine.MoveError) as caught:
        apply_moves(state, line + "\n")
    return str(caught.value)


def alice_taxing() -> engine.State:
    """Alice taxes with a rank 2 card (Kabul Bazaar), ruling Kabul, where bob has a card;
    a rupee lies on each of five market cards.
    """
    position = (
        Position({"alice": "british", "bob": "russian"})
        .market([70, 73, 15, 45, 23, 1], [2, 3, 4, 6, 7, 10])
        .court("alice", KABUL_BAZAAR)
        .tribes("alice", "kabul", 1)
        .court("bob", AFGHAN_HANDICRAFTS)
        .rupees("bob", 3)
    )
    for column in range(5):
        position.market_rupees(0, column, 1)
    return act(position.build(), "alice", f"tax {KABUL_BAZAAR}")


def hope_deciding_a_bribe() -> engine.State:
    """Cati taxes with Khyber Pass, on which Hope has two spies: Hope decides the bribe."""
    position = (
        Position({"Cati": "british", "Hope": "russian"})
        .rupees("Cati", 4)
        .rupees("Hope", 4)
        .market_rupees(0, 1, 2)
        .court("Cati", KHYBER_PASS)
        .spies("Hope", KHYBER_PASS, 2)
    )
    return act(position.build(), "Cati", f"tax {KHYBER_PASS}")


def test_the_notation_examples_of_described_positions_are_real_messages() -> None:
    """notation.md's examples after the console session, in order: a tax, then a bribe."""
    taxing, bribe = blocks(section(NOTATION, "### Examples"), "text")
    assert refusal(alice_taxing(), "done") + "\n" == taxing
    assert refusal(hope_deciding_a_bribe(), "Cati: pass") + "\n" == bribe
