"""Fixtures shared by the test modules.

Random walks through games and position editing (the helpers live in `walks.py`, so that
test modules need not import each other), and an isolated PAMIR_HOME with its settings.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitgame import isolate
from walks import MarketPut, Start, Walk, first_turn, put_in_market, walk_game

from adjudicator.home.settings import Settings, load_settings


@pytest.fixture(scope="session")
def walk() -> Walk:
    return walk_game


@pytest.fixture(scope="session")
def start() -> Start:
    return first_turn


@pytest.fixture(scope="session")
def market_put() -> MarketPut:
    return put_in_market


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh PAMIR_HOME, and a Git environment free of outside configuration.

    Modules whose every test needs it say `pytestmark = pytest.mark.usefixtures("home")`.
    """
    return isolate(tmp_path, monkeypatch)


@pytest.fixture
def settings(home: Path) -> Settings:
    """The settings of the isolated PAMIR_HOME."""
    return load_settings({"home": home})
