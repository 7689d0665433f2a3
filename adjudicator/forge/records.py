"""The service's record of each forge-hosted game, `forge/GAME.json` in the store (a file
of PAMIR_HOME, or its row in PostgreSQL mode), and its kind: the last commit the service
adjudicated and the forge had (`adjudicated`), which a history rewritten on the forge no
longer holds, and the forge tip at which the players were last told the game is held
(`held`). Either may be missing: a record is first written by one of the two.
docs/web.md#a-rewritten-history says what they are for.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from adjudicator.games.repo import GameRepo
from adjudicator.home import store
from adjudicator.home.records import RECORD_CONFIG, RecordKind

RECORDS = "forge"  # PAMIR_HOME/forge/<id>.json: the last commit adjudicated per game


class ForgeRecord(BaseModel):
    model_config = RECORD_CONFIG

    adjudicated: str | None = None
    held: str | None = None


FORGE_RECORD: RecordKind[ForgeRecord] = RecordKind("a forge record", ForgeRecord)


def record_name(repo: GameRepo) -> str:
    return f"{RECORDS}/{repo.path.name}.json"


def _read_record(home: Path, repo: GameRepo) -> ForgeRecord:
    return FORGE_RECORD.read(store.store_for(home), record_name(repo)) or ForgeRecord()


def recorded(home: Path, repo: GameRepo) -> str | None:
    """The last commit the service adjudicated and the forge had, or None."""
    return _read_record(home, repo).adjudicated or None


def record(home: Path, repo: GameRepo, commit: str) -> None:
    FORGE_RECORD.write(store.store_for(home), record_name(repo), ForgeRecord(adjudicated=commit))


def hold_is_news(home: Path, repo: GameRepo, upstream: str) -> bool:
    """Whether the players have not been told yet that the game is held at this forge tip
    (polls come every few minutes: one notice per rewrite is enough)."""
    found = _read_record(home, repo)
    if found.held == upstream:
        return False
    held = found.model_copy(update={"held": upstream})
    held.model_fields_set.add("held")  # written, as before, beside what the record held
    FORGE_RECORD.write(store.store_for(home), record_name(repo), held)
    return True
