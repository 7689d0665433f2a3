"""The pages in a real browser (headless Chromium), and `pamir serve` as its own process.

Chromium loads the pages from the application served on 127.0.0.1 and prints the DOM it
built (`--dump-dom`) or takes a screenshot. Debian's `chromium` package is needed (`make
test` installs it when run as root). Without it these tests skip, except under CI (the CI
variable set), where they fail: there the pages must have been seen in a real browser.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import PAMIR, THREE, create, isolate, play, state_json
from liveserver import fetch, serving

from adjudicator.web import create_app
from engine.cards import COURT_CARDS

GAME = "browser-game"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
UNDER_CI = os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}
MISSING = "headless Chromium is not installed (Debian: apt-get install -y chromium)"
needs_chromium = pytest.mark.skipif(CHROMIUM is None and not UNDER_CI, reason=MISSING)
# As root and on a closed network: no sandbox, and none of chromium's own connections out.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Not conftest's `home`: one PAMIR_HOME per module, with games already played in it, so
# that the read-only tests do not replay a game each.
@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        root = isolate(tmp_path_factory.mktemp("browser"), patch)
        create(root / "games" / GAME, THREE)
        play(root / "games" / GAME, 12, seed=5, whole_turn=True)
        yield root


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[str]:
    with serving(create_app({"home": home})) as url:
        yield url


def chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if CHROMIUM is None:
        pytest.fail(f"{MISSING}; under CI the browser tests must run")
    command = [
        CHROMIUM,
        "--headless",
        *FLAGS,
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=90, check=False)


@needs_chromium
def test_chromium_renders_the_game_page_and_a_turns_report(
    site: str, home: Path, tmp_path: Path
) -> None:
    game = chromium(tmp_path / "profile", "--dump-dom", f"{site}/games/{GAME}")
    assert game.returncode == 0, game.stderr[-2000:]
    dom = game.stdout
    assert f"<h1>Game {GAME}</h1>" in dom
    for region in ("Transcaspia", "Persia", "Herat", "Kabul", "Kandahar", "Punjab"):
        assert f'<th scope="row">{region}</th>' in dom
    assert '<h2 id="market">Market</h2>' in dom
    view = state_json(home / "games" / GAME)["view"]
    card = next(s["card"] for row in view["market"] for s in row if s and s["card"] in COURT_CARDS)
    assert f"{card} {COURT_CARDS[card].name}" in dom
    assert f"<h3>{GAME}: move 12 by " in dom  # the latest report, rendered in the page

    turn = chromium(tmp_path / "profile", "--dump-dom", f"{site}/games/{GAME}/turns/4")
    assert turn.returncode == 0, turn.stderr[-2000:]
    report = (home / "games" / GAME / "reports" / "0004.md").read_text(encoding="utf-8")
    assert f"<h2>{report.splitlines()[0].removeprefix('# ')}</h2>" in turn.stdout
    assert '<caption class="visually-hidden">Market</caption>' in turn.stdout


@needs_chromium
def test_a_screenshot_of_the_game_page(site: str, tmp_path: Path) -> None:
    shot = tmp_path / "game.png"
    done = chromium(
        tmp_path / "profile",
        f"--screenshot={shot}",
        "--window-size=1280,2200",
        f"{site}/games/{GAME}",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 2200)
    assert len(data) > 50_000  # text and tables, not a blank page
    keep = os.environ.get("PAMIR_SCREENSHOTS")
    if keep:
        shutil.copy(shot, Path(keep) / "game.png")


# -- pamir serve ---------------------------------------------------------------------------


def serve_command() -> list[str]:
    """`pamir serve` once the command line has it; the same code through `-m` until then."""
    listed = subprocess.run([str(PAMIR), "--help"], capture_output=True, text=True, check=False)
    if re.search(r"\bserve\b", listed.stdout):
        return [str(PAMIR), "serve"]
    return [sys.executable, "-m", "adjudicator.web.serve"]


def start_serving(home: Path) -> tuple[subprocess.Popen[str], str, str]:
    """`pamir serve` on a free port: the process, its base URL and its first line."""
    command = [*serve_command(), "--host", "127.0.0.1", "--port", "0"]
    env = {**os.environ, "PAMIR_HOME": str(home)}
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    match = re.search(r"serving (http://127\.0\.0\.1:\d+)/", first)
    if not match:
        process.kill()
        raise AssertionError((first, process.communicate(timeout=30)))
    return process, match.group(1), first


def stop_serving(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err[-2000:]
    return out


def test_pamir_serve_runs_the_service_and_one_scheduler_until_terminated(home: Path) -> None:
    first, base, line = start_serving(home)
    try:
        assert fetch(f"{base}/healthz").json()["status"] == "ok"
        page = fetch(f"{base}/games/{GAME}")
        assert page.status == 200 and f"<h1>Game {GAME}</h1>" in page.text
        assert f"PAMIR_HOME={home}" in line
        if importlib.util.find_spec("adjudicator.schedule.scheduler") is not None:
            assert "(with the scheduler;" in line
            second, other, note = start_serving(home)  # the same PAMIR_HOME
            try:
                assert "without a scheduler" in note  # one scheduler per PAMIR_HOME
                assert fetch(f"{other}/healthz").status == 200
            finally:
                stop_serving(second)
    finally:
        out = stop_serving(first)
    assert "pamir: stopped" in out
