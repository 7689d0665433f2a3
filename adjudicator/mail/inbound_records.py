"""What became of each inbound message, by game and key (adjudicator/mail/ledger.py).

A record is {"status": "pending" | "accepted" | "refused", ...}: written as pending before
the message's move is submitted, and as what became of it after, so that a message
delivered again (the mail server retries after a crash, or a copy arrives) is answered as
the first time and never played twice. The embedded mode keeps each as a file,
PAMIR_HOME/mail/inbound/GAME/KEY; PostgreSQL mode as a row of `pamir_inbound_messages`
(the game and key its primary key), which every node sees. The backend picks one once
(adjudicator/home/backend.py).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from adjudicator.home import backend, database
from adjudicator.home.files import write_atomically
from adjudicator.home.settings import Settings
from adjudicator.home.store import StoreError
from adjudicator.mail.records import INBOUND

Record = dict[str, Any]


class InboundRecords(Protocol):
    def read(self, game_id: str, key: str) -> Record | None:
        """The message's record; {} for one handled before records were kept; None when
        the message is new."""
        ...

    def write(self, game_id: str, key: str, record: Record) -> None: ...

    def prune(self, before: datetime) -> int:
        """Forget the messages handled (accepted or refused, not pending) whose record was
        last written before `before`; return how many."""
        ...


class FileInboundRecords:
    """Records as files: PAMIR_HOME/mail/inbound/GAME/KEY."""

    def __init__(self, settings: Settings) -> None:
        self.folder = settings.home / "mail" / "inbound"

    def path(self, game_id: str, key: str) -> Path:
        return self.folder / game_id / key

    def read(self, game_id: str, key: str) -> Record | None:
        path = self.path(game_id, key)
        if not path.exists():
            return None
        data = path.read_bytes()
        if not data.strip():  # written before records held anything: handled, no more
            return {}
        record: Record = INBOUND.plain(INBOUND.parse(str(path), data))
        return record

    def write(self, game_id: str, key: str, record: Record) -> None:
        path = self.path(game_id, key)
        write_atomically(path, INBOUND.dump(INBOUND.check(str(path), record)))

    def prune(self, before: datetime) -> int:
        count = 0
        for path in sorted(self.folder.glob("*/*")) if self.folder.is_dir() else []:
            if not path.name.startswith(".") and _is_done(path, before.timestamp()):
                path.unlink(missing_ok=True)
                count += 1
        return count


def _is_done(path: Path, before: float) -> bool:
    """Whether the record `path` was last written before `before` and is not pending (one
    that cannot be read is kept, for the host to look at, as its message's answer is)."""
    try:
        if path.stat().st_mtime >= before:
            return False
        data = path.read_bytes()
        return not data.strip() or INBOUND.parse(str(path), data).status != "pending"
    except (OSError, StoreError):
        return False


PRUNE_QUERY = (  # by the index pamir_inbound_messages_updated
    "DELETE FROM pamir_inbound_messages WHERE updated_at < %(before)s"
    " AND record->>'status' IS DISTINCT FROM 'pending'"
)


class TableInboundRecords:
    """Records as rows of `pamir_inbound_messages` (PostgreSQL mode)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def read(self, game_id: str, key: str) -> Record | None:
        with database.connection(self.settings) as connection:
            row = connection.execute(
                "SELECT record FROM pamir_inbound_messages WHERE game_id = %s AND message_key = %s",
                (game_id, key),
            ).fetchone()
        if row is None or not isinstance(row[0], dict):
            return None
        found: Record = INBOUND.plain(INBOUND.check(f"{game_id}/{key}", row[0]))
        return found

    def write(self, game_id: str, key: str, record: Record) -> None:
        from psycopg.types.json import Jsonb  # PostgreSQL mode only: see home/database.py

        with database.connection(self.settings) as connection:
            connection.execute(
                "INSERT INTO pamir_inbound_messages (game_id, message_key, record)"
                " VALUES (%s, %s, %s) ON CONFLICT (game_id, message_key)"
                " DO UPDATE SET record = excluded.record, updated_at = now()",
                (game_id, key, Jsonb(INBOUND.plain(INBOUND.check(f"{game_id}/{key}", record)))),
            )

    def prune(self, before: datetime) -> int:
        with database.connection(self.settings) as connection:
            gone = connection.execute(PRUNE_QUERY, {"before": before})
            return max(gone.rowcount, 0)


INBOUND_RECORDS: backend.Kind[InboundRecords] = backend.Kind("mail.inbound_records")


def of(settings: Settings) -> InboundRecords:
    """The inbound records of these settings' mode."""
    return backend.of(settings).service(INBOUND_RECORDS, FileInboundRecords, TableInboundRecords)
