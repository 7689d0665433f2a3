"""The service's own data folder, PAMIR_HOME (docs/game-repository.md).

PAMIR_HOME holds `games/` (game repositories, by default) and the service's private data:
`secrets/` (each game's secret seed), `private/` (each player's private report sections),
`cache/positions/` (the full position after recent commits).
None of it is ever committed to a game repository. Default: the current folder.

The environment is read in one place only, `home_from` (used by `load_settings` and by
the command line's commands on game repositories); everything else is given the folder
(`Settings.home`) by its caller, so that two services with different homes in one
process never mix their data.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

HOME_VARIABLE = "PAMIR_HOME"


def home_from(environ: Mapping[str, str]) -> Path:
    """The data folder the environment names (PAMIR_HOME), else the current folder."""
    return Path(environ.get(HOME_VARIABLE) or ".").resolve()


def secrets_dir(home: Path) -> Path:
    return home / "secrets"


def private_dir(home: Path, game_id: str) -> Path:
    return home / "private" / game_id


def private_folder(game_id: str) -> str:
    """The name of a game's private sections among the service's records
    (adjudicator/home/store.py): `private_dir` in the embedded mode."""
    return f"private/{game_id}"


def positions_dir(home: Path, game_id: str) -> Path:
    """The position cache of a game (adjudicator/games/positions.py): secret, like
    `secrets/`, since a position holds the deck order."""
    return home / "cache" / "positions" / game_id


def games_dir(home: Path) -> Path:
    return home / "games"
