"""The engine's two builds: compiled with mypyc (a wheel) and pure Python (an editable
install, or a wheel built without a C compiler). They must play the same games.

`.ci/run` runs the engine's tests on the installed wheel with PAMIR_ENGINE_BUILD=compiled:
there every compiled module must load from its extension, and the identical-games test
plays the same random games with that engine and with the checkout's pure source, step
for step. In the development venv (editable, so pure) every module must load from its
source: a stale build left in the checkout would shadow an edit. setup.py says which
modules are compiled.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import engine
from engine.actions import format_action
from engine.game import legal_seat_actions, step
from engine.playout import NAMES
from engine.rng import below, next_u64, seed_state
from engine.rules.setup import new_game
from engine.serialize import dumps

CHECKOUT = Path(__file__).resolve().parents[2]
EXPECTED = os.environ.get("PAMIR_ENGINE_BUILD", "pure")
# (players, Wakhan) of the games compared: every count of players, and Wakhan's games.
LINES = ((2, False), (3, False), (4, False), (5, False), (1, True), (2, True))
# Modules setup.py leaves pure in every build (the package's entry, the schemas' modules).
ALWAYS_PURE = {"__init__", "frames", "view_types", "state_checks", "serialize", "card_schema"}


def engine_modules() -> list[str]:
    """Every module of the installed engine, by dotted name."""
    root = Path(engine.__file__).parent
    found: set[str] = set()
    for path in [*root.glob("*"), *(root / "rules").glob("*")]:
        name = path.name.split(".")[0]
        if path.suffix not in {".py", ".so", ".pyd"} or name == "__init__":
            continue
        parts = path.parent.relative_to(root.parent).parts
        found.add(".".join([*parts, name]))
    return sorted(found)


def digest(games: int, seed: int) -> dict[str, object]:
    """A digest of `games` random games a line of LINES: every step's legal actions, the
    one picked, and every tenth state's JSON and the last one."""
    hashed = hashlib.sha256()
    steps = 0
    for players, wakhan in LINES:
        for index in range(games):
            rng = seed_state(seed * 1_000_003 + index)
            rng, game_seed = next_u64(rng)
            state = new_game(list(NAMES[:players]), game_seed, {"wakhan": True} if wakhan else None)
            while state.phase != "over":
                choices = legal_seat_actions(state)
                hashed.update("|".join(f"{s} {format_action(a)}" for s, a in choices).encode())
                rng, pick = below(rng, len(choices))
                step(state, *choices[pick])
                steps += 1
                if steps % 10 == 0:
                    hashed.update(dumps(state).encode())
            hashed.update(dumps(state).encode())
    rules = importlib.import_module("engine.game").__file__  # compiled or not
    return {"digest": hashed.hexdigest(), "steps": steps, "engine": rules}


def digest_with(pythonpath: list[Path], games: int) -> dict[str, object]:
    """`digest` in a fresh interpreter whose `engine` is the first one on `pythonpath`."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in pythonpath))
    command = [sys.executable, __file__, str(games)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_each_module_loads_from_the_build_expected() -> None:
    assert EXPECTED in {"pure", "compiled"}, EXPECTED
    for name in engine_modules():
        where = Path(importlib.import_module(name).__file__ or "")
        compiled = any(where.name.endswith(suffix) for suffix in EXTENSION_SUFFIXES)
        if EXPECTED == "compiled" and name.split(".")[-1] not in ALWAYS_PURE:
            assert compiled, f"{name} is not compiled: {where}"
        elif EXPECTED == "pure":
            assert not compiled, f"{name} loads from a build, not its source: {where}"


def test_no_build_is_left_in_the_checkout() -> None:
    """A compiled module beside its source takes its place at import: an edit to the
    source would then change nothing."""
    left = [p for p in (CHECKOUT / "engine").rglob("*") if p.suffix in {".so", ".pyd"}]
    assert left == [], "remove these builds from the checkout: " + ", ".join(map(str, left))


@pytest.mark.skipif(
    EXPECTED != "compiled",
    reason="this venv's engine is pure Python; .ci/run runs this on the compiled wheel",
)
def test_the_compiled_and_the_pure_engine_play_the_same_games() -> None:
    compiled = digest_with([Path(__file__).parent], games=6)
    pure = digest_with([CHECKOUT, Path(__file__).parent], games=6)
    assert pure["engine"] == str(CHECKOUT / "engine" / "game.py"), pure["engine"]
    assert str(compiled["engine"]).endswith(tuple(EXTENSION_SUFFIXES)), compiled["engine"]
    assert compiled["steps"] == pure["steps"]
    assert compiled["digest"] == pure["digest"]


if __name__ == "__main__":
    print(json.dumps(digest(int(sys.argv[1]), seed=2026)))
