"""The shape of the code a newcomer reads (docs/architecture.md): modules short enough to
read in one sitting, no import cycle between them (an import inside a function hides one
rather than breaking it), each such import saying why it is there, and the choice between
the embedded and the PostgreSQL mode made in one place.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "adjudicator")
MOST_LINES = 600
SOURCES = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SOURCES}


def _package_of(module: str, path: Path, level: int) -> str:
    parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    return ".".join(parts[: len(parts) - level + 1])


def _ours(name: str) -> str | None:
    """The module of ours that importing `name` runs: the longest prefix that is one."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    """The modules of ours that `module` imports, wherever the import is (in a function,
    under TYPE_CHECKING). `from package import name` imports the submodule when `name` is
    one, else the package."""
    path = MODULES[module]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(p for p in (_package_of(module, path, node.level), base) if p)
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        found.update(ours for name in names if (ours := _ours(name)) and ours != module)
    return found


def cycles() -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    graph = {module: sorted(imports_of(module)) for module in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in graph:
        if module not in index:
            visit(module)
    return found


def test_no_module_is_longer_than_one_sitting() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in SOURCES
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert long == {}


def test_no_modules_import_each_other_even_inside_functions() -> None:
    assert cycles() == []


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    """The test above can fail: two modules that import each other, one of them lazily."""
    MODULES["adjudicator.fake_a"] = tmp_path / "fake_a.py"
    MODULES["adjudicator.fake_b"] = tmp_path / "fake_b.py"
    (tmp_path / "fake_a.py").write_text("from adjudicator import fake_b\n")
    (tmp_path / "fake_b.py").write_text("def f():\n    from adjudicator.fake_a import x\n")
    try:
        assert ["adjudicator.fake_a", "adjudicator.fake_b"] in cycles()
    finally:
        del MODULES["adjudicator.fake_a"], MODULES["adjudicator.fake_b"]


# A module whose commands all import on use says so once, in its docstring, in these words.
SAYS_SO_ONCE = "imports what it needs when it runs"


def unexplained_imports(path: Path) -> list[str]:
    """The imports inside functions with no comment among them (a run of imports shares
    one) nor on the line above, in a module whose docstring does not say why it imports
    on use."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    if SAYS_SO_ONCE in " ".join((ast.get_docstring(tree) or "").split()):
        return []
    lines = text.splitlines()
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for body in _bodies(function):
            run: list[ast.stmt] = []
            for statement in [*body, None]:
                if isinstance(statement, (ast.Import, ast.ImportFrom)):
                    run.append(statement)
                    continue
                if run:
                    said = lines[run[0].lineno - 2 : run[-1].end_lineno or run[-1].lineno]
                    if not any("#" in line for line in said):
                        found.append(f"{path.relative_to(ROOT)}:{run[0].lineno}")
                run = []
    return found


def _bodies(function: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists of a function, its nested blocks' included (not nested
    functions': they are walked on their own)."""
    found: list[list[ast.stmt]] = []
    todo = [function]
    while todo:
        node = todo.pop()
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                found.append(block)
            for child in block or []:
                if isinstance(child, ast.AST) and not isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                ):
                    todo.append(child)
    return found


def test_an_import_inside_a_function_says_why() -> None:
    """Only start-up time is a reason to import inside a function (the short-lived
    commands must not load what they do not use), and the comment says which."""
    found = [line for p in SOURCES for line in unexplained_imports(p)]
    assert found == []


# The modules besides adjudicator/home/ that name the database setting, and why: the one
# place that tells the two modes apart is adjudicator/home/backend.py.
NAME_THE_DATABASE = {
    "adjudicator/cli/cluster.py",  # PostgreSQL mode's own commands refuse to run without it
}


def test_only_home_tells_the_modes_apart() -> None:
    naming = {
        str(p.relative_to(ROOT))
        for p in SOURCES
        if re.search(r"\bdatabase_url\b", p.read_text(encoding="utf-8"))
        and "adjudicator/home" not in p.relative_to(ROOT).as_posix()
    }
    assert naming <= NAME_THE_DATABASE


def test_every_module_is_named_on_the_architecture_page() -> None:
    """docs/architecture.md lists each folder's modules on one line that starts with the
    folder's name: a module added, moved or removed changes that line too."""
    listed: dict[str, set[str]] = {}
    for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines():
        if found := re.match(r"- \*\*`([a-z_/]+)/`\*\*: ", line):
            listed[found.group(1)] = set(re.findall(r"`([a-z_0-9]+\.py)`", line))
    modules = {
        (p.parent.relative_to(ROOT).as_posix(), p.name)
        for p in SOURCES
        if p.name not in ("__init__.py", "__main__.py")
    }
    missing = sorted(
        f"{folder}/{name}" for folder, name in modules if name not in listed.get(folder, set())
    )
    gone = sorted(
        f"{folder}/{name}"
        for folder, names in listed.items()
        for name in names
        if (folder, name) not in modules
    )
    assert (missing, gone) == ([], [])
