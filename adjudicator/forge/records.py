"""The service's record of a forge-hosted game, `forge/GAME.json`, and its kind.

Read and written by adjudicator/forge/remote.py: the last commit the service adjudicated
and the forge had (`adjudicated`), and the forge tip at which the players were last told
the game is held (`held`). Either may be missing: a record is first written by one of the
two. docs/web.md#a-rewritten-history says what they are for.
"""

from __future__ import annotations

from pydantic import BaseModel

from adjudicator.home.records import RECORD_CONFIG, RecordKind


class ForgeRecord(BaseModel):
    model_config = RECORD_CONFIG

    adjudicated: str | None = None
    held: str | None = None


FORGE_RECORD: RecordKind[ForgeRecord] = RecordKind("a forge record", ForgeRecord)
