"""What pyproject.toml cannot say: the wheel's compiled catalogues and compiled engine.

- build_py compiles each language's messages.po (adjudicator/locale) into the built
  package's messages.mo, with Babel, which the build requires (pyproject.toml).
- A wheel (`pip install .`, `pip wheel .`) carries the engine compiled with mypyc
  beside its Python source, which mypyc type-checks first (with the project's mypy
  settings): the same rules, a few times faster (docs/development.md#the-compiled-engine).
  An editable install (`pip install -e .`, as `make` does) stays pure Python, so that an
  edit is never shadowed by a stale build; so does a build with PAMIR_PURE_ENGINE=1, or
  one where no C compiler or no Python headers are found. Both builds play the same games
  step for step (tests/playout/test_engine_builds.py).

Everything else about the package is in pyproject.toml.
"""

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

# Left pure: the package's own entry (it imports lazily); the TypedDicts whose type hints
# are read at run time (frames.py's by state_checks.py, view_types.py's by the tests of
# the views), which mypyc does not keep; and the modules built on pydantic models (the
# JSON schemas of states and of the card data).
PURE = {
    "__init__.py",
    "frames.py",
    "view_types.py",
    "state_checks.py",
    "serialize.py",
    "card_schema.py",
}


class build_with_catalogues(build_py):
    def run(self) -> None:
        super().run()
        for po in sorted(Path("adjudicator/locale").glob("*/LC_MESSAGES/messages.po")):
            mo = Path(self.build_lib) / po.with_suffix(".mo")
            mo.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as source:
                catalog = read_po(source, locale=po.parts[-3])
            with mo.open("wb") as target:
                write_mo(target, catalog)


def compiled_modules() -> list[str]:
    """The engine's modules mypyc compiles."""
    found = sorted(Path("engine").glob("*.py")) + sorted(Path("engine/rules").glob("*.py"))
    return [str(path) for path in found if path.name not in PURE]


# The commands that build the package's files; the others (egg_info, dist_info, sdist)
# only read its metadata and need nothing compiled.
BUILDS = {"bdist_wheel", "build", "build_ext", "install"}


def why_pure() -> str | None:
    """Why this build leaves the engine pure Python, or None to compile it."""
    if any(command in sys.argv for command in ("editable_wheel", "develop")):
        return "an editable install"
    if os.environ.get("PAMIR_PURE_ENGINE") == "1":
        return "PAMIR_PURE_ENGINE=1"
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        return f"no Python headers ({headers})"
    return None


def engine_extensions() -> list[Extension]:
    if not BUILDS & set(sys.argv[1:]):
        return []
    reason = why_pure()
    if reason is not None:
        print(f"pamir: the engine stays pure Python ({reason})")
        return []
    # Imported here: only a build that compiles needs mypy (a build requirement).
    from mypyc.build import mypycify

    print("pamir: compiling the engine with mypyc")
    extensions: list[Extension] = mypycify(compiled_modules())
    return extensions


setup(cmdclass={"build_py": build_with_catalogues}, ext_modules=engine_extensions())
