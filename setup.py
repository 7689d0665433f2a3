"""The wheel carries the compiled catalogues: build_py compiles each language's
messages.po (adjudicator/locale) into the built package's messages.mo, with Babel, which
the build requires (pyproject.toml). Everything else about the package is in pyproject.toml."""

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import setup
from setuptools.command.build_py import build_py


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


setup(cmdclass={"build_py": build_with_catalogues})
