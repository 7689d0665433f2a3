"""The systemd units in deploy/systemd/ (docs/operations.md#deployment) run what exists.

Each unit is read as systemd reads it (keys may repeat), and what it names is checked
against the code: its commands are the console scripts this package installs, with
arguments their own parsers accept (`pamir`'s argparse, gunicorn's), gunicorn loads its
config module and the application factory as the unit says, and every credential the unit
loads is handed to a secret setting by its `PAMIR_*_FILE` variable. Where systemd is
installed, `systemd-analyze verify` checks the units too. docs/operations.md shows them as
they are.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from adjudicator.cli.parser import build_parser, handler
from adjudicator.home.settings import SECRET_SETTINGS, load_settings

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
OPERATIONS = ROOT / "docs" / "operations.md"
NAMES = ("pamir-web.service", "pamir-scheduler.service")
HOME = "/srv/pamir"
VENV_BIN = "/srv/pamir/venv/bin/"
Unit = dict[str, list[tuple[str, str]]]


def parse_unit(text: str) -> Unit:
    """A unit file's sections, each a list of (key, value) in order: unlike an INI file, a
    key may repeat (Environment=, LoadCredential=). Lines ending in a backslash go on."""
    sections: Unit = {}
    current: list[tuple[str, str]] | None = None
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        key, equals, value = line.partition("=")
        assert equals and current is not None, f"not a unit file line: {raw!r}"
        current.append((key.strip(), value.strip()))
    return sections


def read_unit(name: str) -> Unit:
    return parse_unit((UNITS / name).read_text(encoding="utf-8"))


def values(unit: Unit, section: str, key: str) -> list[str]:
    return [value for k, value in unit.get(section, []) if k == key]


def one(unit: Unit, section: str, key: str) -> str:
    found = values(unit, section, key)
    assert len(found) == 1, f"[{section}] {key}= is given {len(found)} times"
    return found[0]


def environment(unit: Unit) -> dict[str, str]:
    """The variables of every Environment= line (each may set several, quoted)."""
    variables: dict[str, str] = {}
    for line in values(unit, "Service", "Environment"):
        for assignment in shlex.split(line):
            name, _, value = assignment.partition("=")
            variables[name] = value
    return variables


def exec_start(unit: Unit) -> list[str]:
    """ExecStart='s words; the units use no more of systemd's quoting than the shell's."""
    return shlex.split(one(unit, "Service", "ExecStart"))


def console_scripts(distribution: str) -> set[str]:
    scripts = entry_points(group="console_scripts")
    return {e.name for e in scripts if e.dist is not None and e.dist.name == distribution}


def deployment_section() -> str:
    """docs/operations.md from `## Deployment` to the next `## ` heading (or the end)."""
    text = OPERATIONS.read_text(encoding="utf-8")
    start = text.index("\n## Deployment\n")
    end = text.find("\n## ", start + 1)
    return text[start : None if end == -1 else end]


def test_the_docs_show_the_units_as_they_are() -> None:
    shown = re.findall(r"^```ini\n(.*?)^```$", deployment_section(), re.MULTILINE | re.DOTALL)
    for name in NAMES:
        assert (UNITS / name).read_text(encoding="utf-8") in shown, name


def test_the_folder_holds_the_two_units() -> None:
    assert sorted(p.name for p in UNITS.glob("*.service")) == sorted(NAMES)  # each tested


@pytest.mark.parametrize("name", NAMES)
def test_a_unit_runs_as_pamir_in_its_home_restarts_and_is_hardened(name: str) -> None:
    unit = read_unit(name)
    assert {"Unit", "Service", "Install"} <= set(unit)
    assert one(unit, "Unit", "Description")
    assert one(unit, "Install", "WantedBy") == "multi-user.target"
    assert one(unit, "Service", "User") == "pamir"
    assert one(unit, "Service", "WorkingDirectory") == HOME
    assert environment(unit)["PAMIR_HOME"] == HOME
    assert one(unit, "Service", "Restart") == "on-failure"
    for key, value in [
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
        ("PrivateTmp", "yes"),
        ("ProtectHome", "yes"),
    ]:
        assert one(unit, "Service", key) == value, key
    # ProtectSystem=strict makes everything read-only but what is named here.
    assert values(unit, "Service", "ReadWritePaths") == [HOME]
    # A graceful stop: SIGTERM to the main process, which lets work in progress finish,
    # and time for it before systemd kills what is left.
    assert one(unit, "Service", "KillMode") == "mixed"
    assert int(one(unit, "Service", "TimeoutStopSec")) >= 30


def test_the_scheduler_unit_runs_a_real_pamir_command() -> None:
    words = exec_start(read_unit("pamir-scheduler.service"))
    assert words[0] == VENV_BIN + "pamir"
    assert "pamir" in console_scripts("pamir")
    args = build_parser().parse_args(words[1:])  # exits (a failure here) if it refuses them
    assert isinstance(args.func, handler)
    module, _, function = args.func.target.partition(":")
    assert callable(getattr(import_module(f"adjudicator.cli.{module}"), function))
    assert args.func.target == "service:cmd_scheduler" and not args.once


def test_the_web_unit_runs_gunicorn_with_its_config_and_the_factory(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # gunicorn ships no type hints, and this is the one place that imports it.
    from gunicorn.app.wsgiapp import WSGIApplication  # type: ignore[import-untyped]

    unit = read_unit("pamir-web.service")
    words = exec_start(unit)
    assert words[0] == VENV_BIN + "gunicorn"
    assert "gunicorn" in console_scripts("gunicorn")
    locked = (ROOT / "requirements" / "runtime.txt").read_text(encoding="utf-8")
    assert re.search(r"^gunicorn==", locked, re.MULTILINE)  # installed from the lock
    # gunicorn's own reading of the command line: the config module, then the options
    # beside it, then the application factory, called as gunicorn calls it.
    monkeypatch.setattr(sys, "argv", ["gunicorn", *words[1:]])
    monkeypatch.setattr(sys, "path", list(sys.path))  # gunicorn adds its chdir to it
    monkeypatch.delenv("GUNICORN_CMD_ARGS", raising=False)
    monkeypatch.chdir(home)
    credentials = hand_over_credentials(unit, tmp_path / "credentials", monkeypatch)
    application = WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]")
    assert application.cfg.bind == ["127.0.0.1:8000"]  # behind the reverse proxy only
    app = application.wsgi()
    settings = app.extensions["pamir.settings"]
    assert settings.home == home
    for key, value in credentials.items():
        assert getattr(settings, key).get_secret_value() == value


def hand_over_credentials(
    unit: Unit, directory: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    """What systemd does at start: each LoadCredential= file in the credentials directory
    (%d), and the unit's PAMIR_*_FILE variables set. Returns the secret each setting gets."""
    directory.mkdir()
    given: dict[str, str] = {}
    for line in values(unit, "Service", "LoadCredential"):
        name = line.partition(":")[0]
        (directory / name).write_text(f"value-of-{name}\n", encoding="utf-8")
    for variable, value in environment(unit).items():
        if variable.endswith("_FILE"):
            key = variable.removeprefix("PAMIR_").removesuffix("_FILE").lower()
            path = directory / value.removeprefix("%d/")
            monkeypatch.setenv(variable, str(path))
            given[key] = path.read_text(encoding="utf-8").removesuffix("\n")
    return given


@pytest.mark.parametrize("name", NAMES)
def test_every_credential_is_handed_to_a_secret_setting(name: str, home: Path) -> None:
    unit = read_unit(name)
    loaded = {line.partition(":")[0] for line in values(unit, "Service", "LoadCredential")}
    assert loaded >= {"smtp_password", "github_secret", "gitea_secret"}
    named: dict[str, str] = {}  # credential -> the secret setting it is read as
    for variable, value in environment(unit).items():
        if variable.endswith("_FILE"):
            key = variable.removeprefix("PAMIR_").removesuffix("_FILE").lower()
            assert variable.startswith("PAMIR_") and key in SECRET_SETTINGS, variable
            assert value.startswith("%d/"), f"{variable} is not in the credentials directory"
            named[value.removeprefix("%d/")] = key
    assert set(named) == loaded  # each credential read by one variable, and no other
    with pytest.MonkeyPatch.context() as patch:
        given = hand_over_credentials(unit, home / "credentials", patch)
        settings = load_settings()
    for key, value in given.items():
        assert getattr(settings, key).get_secret_value() == value


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd is not installed")
def test_systemd_analyze_verifies_the_units(tmp_path: Path) -> None:
    # It checks that each command exists: the venv's, as this checkout's venv stands for it.
    here = str(Path(sys.executable).parent) + "/"
    for name in NAMES:
        text = (UNITS / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(text.replace(VENV_BIN, here), encoding="utf-8")
    done = subprocess.run(
        ["systemd-analyze", "verify", *(str(tmp_path / name) for name in NAMES)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # Unknown keys and bad values are only warnings: none is allowed either.
    assert (done.returncode, done.stderr) == (0, "")
