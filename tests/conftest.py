"""Fixtures shared by the test modules.

Random walks through games and position editing (the helpers live in `walks.py`, so that
test modules need not import each other), and an isolated PAMIR_HOME with its settings.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import isolate
from walks import MarketPut, Start, Walk, first_turn, put_in_market, walk_game

from adjudicator.home.settings import Settings, load_settings
from adjudicator.mail.smtp import forget_kept_sessions


@pytest.fixture(autouse=True)
def no_kept_smtp_sessions() -> Iterator[None]:
    """Each test's SMTP sessions are its own: those kept for the next delivery run
    (adjudicator/mail/smtp.py) are closed when the test ends."""
    yield
    forget_kept_sessions()


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
