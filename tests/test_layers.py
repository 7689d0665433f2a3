"""The capabilities of `adjudicator` import one way: each only from those below it.

The order is the one `adjudicator/__init__.py` documents; `engine` imports nothing from
`adjudicator` at all. Every import is found, lazy ones inside functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["home", "games", "forge", "mail", "hooks", "schedule", "web", "cli"]


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
