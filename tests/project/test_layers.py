"""The capabilities of `adjudicator` import one way: each only from those below it.

The order is the one `adjudicator/__init__.py` documents; `engine` imports nothing from
`adjudicator` at all. Every import is found, lazy ones inside functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["home", "drawing", "games", "forge", "mail", "hooks", "schedule", "web", "cli"]


def imported_modules(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def capability(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "adjudicator" else None


def test_every_capability_folder_is_in_the_layer_order() -> None:
    folders = {p.name for p in (ROOT / "adjudicator").iterdir() if (p / "__init__.py").exists()}
    assert folders == set(LAYERS)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_capability_imports_only_from_the_ones_below_it(layer: str) -> None:
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    wrong = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "adjudicator" / layer).rglob("*.py"))
        for module in imported_modules(path)
        if (found := capability(module)) is not None and found in LAYERS and found not in allowed
    ]
    assert wrong == []


def test_the_engine_imports_nothing_from_the_adjudicator() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "engine").rglob("*.py"))
        for module in imported_modules(path)
        if module.split(".")[0] in ("adjudicator", "pamir_templates")
    ]
    assert wrong == []


# The engine's layers, bottom first: values and data (words for players in a translatable
# form among them), the rules, the game (legal actions, apply, and why an action is
# refused, which apply needs), the notation and its words in other languages, then what uses
# the game (state files, views, the stand-in, random play, follow-ups) and the package's API.
# `engine.explain` sits with the game, not above it: `apply` must say why it refuses.
ENGINE_LAYERS: list[tuple[str, ...]] = [
    (
        "engine.actions",
        "engine.card_schema",
        "engine.cards",
        "engine.errors",
        "engine.frames",
        "engine.phrases",
        "engine.rng",
        "engine.state",
        "engine.version",
        "engine.view_types",
    ),
    ("engine.invariants", "engine.rules"),
    ("engine.game", "engine.explain"),
    ("engine.notation", "engine.aliases"),
    (
        "engine.state_checks",
        "engine.serialize",
        "engine.view",
        "engine.standin",
        "engine.playout",
        "engine.coverage",
        "engine.mutate",
        "engine.followups",
        "engine.resignation",
    ),
    ("engine",),
]


def engine_module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def engine_layer(module: str) -> int | None:
    """The layer of an engine module (the longest prefix listed wins), None if not ours."""
    found = [
        (len(prefix), index)
        for index, layer in enumerate(ENGINE_LAYERS)
        for prefix in layer
        if module == prefix or (prefix != "engine" and module.startswith(prefix + "."))
    ]
    return max(found)[1] if found else None


ENGINE_FILES = sorted((ROOT / "engine").rglob("*.py"))


def test_every_engine_module_is_in_a_layer() -> None:
    missing = [
        str(p.relative_to(ROOT)) for p in ENGINE_FILES if engine_layer(engine_module(p)) is None
    ]
    assert missing == []


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_engine_module_imports_nothing_from_a_layer_above_it(path: Path) -> None:
    own = engine_layer(engine_module(path))
    assert own is not None
    wrong = [
        f"{engine_module(path)} imports {module}"
        for module in imported_modules(path)
        if (found := engine_layer(module)) is not None and found > own
    ]
    assert wrong == []


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_engine_module_imports_at_its_top(path: Path) -> None:
    """An import inside a function would hide a cycle instead of breaking it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = [
        f"line {node.lineno}"
        for function in ast.walk(tree)
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(function)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    assert hidden == []
