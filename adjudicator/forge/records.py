"""The service's record of each forge-hosted game (PAMIR_HOME/forge/<id>.json, or its row
in PostgreSQL mode): the last commit the service adjudicated and the forge had, which a
history rewritten on the forge no longer holds, and the forge tip the players were last
told the game is held at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adjudicator.games.repo import GameRepo
from adjudicator.home import store

RECORDS = "forge"  # PAMIR_HOME/forge/<id>.json: the last commit adjudicated per game


def record_name(repo: GameRepo) -> str:
    return f"{RECORDS}/{repo.path.name}.json"


def _read_record(home: Path, repo: GameRepo) -> dict[str, Any]:
    data: dict[str, Any] = store.read_json(store.store_for(home), record_name(repo)) or {}
    return data


def recorded(home: Path, repo: GameRepo) -> str | None:
    """The last commit the service adjudicated and the forge had, or None."""
    value = _read_record(home, repo).get("adjudicated")
    return str(value) if value else None


def record(home: Path, repo: GameRepo, commit: str) -> None:
    store.write_json(store.store_for(home), record_name(repo), {"adjudicated": commit})


def hold_is_news(home: Path, repo: GameRepo, upstream: str) -> bool:
    """Whether the players have not been told yet that the game is held at this forge tip
    (polls come every few minutes: one notice per rewrite is enough)."""
    data = _read_record(home, repo)
    if data.get("held") == upstream:
        return False
    data["held"] = upstream
    store.write_json(store.store_for(home), record_name(repo), data)
    return True
