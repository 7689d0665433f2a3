"""The outbox as the files of PAMIR_HOME/outbox/ (the embedded mode): queuing, under
the queue lock, with the index of keys written before each message (a crash between
them leaves a key with no message, which counts as not queued); `FileOutbox` is this
mode's `Outbox`.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from adjudicator.home import locks
from adjudicator.home.faults import fault
from adjudicator.home.files import fsync_path, write_atomically
from adjudicator.home.settings import Settings
from adjudicator.home.threads import KeptPool
from adjudicator.mail.outbox import file_sending
from adjudicator.mail.outbox.common import (
    EXPIRED,
    FAILED,
    PENDING,
    QUEUED_TIME,
    SENT,
    WRITTEN,
    Backlog,
    DeliveryReport,
    Pruned,
    Undeliverable,
    Waiting,
    message_bytes,
)
from adjudicator.mail.outbox.folders import (
    KEYS,
    accepted_times,
    failure_info,
    key_index,
    key_name,
    link_key,
    messages_in,
    queued_at,
    queued_by_listing,
    retry_info,
    state_folder,
)


def backlog(settings: Settings) -> Backlog:
    """The outbox's backlog, for /metrics: the folders pending/ and failed/ listed (the
    table queried in PostgreSQL mode); sent/ and written/, which only grow, are not read."""
    pending = messages_in(settings, PENDING)
    failed = len(messages_in(settings, FAILED))
    return Backlog(len(pending), failed, queued_at(pending[0]) if pending else None)


def queued(settings: Settings, key: str) -> Path | None:
    """The outbox file of the message with this key (pending, sent or written), if any."""
    keys = settings.outbox_dir / KEYS
    if not keys.is_dir():  # an outbox from before the index: `queue` makes it
        key_name(key)
        return queued_by_listing(settings, key)
    try:
        name = os.readlink(keys / key_name(key))
    except FileNotFoundError:
        return None
    for folder in (PENDING, SENT, WRITTEN):
        path = settings.outbox_dir / folder / name
        if path.is_file():
            return path
    return None  # failed or expired: a message with this key may be queued again


@contextmanager
def _queue_lock(settings: Settings) -> Iterator[None]:
    """Looking for a key and writing its file are one step, across processes and nodes."""
    path = state_folder(settings, PENDING).parent / ".queue.lock"
    with locks.exclusive(settings, "outbox:queue", path):
        yield


def queue(settings: Settings, message: EmailMessage, key: str | None = None) -> Path:
    """Write a message to outbox/pending (atomically); return its path. With a `key`, a
    message already queued (or sent, or written) under it is kept and its path returned."""
    stamp = datetime.now(UTC).strftime(QUEUED_TIME)
    game = str(message.get("X-Pamir-Game", "pamir"))
    player = str(message.get("X-Pamir-Player", "someone"))
    number = int(str(message.get("X-Pamir-Move", "0")))
    data = message.as_bytes()  # before the lock: the service's other games queue meanwhile
    if key is not None:
        key_name(key)  # a key that could not be a file name is refused before anything
    if key is None:
        name = f"{stamp}-{game}-{number:04d}-{player}-{secrets.token_hex(4)}.eml"
        path = state_folder(settings, PENDING) / name
        write_atomically(path, data)
        return path
    with _queue_lock(settings):
        keys = key_index(settings)
        found = queued(settings, key)
        if found is not None:
            return found
        path = state_folder(settings, PENDING) / f"{stamp}-{key}.eml"
        link_key(keys, key, path.name)
        fault("key-linked")
        write_atomically(path, data)
        return path


def queue_many(
    settings: Settings, messages: Sequence[tuple[EmailMessage | bytes, str]]
) -> list[Path]:
    """Queue several messages, each with its key, as `queue` would one after the other (a
    key already in the outbox, or earlier in `messages`, keeps its first message); return
    their paths in order. The queue lock is taken once and the waits for the disk are
    shared, with `queue`'s guarantees: every new key's link is flushed before any of the
    messages is renamed into place (a crash in between leaves links to no file, which
    count as not queued: the next run queues them), each message is flushed before its
    rename, and their folder after; none is told queued before all are."""
    made = [(key_name(key), message_bytes(message)) for message, key in messages]
    with _queue_lock(settings):
        keys = key_index(settings)
        stamp = datetime.now(UTC)
        paths: dict[str, Path] = {}
        new: list[tuple[str, Path, bytes]] = []
        for key, data in made:
            found = paths.get(key) or queued(settings, key)
            if found is None:  # names a microsecond apart keep the order given
                at = stamp + timedelta(microseconds=len(new))
                found = state_folder(settings, PENDING) / f"{at.strftime(QUEUED_TIME)}-{key}.eml"
                new.append((key, found, data))
            paths[key] = found
        if new:
            _write_linked(keys, new)
    return [paths[key] for key, _ in made]


# fsync waits with the GIL released: a few files flushed at once.
FLUSHING = KeptPool("flush", workers=4)


def _write_linked(keys: Path, new: list[tuple[str, Path, bytes]]) -> None:
    """Write each (key, path, data): the messages to temporary files and the keys' links,
    all flushed at once (the links' folder and the files, from a few threads); then the
    messages renamed into place, and their folder flushed."""
    temps = [path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp") for _, path, _ in new]
    try:
        for temp, (_, _, data) in zip(temps, new, strict=True):
            temp.write_bytes(data)
        for key, path, _ in new:
            link = keys / f".{secrets.token_hex(6)}.tmp"
            os.symlink(path.name, link)
            os.replace(link, keys / key)
        FLUSHING.run_all(fsync_path, *[(path,) for path in [keys, *temps]])
        fault("key-linked")
        for temp, (_, path, _) in zip(temps, new, strict=True):
            os.replace(temp, path)
    finally:
        for temp in temps:
            with suppress(FileNotFoundError):
                temp.unlink()
    for folder in {path.parent for _, path, _ in new}:
        fsync_path(folder)


def undeliverable(settings: Settings, game_id: str) -> list[Undeliverable]:
    """The game's messages in outbox/failed/, oldest first."""
    found: list[Undeliverable] = []
    for path in messages_in(settings, FAILED):
        info = failure_info(path)
        if info.get("game") != game_id:
            continue
        recipients = tuple(str(r) for r in info.get("recipients", []))
        found.append(
            Undeliverable(
                str(info.get("player", "")),
                recipients,
                str(info.get("reason", "")),
                str(info.get("failed_at", "")),
            )
        )
    return found


def accepted_at(settings: Settings, game_id: str, prefix: str) -> datetime | None:
    """When the server last accepted a message of the game whose key starts with
    `prefix`, or None if it never did (as far as the record goes)."""
    times = [t for key, t in accepted_times(settings, game_id).items() if key.startswith(prefix)]
    return max((datetime.fromisoformat(t) for t in times), default=None)


def is_pending(settings: Settings, prefix: str) -> bool:
    """Whether a message whose key starts with `prefix` waits in outbox/pending/."""
    folder = settings.outbox_dir / PENDING
    return folder.is_dir() and any(folder.glob(f"*-{prefix}*.eml"))


def prune(settings: Settings, before: datetime) -> Pruned:
    """Empty the files of outbox/sent/ and written/ last moved before `before`, keeping
    each (empty) under its name, so that `queued` still finds its key; remove those of
    expired/, whose keys may be queued again anyway. outbox/failed/ is kept whole: the
    host is shown its messages until they go."""
    count = freed = 0
    limit = before.timestamp()
    for state in (SENT, WRITTEN, EXPIRED):
        for path in messages_in(settings, state):
            try:
                found = path.stat()
            except FileNotFoundError:
                continue
            # A rename into the folder changes the ctime, not the mtime (the queuing's).
            if found.st_size == 0 or max(found.st_mtime, found.st_ctime) >= limit:
                continue
            if state == EXPIRED:
                path.unlink(missing_ok=True)
            else:
                write_atomically(path, b"")
            count, freed = count + 1, freed + found.st_size
    return Pruned(count, freed)


class FileOutbox:
    """The outbox as the files of PAMIR_HOME/outbox/ (the embedded mode)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def where(self, path: Path) -> str:
        return str(path)

    def listing(self) -> str:
        return str(self.settings.outbox_dir)

    def counts(self) -> dict[str, int]:
        states = (PENDING, SENT, WRITTEN, FAILED, EXPIRED)
        return {state: len(messages_in(self.settings, state)) for state in states}

    def retries(self) -> list[Waiting]:
        found = []
        for path in messages_in(self.settings, PENDING):
            info = retry_info(path)
            if info:
                when = datetime.fromisoformat(info["next_attempt"])
                found.append(Waiting(path.name, info["attempts"], when, info["last_error"]))
        return found

    def failures(self) -> list[tuple[str, dict[str, Any]]]:
        return [(p.name, failure_info(p)) for p in messages_in(self.settings, FAILED)]

    def messages_in(self, state: str) -> list[Path]:
        return messages_in(self.settings, state)

    def backlog(self) -> Backlog:
        return backlog(self.settings)

    def queued(self, key: str) -> Path | None:
        return queued(self.settings, key)

    def queue(self, message: EmailMessage, key: str | None = None) -> Path:
        return queue(self.settings, message, key)

    def queue_many(self, messages: Sequence[tuple[EmailMessage | bytes, str]]) -> list[Path]:
        return queue_many(self.settings, messages)

    def undeliverable(self, game_id: str) -> list[Undeliverable]:
        return undeliverable(self.settings, game_id)

    def accepted_at(self, game_id: str, prefix: str) -> datetime | None:
        return accepted_at(self.settings, game_id, prefix)

    def is_pending(self, prefix: str) -> bool:
        return is_pending(self.settings, prefix)

    def deliver(self, now: datetime, force: bool) -> DeliveryReport:
        return file_sending.deliver(self.settings, self, now, force)

    def prune(self, before: datetime) -> Pruned:
        return prune(self.settings, before)
