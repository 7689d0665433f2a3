"""The service's own data folder, PAMIR_HOME (docs/game-repository.md).

PAMIR_HOME holds `games/` (game repositories, by default) and the service's private data:
`secrets/` (each game's secret seed), `private/` (each player's private report sections).
None of it is ever committed to a game repository. Default: the current folder.
"""

from __future__ import annotations

import os
from pathlib import Path


def home() -> Path:
    return Path(os.environ.get("PAMIR_HOME") or ".").resolve()


def secrets_dir() -> Path:
    return home() / "secrets"


def private_dir(game_id: str) -> Path:
    return home() / "private" / game_id


def games_dir() -> Path:
    return home() / "games"
