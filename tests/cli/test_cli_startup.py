"""The command line starts light: `pamir --help`, and a command refused at once, load
neither the engine nor Git nor the web service (their cost is measured by
benchmarks/startup.py; here only what is imported is checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from adjudicator.cli import parser
from adjudicator.web import serve

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("engine", "git", "flask", "pydantic", "jinja2", "apscheduler", "markdown")

PROBE = """
import json, sys
from adjudicator.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as exit:
    status = exit.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(json.loads(%r)))
print(json.dumps({"status": status, "heavy": heavy}), file=sys.stderr)
"""


def loaded(*args: str, cwd: Path = ROOT) -> tuple[object, list[str]]:
    """Exit status of `pamir ARGS` in a fresh interpreter, and the heavy packages it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE % json.dumps(HEAVY), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["status"], report["heavy"]


def test_help_loads_nothing_heavy() -> None:
    assert loaded("--help") == (0, [])
    assert loaded("move", "--help") == (0, [])


def test_version_loads_nothing_heavy() -> None:
    """The engine's version is read from engine/version.py without running the engine."""
    assert loaded("--version") == (0, [])


def test_bad_arguments_are_refused_before_anything_heavy_loads() -> None:
    assert loaded("move", "somewhere") == (2, [])  # --as and FILE missing


def test_a_move_for_no_game_is_refused_without_the_engine(tmp_path: Path) -> None:
    status, heavy = loaded("move", str(tmp_path / "nowhere"), "--as", "alice", "m.txt")
    assert status == 2 and "engine" not in heavy and "flask" not in heavy


def test_a_move_file_that_cannot_be_read_is_refused_without_the_engine(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "g")], check=True)
    status, heavy = loaded("move", str(tmp_path / "g"), "--as", "alice", str(tmp_path / "none"))
    assert status == 2 and "engine" not in heavy


def test_version_still_names_the_engine() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "adjudicator.cli", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith("pamir ") and "(engine " in done.stdout


def test_serve_defaults_are_the_web_service_defaults() -> None:
    assert (parser.DEFAULT_HOST, parser.DEFAULT_PORT) == (serve.DEFAULT_HOST, serve.DEFAULT_PORT)


def test_every_command_names_a_handler_that_exists() -> None:
    # The handlers are imported only when a command runs: a typo would show only then.
    import importlib

    root = parser.build_parser()
    seen = 0
    stack = [root]
    while stack:
        current = stack.pop()
        for action in current._actions:
            choices = getattr(action, "choices", None)
            if isinstance(choices, dict):
                stack.extend(choices.values())
        func = current.get_default("func")
        if isinstance(func, parser.handler) and current is not root:
            module, _, name = func.target.partition(":")
            assert callable(getattr(importlib.import_module(f"adjudicator.cli.{module}"), name))
            seen += 1
    assert seen >= 20
