"""The README's "Playing a game" session runs as written, in one shell (its `cd` and
`export` carry over), with only what changes from run to run set aside: the folder,
commit ids and times."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from test_docs import README, blocks, section, session

MARK = "@@pamir-session-step@@"
VARYING = [
    (re.compile(r"\bcommit [0-9a-f]{10}\b"), "commit COMMIT"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"), "TIME UTC"),
]


def steady(text: str) -> str:
    for pattern, replacement in VARYING:
        text = pattern.sub(replacement, text)
    return text


def test_the_readme_game_session_runs_as_written(tmp_path: Path) -> None:
    (block,) = blocks(section(README, "## Playing a game"), "console")
    folder = str(tmp_path / "tour")
    steps = session(block.replace("/tmp/tour", folder))
    script = "exec 2>&1\n" + "".join(f"echo {MARK}\n{command}\n" for command, _ in steps)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PAMIR_", "GIT_"))  # as a newcomer's shell has them
    }
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    printed = done.stdout.split(f"{MARK}\n")[1:]
    assert len(printed) == len(steps), done.stdout
    for (command, shown), output in zip(steps, printed, strict=True):
        assert steady(output) == steady(shown), f"$ {command}"


def test_a_game_finds_its_service_home_from_any_folder(tmp_path: Path) -> None:
    home = tmp_path / "service"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAMIR_")}
    pamir = [sys.executable, "-m", "adjudicator.cli"]
    players = ["--player", "alice:a@example.org", "--player", "bob:b@example.org"]
    home.mkdir()
    subprocess.run(
        [*pamir, "new", "games/g", *players], cwd=home, env=env, check=True, capture_output=True
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(
        [*pamir, "legal", str(home / "games" / "g")],
        cwd=elsewhere,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert ": loyalty afghan" in done.stdout
