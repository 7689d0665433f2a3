"""The lock files in requirements/ (docs/development.md): `make test` and .ci/run install
nothing else, so they must pin every package that pyproject.toml asks for, exactly and
with hashes, and agree with each other."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "requirements"
LOCKS = ("dev.txt", "runtime.txt", "build.txt")


def pins(name: str) -> dict[str, str]:
    """Package name -> its pinned version; every entry is pinned with `==` and hashed."""
    text = (REQUIREMENTS / name).read_text(encoding="utf-8").replace("\\\n", " ")
    found: dict[str, str] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement, *options = line.split(" --hash=")
        assert options and all(o.startswith("sha256:") for o in options), line
        parsed = Requirement(requirement.strip())
        (spec,) = parsed.specifier
        assert spec.operator == "==", line
        found[canonicalize_name(parsed.name)] = spec.version
    return found


def project() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def requirements(names: list[str]) -> list[Requirement]:
    return [Requirement(name) for name in names]


@pytest.mark.parametrize("lock", LOCKS)
def test_every_locked_package_is_pinned_with_hashes(lock: str) -> None:
    assert pins(lock)


def assert_locked(wanted: list[Requirement], lock: str) -> None:
    pinned = pins(lock)
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement} is not in requirements/{lock}: run `make lock`"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"requirements/{lock} pins {name}=={pinned[name]}, outside {requirement}: "
            "run `make lock`"
        )


def test_the_runtime_lock_holds_every_dependency_of_the_package() -> None:
    wanted = requirements(project()["project"]["dependencies"])
    assert_locked(wanted, "runtime.txt")
    assert_locked(wanted, "dev.txt")


def test_the_development_lock_holds_the_tools() -> None:
    extras = project()["project"]["optional-dependencies"]
    assert_locked(requirements(extras["dev"]), "dev.txt")


def test_the_build_lock_holds_what_builds_the_package() -> None:
    wanted = requirements(project()["build-system"]["requires"])
    assert_locked(wanted, "build.txt")
    assert_locked(wanted, "dev.txt")  # `make test` installs the package without isolation
    listed = (REQUIREMENTS / "build.in").read_text(encoding="utf-8")
    named = {Requirement(line).name for line in listed.splitlines() if line[:1].isalpha()}
    assert named == {r.name for r in wanted} | {"pip"}, "build.in and pyproject.toml differ"


@pytest.mark.parametrize("lock", ["runtime.txt", "build.txt"])
def test_the_smaller_locks_pin_the_versions_of_the_development_lock(lock: str) -> None:
    development = pins("dev.txt")
    assert {name: development.get(name) for name in pins(lock)} == pins(lock)
