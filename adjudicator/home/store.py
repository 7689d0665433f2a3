"""The service's shared state: small records named by their path under PAMIR_HOME.

Everything the service keeps for itself that every node must see (the games' secrets,
its signing key, the players' private report sections, the mail ledgers, threads,
preferences, press, digests, the forge records, the scheduler's reminders, the marks of
games that need their host, the generations of the players' credentials) is a record
with a name: a relative path such as `secrets/kabul.secret` or `mail/ledger/kabul.json`.
A store reads and writes them:

- with no database configured, a `FileStore`: the file of that name under PAMIR_HOME,
  written whole by `write_atomically` (the embedded mode's layout, unchanged);
- in PostgreSQL mode (docs/cluster.md), a `DatabaseStore`: a row of `pamir_store`, so
  that each node keeps a PAMIR_HOME of its own (its clones and caches only). The records
  whose names `is_sealed` (secrets, keys, private sections, press between players) are
  encrypted with AES-GCM under `PAMIR_SECRET_KEY`, their name bound in as associated
  data (a row copied under another name does not open).

A store does no locking of its own: every read-modify-write of a record already runs
under one of the service's locks (adjudicator/home/locks.py), advisory in PostgreSQL
mode, and one statement writes a row whole.

Most callers know the service by its data folder only (`home`): `store_for(home)` finds
the store of that folder's settings, `of(settings)` of given settings. The JSON records
are read and written through the kind of each (adjudicator/home/records.py), which names
a bad one.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import threading
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from adjudicator.home.files import write_atomically
from adjudicator.home.secret_key import KEY_VARIABLE, BadSecretKey, new_key, parse_key

if TYPE_CHECKING:
    # The settings (pydantic, and the engine's errors) and the database module are imported
    # where they are used: a command that reads one record (a Git hook, `pamir move`
    # refusing a file) starts without them.
    from adjudicator.home.settings import Settings

# Names sealed in the database: what no operator reading the table may see.
SEALED_FOLDERS = ("secrets/", "keys/", "private/", "mail/press/")
# Names kept readable by their owner only on disk (as `secrets/` always was).
PRIVATE_FILES = ("secrets/", "keys/")
CHECK_NAME = "store/key-check"  # sealed: proves the configured key is the database's
SEAL_VERSION = b"\x01"  # the first byte of a sealed row: how it is sealed
NONCE_BYTES = 12


class StoreError(RuntimeError):
    """A record cannot be read or written: a bad name, a missing or wrong secret key."""


def is_sealed(name: str) -> bool:
    return name.startswith(SEALED_FOLDERS) or name == CHECK_NAME


def check_name(name: str) -> str:
    """`name` if it is a record's name: a relative path of plain parts (no `.` or `..`,
    no empty part, no leading dot: hidden names belong to the files' own machinery)."""
    if RECORD_NAME.fullmatch(name) is None:
        raise StoreError(f"not a record's name: {name!r}")
    return name


# A record's name: parts joined by single slashes, none empty or starting with a dot (so
# neither `.` nor `..`), no backslash, no NUL. One expression rather than the parts of a
# PurePosixPath compared with the name, which cost some 20 us a record, 40 records a move
# (tests/home/test_store.py compares the two on every short name).
RECORD_NAME = re.compile(r"[^/.\\\x00][^/\\\x00]*(?:/[^/.\\\x00][^/\\\x00]*)*")


class Store(Protocol):
    def read(self, name: str) -> bytes | None:
        """The record's bytes, or None when there is none."""
        ...

    def write(self, name: str, data: bytes) -> None:
        """Write the record whole (a reader sees the old bytes or the new)."""
        ...

    def create(self, name: str, data: bytes) -> bytes:
        """Write the record unless it exists; return the bytes it holds now (the first
        writer's, when several create it at once)."""
        ...

    def delete(self, name: str) -> bool:
        """Remove the record; True if there was one."""
        ...

    def names(self, folder: str) -> list[str]:
        """The names of the records directly in `folder`, sorted."""
        ...

    def delete_folder(self, folder: str) -> None:
        """Remove every record under `folder`, however deep."""
        ...


class FileStore:
    """Records as the files of PAMIR_HOME (the embedded mode)."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def path(self, name: str) -> Path:
        return self.home / check_name(name)

    def read(self, name: str) -> bytes | None:
        try:
            return self.path(name).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def write(self, name: str, data: bytes) -> None:
        write_atomically(self.path(name), data, mode=_mode(name))

    def create(self, name: str, data: bytes) -> bytes:
        path = self.path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _mode(name))
            with open(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.link(temp, path)  # atomic, and refused when the name exists
        except FileExistsError:
            return path.read_bytes()
        finally:
            with suppress(FileNotFoundError):
                temp.unlink()
        return data

    def delete(self, name: str) -> bool:
        try:
            self.path(name).unlink()
        except FileNotFoundError:
            return False
        return True

    def names(self, folder: str) -> list[str]:
        path = self.path(folder)
        if not path.is_dir():
            return []
        return sorted(
            f"{folder}/{child.name}"
            for child in path.iterdir()
            if child.is_file() and not child.name.startswith(".")
        )

    def delete_folder(self, folder: str) -> None:
        shutil.rmtree(self.path(folder), ignore_errors=True)


def _mode(name: str) -> int:
    return 0o600 if name.startswith(PRIVATE_FILES) else 0o666


class Sealer:
    """AES-GCM under the service's secret key (32 bytes, given in base64)."""

    def __init__(self, key: str | None) -> None:
        if not key:
            raise StoreError(
                f"{KEY_VARIABLE} is not set: in PostgreSQL mode the secrets kept in the "
                "database are encrypted with it (docs/cluster.md#the-secret-key)"
            )
        try:
            self.raw = parse_key(key)
        except BadSecretKey as error:
            raise StoreError(str(error)) from None

    def seal(self, name: str, data: bytes) -> bytes:
        # cryptography loads only in PostgreSQL mode, with the first sealed record.
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        nonce = os.urandom(NONCE_BYTES)
        sealed = AESGCM(self.raw).encrypt(nonce, data, name.encode("utf-8"))
        return SEAL_VERSION + nonce + sealed

    def open(self, name: str, blob: bytes) -> bytes:
        from cryptography.exceptions import InvalidTag  # as in `seal`: on use
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        if blob[:1] != SEAL_VERSION:
            raise StoreError(f"the record {name} is not sealed in a way this pamir knows")
        nonce, sealed = blob[1 : 1 + NONCE_BYTES], blob[1 + NONCE_BYTES :]
        try:
            return AESGCM(self.raw).decrypt(nonce, sealed, name.encode("utf-8"))
        except InvalidTag:
            raise StoreError(
                f"{KEY_VARIABLE} does not open the record {name}: it is not the key the "
                "database's secrets were sealed with"
            ) from None


# The records under a folder: a range of names under the "C" collation, which the index
# pamir_store_name_c serves in every plan (home/database.py's `prefix_bounds`), and the
# exact prefix test beside it. "C" orders as Python's str does, as FileStore sorts.
_IN_FOLDER = (
    'name COLLATE "C" >= %(low)s AND name COLLATE "C" < %(high)s AND starts_with(name, %(low)s)'
)
NAMES_QUERY = (
    "SELECT name FROM pamir_store WHERE " + _IN_FOLDER + " AND strpos(substr(name, %(after)s),"
    " '/') = 0 ORDER BY name COLLATE \"C\""
)
DELETE_FOLDER_QUERY = "DELETE FROM pamir_store WHERE " + _IN_FOLDER


class DatabaseStore:
    """Records as rows of `pamir_store` (PostgreSQL mode), the sealed ones encrypted."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        key = settings.secret_key.get_secret_value() if settings.secret_key else None
        self._key = key
        self._sealer: Sealer | None = None

    @property
    def sealer(self) -> Sealer:
        if self._sealer is None:
            self._sealer = Sealer(self._key)
        return self._sealer

    def _in(self, name: str, data: bytes) -> tuple[bytes, bool]:
        return (self.sealer.seal(name, data), True) if is_sealed(name) else (data, False)

    def _out(self, name: str, data: bytes, sealed: bool) -> bytes:
        return self.sealer.open(name, data) if sealed else data

    def read(self, name: str) -> bytes | None:
        from adjudicator.home import database  # PostgreSQL mode only (see the top)

        with database.connection(self.settings) as connection:
            row = connection.execute(
                "SELECT data, sealed FROM pamir_store WHERE name = %s", (check_name(name),)
            ).fetchone()
        if row is None:
            return None
        return self._out(name, _bytes(row[0]), bool(row[1]))

    def write(self, name: str, data: bytes) -> None:
        stored, sealed = self._in(check_name(name), data)
        from adjudicator.home import database  # PostgreSQL mode only (see the top)

        with database.connection(self.settings) as connection:
            connection.execute(
                "INSERT INTO pamir_store (name, data, sealed) VALUES (%s, %s, %s)"
                " ON CONFLICT (name) DO UPDATE SET data = excluded.data,"
                " sealed = excluded.sealed, updated_at = now()",
                (name, stored, sealed),
            )

    def create(self, name: str, data: bytes) -> bytes:
        stored, sealed = self._in(check_name(name), data)
        from adjudicator.home import database  # PostgreSQL mode only (see the top)

        with database.connection(self.settings) as connection:
            made = connection.execute(
                "INSERT INTO pamir_store (name, data, sealed) VALUES (%s, %s, %s)"
                " ON CONFLICT (name) DO NOTHING RETURNING name",
                (name, stored, sealed),
            ).fetchone()
        if made is not None:
            return data
        found = self.read(name)
        if found is None:  # created and deleted meanwhile: try once more
            return self.create(name, data)
        return found

    def delete(self, name: str) -> bool:
        from adjudicator.home import database  # PostgreSQL mode only (see the top)

        with database.connection(self.settings) as connection:
            gone = connection.execute(
                "DELETE FROM pamir_store WHERE name = %s RETURNING name", (check_name(name),)
            ).fetchone()
        return gone is not None

    def names(self, folder: str) -> list[str]:
        prefix = check_name(folder) + "/"
        from adjudicator.home import database  # PostgreSQL mode only (see the top)

        low, high = database.prefix_bounds(prefix)
        with database.connection(self.settings) as connection:
            rows = connection.execute(
                NAMES_QUERY, {"low": low, "high": high, "after": len(prefix) + 1}
            ).fetchall()
        return [str(row[0]) for row in rows]

    def delete_folder(self, folder: str) -> None:
        from adjudicator.home import database  # PostgreSQL mode only (see the top)

        low, high = database.prefix_bounds(check_name(folder) + "/")
        with database.connection(self.settings) as connection:
            connection.execute(DELETE_FOLDER_QUERY, {"low": low, "high": high})

    def check_key(self) -> None:
        """Refuse (StoreError) a missing or malformed key, or one that does not open the
        database's sealed records; the first node to start seals a check record with it."""
        made = new_key().encode("ascii")
        self.create(CHECK_NAME, made)  # opens the stored one, or stores this one

    def reseal(self, new: str) -> int:
        """Encrypt every sealed record again under the key `new`, in one transaction;
        return how many. The nodes must then be given the new key."""
        self.check_key()
        from adjudicator.home import database  # PostgreSQL mode only (see the top)

        fresh = Sealer(new)
        count = 0
        with database.connection(self.settings) as connection, connection.transaction():
            connection.execute(
                "SELECT pg_advisory_xact_lock(%s)", (database.advisory_key("store:reseal"),)
            )
            rows = connection.execute(
                "SELECT name, data FROM pamir_store WHERE sealed FOR UPDATE"
            ).fetchall()
            for row in rows:
                name = str(row[0])
                plain = self.sealer.open(name, _bytes(row[1]))
                connection.execute(
                    "UPDATE pamir_store SET data = %s, updated_at = now() WHERE name = %s",
                    (fresh.seal(name, plain), name),
                )
                count += 1
        return count


def _bytes(value: object) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise StoreError(f"not a record's bytes: {type(value).__name__}")


_stores: dict[Path, Store] = {}
_made_for: dict[Path, tuple[str | None, str | None]] = {}
_stores_lock = threading.Lock()


def of(settings: Settings) -> Store:
    """The store of these settings (and, from now on, of their data folder)."""
    key = settings.secret_key.get_secret_value() if settings.secret_key else None
    wanted = (settings.database_url, key)
    with _stores_lock:
        found = _stores.get(settings.home)
        if found is None or _made_for.get(settings.home) != wanted:
            found = FileStore(settings.home)
            if settings.database_url is not None:
                found = DatabaseStore(settings)
            _stores[settings.home] = found
            _made_for[settings.home] = wanted
    return found


def remember(settings: Settings) -> None:
    """Take these settings' store as their data folder's, unless the folder has one already
    (load_settings calls it: a process's first settings for a home name its store)."""
    with _stores_lock:
        if settings.home in _stores:
            return
    of(settings)


def store_for(home: Path) -> Store:
    """The store of the service whose data folder is `home`: the one its settings were
    last given for in this process, else the one its settings name (PAMIR_HOME/pamir.toml
    and the PAMIR_* variables, as every command reads them)."""
    with _stores_lock:
        found = _stores.get(home) or _stores.get(home.resolve())
    if found is not None:
        return found
    # Imported here, as the top says: only a lookup by folder alone reads the settings.
    from adjudicator.home.settings import SettingsError, load_settings, remembered

    first = remembered(home)
    if first is not None:
        return of(first)
    try:
        settings = load_settings({"home": home})
    except SettingsError:
        # Bad settings stop every command that reads them, and the service at start; a
        # command on a game repository alone (embedded) still works from its files.
        if os.environ.get("PAMIR_DATABASE_URL"):
            raise
        return FileStore(home)
    return of(settings)


# The folders of an embedded PAMIR_HOME whose files are records (`import_home`).
RECORD_FOLDERS = (
    "secrets",
    "keys/adjudicator",
    "private",
    "mail/ledger",
    "mail/threads",
    "mail/preferences",
    "mail/accepted",
    "mail/press",
    "mail/digests",
    "forge",
    "scheduler/reminded",
    "needs-host",
    "credentials",
)


def import_home(records: Store, home: Path) -> tuple[list[str], list[str]]:
    """Copy the records of a PAMIR_HOME kept as files into `records` (a database); return
    the names copied and those left alone because the store holds them already."""
    copied: list[str] = []
    kept: list[str] = []
    for folder in RECORD_FOLDERS:
        base = home / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            relative = path.relative_to(home).as_posix()
            if not path.is_file() or any(p.startswith(".") for p in relative.split("/")):
                continue  # temporary files, lock files
            if relative.endswith(".lock") or relative == "keys/adjudicator/id_ed25519.pub":
                continue  # locks are the database's; the public key follows from the key
            if records.read(relative) is not None:
                kept.append(relative)
                continue
            data = path.read_bytes()
            (copied if records.create(relative, data) == data else kept).append(relative)
    return copied, kept


def read_json(store: Store, name: str) -> Any | None:
    """The JSON a record holds, or None when there is none."""
    data = store.read(name)
    return None if data is None else json.loads(data.decode("utf-8"))


def write_json(store: Store, name: str, value: Any) -> None:
    """Write a record as indented JSON with a final newline (the service's files' form)."""
    store.write(name, (json.dumps(value, indent=2) + "\n").encode("utf-8"))
