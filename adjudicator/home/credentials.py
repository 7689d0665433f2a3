"""Which generation of a player's credentials is current: the reply address and the
private page link that `adjudicator.mail.tokens` derives from the service's key.

Both tokens are HMACs over the game, the player and this generation, so nothing secret
is kept: the record `credentials/GAME.json` of the service's store (adjudicator/home/
store.py, a file or a database row) holds only numbers, `{"bob": 2}`. A player without an
entry is at generation 0, whose tokens are exactly those of the versions before
generations existed: the links already mailed keep working until their first change.

`revoke` moves a player to the next generation, which replaces both at once: when the
host changes the player's address, when the player resigns, and on `pamir revoke`. The
caller holds the game's lock (the record is read, changed and written whole). The
record is not in the game repository: the number is harmless, but whoever reads the
repository has no need of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field

from adjudicator.home.records import RecordKind
from adjudicator.home.store import Store, store_for

FOLDER = "credentials"
# {player: generation}. A bad record is an error, never read as none: none would put
# every player back at generation 0, and the links and addresses replaced would work again.
GENERATIONS: RecordKind[dict[str, int]] = RecordKind(
    "a record of credential generations", dict[str, Annotated[int, Field(ge=0)]]
)


def record_name(game_id: str) -> str:
    return f"{FOLDER}/{game_id}.json"


def _generations(records: Store, game_id: str) -> dict[str, int]:
    return GENERATIONS.read(records, record_name(game_id)) or {}


def generation(records: Store, game_id: str, player: str) -> int:
    """The current generation of `player`'s credentials in `game_id` (0: never replaced)."""
    return _generations(records, game_id).get(player.lower(), 0)


def revoke(records: Store, game_id: str, player: str) -> int:
    """Replace `player`'s reply address and page link: move them to the next generation,
    which is returned. Every token of the earlier ones is refused from now on."""
    generations = _generations(records, game_id)
    fresh = generations.get(player.lower(), 0) + 1
    GENERATIONS.write(records, record_name(game_id), generations | {player.lower(): fresh})
    return fresh


def revoke_in(home: Path, game_id: str, player: str) -> int:
    """`revoke` in the store of the service whose data folder is `home`."""
    return revoke(store_for(home), game_id, player)
