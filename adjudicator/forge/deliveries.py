"""The forges' webhook deliveries already handled, and the answer given to each, so that
a delivery made again (forges deliver at least once) is answered as the first time.

The embedded mode keeps the most recent DELIVERIES_KEPT ids in one file,
PAMIR_HOME/webhooks/deliveries.txt, with their answers beside it; PostgreSQL mode keeps a
row of `pamir_webhook_deliveries` per id, which every node sees, and the retention
(adjudicator/schedule/retention.py) removes the rows older than `retention_days`. The
backend picks one once (adjudicator/home/backend.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from adjudicator.home import backend, database
from adjudicator.home.files import read_json, write_atomically
from adjudicator.home.settings import Settings

DELIVERIES_KEPT = 2_000


class DeliveryLog:
    """Delivery ids already handled, the most recent `limit` of them, in one file, and
    what the service answered to each (`outcomes/`, one file per id, written before the
    id is listed), so that a redelivery gets the same answer.

    The file is locked while read or written, so threads and worker processes share it.
    """

    def __init__(self, path: Path, limit: int = DELIVERIES_KEPT) -> None:
        self.path = path
        self.limit = limit

    @contextmanager
    def _locked(self) -> Iterator[IO[str]]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a+", encoding="ascii") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                handle.seek(0)
                yield handle
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def seen(self, key: str) -> bool:
        with self._locked() as handle:
            return key in handle.read().split()

    def _outcome_path(self, key: str) -> Path:
        name = hashlib.sha256(key.encode("utf-8")).hexdigest()[:40]
        return self.path.parent / "outcomes" / f"{name}.json"

    def outcome(self, key: str) -> dict[str, Any] | None:
        """The answer recorded for a delivery handled before (None: none recorded)."""
        found: dict[str, Any] | None = read_json(self._outcome_path(key))
        return found

    def remember(self, key: str, outcome: dict[str, Any] | None = None) -> None:
        with self._locked() as handle:
            keys = handle.read().split()
            if key in keys:
                return
            if outcome is not None:
                data = json.dumps(outcome, indent=2) + "\n"
                write_atomically(self._outcome_path(key), data.encode())
            kept = [*keys, key][-self.limit :]
            handle.seek(0)
            handle.truncate()
            handle.write("".join(f"{k}\n" for k in kept))
        for dropped in keys[: len(keys) + 1 - len(kept)]:
            self._outcome_path(dropped).unlink(missing_ok=True)

    def prune(self, before: datetime) -> int:
        """Nothing: the file keeps the last `limit` ids, however old, and no more."""
        return 0


# By the index pamir_webhook_deliveries_received.
PRUNE_QUERY = "DELETE FROM pamir_webhook_deliveries WHERE received_at < %(before)s"


class DatabaseDeliveryLog:
    """The deliveries handled, in PostgreSQL mode: one row per delivery id (its primary
    key), with the answer given, so that a redelivery to any node gets the same answer."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def seen(self, key: str) -> bool:
        return self._row(key) is not None

    def outcome(self, key: str) -> dict[str, Any] | None:
        row = self._row(key)
        return dict(row[0]) if row is not None and isinstance(row[0], dict) else None

    def _row(self, key: str) -> tuple[Any, ...] | None:
        with database.connection(self.settings) as connection:
            return connection.execute(
                "SELECT outcome FROM pamir_webhook_deliveries WHERE delivery = %s", (key,)
            ).fetchone()

    def remember(self, key: str, outcome: dict[str, Any] | None = None) -> None:
        from psycopg.types.json import Jsonb  # PostgreSQL mode only: see home/database.py

        with database.connection(self.settings) as connection:
            connection.execute(
                "INSERT INTO pamir_webhook_deliveries (delivery, outcome) VALUES (%s, %s)"
                " ON CONFLICT (delivery) DO NOTHING",
                (key, Jsonb(outcome) if outcome is not None else None),
            )

    def prune(self, before: datetime) -> int:
        """Forget the deliveries received before `before` (long after any forge would
        deliver them again); return how many."""
        with database.connection(self.settings) as connection:
            gone = connection.execute(PRUNE_QUERY, {"before": before})
            return max(gone.rowcount, 0)


DELIVERIES: backend.Kind[DeliveryLog | DatabaseDeliveryLog] = backend.Kind("forge.deliveries")


def _file_log(settings: Settings) -> DeliveryLog | DatabaseDeliveryLog:
    return DeliveryLog(settings.home / "webhooks" / "deliveries.txt")


def deliveries(settings: Settings) -> DeliveryLog | DatabaseDeliveryLog:
    """The log of the deliveries answered: a file, or in PostgreSQL mode a table."""
    return backend.of(settings).service(DELIVERIES, _file_log, DatabaseDeliveryLog)
