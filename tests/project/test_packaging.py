"""What the package carries besides code: the templates, the engine's card data and the
type markers.

They are read through importlib.resources, as the service reads them, so a packaging
rule that drops a file fails here (.ci/run makes the same check on the built wheel).
"""

from __future__ import annotations

import json
import tomllib
from importlib import metadata
from importlib.resources import files
from pathlib import Path

import pytest

from adjudicator import version

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(
    p.relative_to(ROOT / "templates").as_posix()
    for p in (ROOT / "templates").rglob("*")
    if p.suffix in {".j2", ".html"}
)
DATA = sorted(p.name for p in (ROOT / "engine" / "data").glob("*.json"))


def test_the_templates_and_data_are_found() -> None:
    assert {"report.md.j2", "private.md.j2", "web/base.html"} <= set(TEMPLATES)
    assert {"court_cards.json", "events.json", "map.json", "wakhan.json"} <= set(DATA)


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_is_in_pamir_templates(name: str) -> None:
    packaged = files("pamir_templates").joinpath(*name.split("/"))
    source = (ROOT / "templates" / name).read_text(encoding="utf-8")
    assert packaged.read_text(encoding="utf-8") == source


@pytest.mark.parametrize("package", ["engine", "adjudicator"])
def test_each_package_says_it_is_typed(package: str) -> None:
    """PEP 561: the marker tells a type checker to read the installed package's hints; the
    wheel carries it only if pyproject.toml lists it (.ci/run checks the built wheel)."""
    assert files(package).joinpath("py.typed").is_file()
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in setuptools["package-data"][package]


@pytest.mark.parametrize("name", DATA)
def test_every_data_file_is_in_engine_data(name: str) -> None:
    text = files("engine").joinpath("data", name).read_text(encoding="utf-8")
    assert json.loads(text)
    assert text == (ROOT / "engine" / "data" / name).read_text(encoding="utf-8")


def test_the_installed_version_is_the_projects() -> None:
    """A stale installation (pyproject changed, package not reinstalled) shows here."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert metadata.version("pamir") == project["version"]


def test_the_version_the_command_line_prints_is_the_projects() -> None:
    """`pamir --version` reads adjudicator/version.py, not the installed metadata."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert version.__version__ == project["version"]


def test_every_code_folder_is_a_package_of_the_wheel() -> None:
    # pyproject.toml lists the packages one by one: a new folder left off the list is
    # missing from the wheel, and every command that imports it fails once installed.
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for root in ("engine", "adjudicator")
        for p in (ROOT / root).rglob("__init__.py")
    }
    assert folders <= listed, sorted(folders - listed)
