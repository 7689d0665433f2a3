"""The embedded outbox's files: PAMIR_HOME/outbox/STATE/NAME.eml, a message per file
(written to a temporary file and renamed into place, so a file there is always whole);
beside a pending one that failed, its retry record `NAME.eml.retry.json`; beside a failed
one, why (`NAME.eml.failed.json`); outbox/keys/, the index of the keys queued; and when the
server accepted each report (`mail/accepted/GAME.json` in the store).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from contextlib import suppress
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from adjudicator.home import store
from adjudicator.home.files import fsync_path
from adjudicator.home.settings import Settings
from adjudicator.mail.outbox.common import (
    PENDING,
    QUEUED_TIME,
    SENT,
    WRITTEN,
    header_block,
)
from adjudicator.mail.records import ACCEPTED, FAILURE, RETRY

RETRY_SUFFIX = ".retry.json"


FAILURE_SUFFIX = ".failed.json"


ACCEPTED_KEPT = 200  # per game: the reports whose acceptance time is remembered


def state_folder(settings: Settings, folder: str) -> Path:
    path = settings.outbox_dir / folder
    path.mkdir(parents=True, exist_ok=True)
    return path


def messages_in(settings: Settings, folder: str) -> list[Path]:
    """The .eml files of an outbox folder, oldest first (names start with the time)."""
    path = settings.outbox_dir / folder
    if not path.is_dir():
        return []
    return sorted(p for p in path.glob("*.eml") if not p.name.startswith("."))


def queued_at(path: Path) -> datetime:
    """When a message file was queued, from its name (else the file's own time)."""
    try:
        return datetime.strptime(path.name.split("-", 1)[0], QUEUED_TIME).replace(tzinfo=UTC)
    except ValueError:  # a file put there by hand
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def retry_file(path: Path) -> Path:
    return path.with_name(path.name + RETRY_SUFFIX)


def queued_by_listing(settings: Settings, key: str) -> Path | None:
    for folder in (PENDING, SENT, WRITTEN):
        path = settings.outbox_dir / folder
        if path.is_dir():
            for found in path.glob(f"*-{key}.eml"):
                return found
    return None


# outbox/keys/: for each message queued with a key, a symbolic link named by the key whose
# target is the name of the message's file (`STAMP-KEY.eml`, in whichever folder it is
# now). Finding a key was a listing of outbox/sent, which keeps every message ever sent:
# at 30,000 messages 22 ms a look, several looks a message. A link is written before its
# message, so a crash between them leaves a link to no file, which counts as not queued.
KEYS = "keys"


_PLAIN_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def key_name(key: str) -> str:
    """The link's name: the key itself, which is part of its message's file name too."""
    if not _PLAIN_KEY.fullmatch(key):
        raise ValueError(f"not a message key: {key!r}")
    return key


def key_of(file_name: str) -> str:
    """The key in the name of a keyed message's file (`STAMP-KEY.eml`; the stamp has no
    `-`). An unkeyed message's name gives a key nothing asks for."""
    return file_name.removesuffix(".eml").partition("-")[2]


def link_key(folder: Path, key: str, file_name: str) -> None:
    """Point the key's link at `file_name`, replacing any older one, durably."""
    temp = folder / f".{secrets.token_hex(6)}.tmp"
    os.symlink(file_name, temp)
    os.replace(temp, folder / key_name(key))
    fsync_path(folder)


def key_index(settings: Settings) -> Path:
    """outbox/keys/, made from the messages already in the outbox the first time (under the
    queue lock): built aside and renamed into place, so it is whole or absent."""
    keys = settings.outbox_dir / KEYS
    if keys.is_dir():
        return keys
    building = settings.outbox_dir / f".{KEYS}.{secrets.token_hex(6)}.tmp"
    building.mkdir(parents=True)
    try:
        for folder in (PENDING, SENT, WRITTEN):
            for path in sorted((settings.outbox_dir / folder).glob("*.eml")):
                key = key_of(path.name)
                if not _PLAIN_KEY.fullmatch(key):
                    continue  # no file of this outbox's making
                with suppress(FileExistsError):  # the older file kept, as the listing did
                    os.symlink(path.name, building / key)
        fsync_path(building)
        os.rename(building, keys)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    fsync_path(settings.outbox_dir)
    return keys


def retry_info(path: Path) -> dict[str, Any]:
    """A pending message's retry record: attempts, next_attempt (ISO time), last_error."""
    meta = retry_file(path)
    if not meta.exists():
        return {}
    data: dict[str, Any] = RETRY.plain(RETRY.parse(str(meta), meta.read_bytes()))
    return data


def failure_info(path: Path) -> dict[str, Any]:
    """A failed message's record: reason, recipients, failed_at, game, player."""
    meta = path.with_name(path.name + FAILURE_SUFFIX)
    if not meta.exists():
        return {}
    data: dict[str, Any] = FAILURE.plain(FAILURE.parse(str(meta), meta.read_bytes()))
    return data


def accepted_record(game_id: str) -> str:
    return f"mail/accepted/{game_id}.json"


def accepted_times(settings: Settings, game_id: str) -> dict[str, str]:
    return ACCEPTED.read(store.of(settings), accepted_record(game_id)) or {}


def record_accepted(
    path: Path,
    now: datetime,
    accepted: dict[str, dict[str, str]],
    headers: EmailMessage | None = None,
) -> None:
    """Note in `accepted` ({game: {key: time}}) when the server took a report, for
    `save_accepted` to remember at the end of the delivery run (`headers`: the message's,
    when the caller parsed them already)."""
    key = path.name.split("-", 1)[1].removesuffix(".eml")
    if "-report-" not in key:
        return
    if headers is None:
        headers = header_block(path.read_bytes())
    game = str(headers.get("X-Pamir-Game", ""))
    if game:
        accepted.setdefault(game, {})[key] = now.isoformat()


def save_accepted(settings: Settings, accepted: dict[str, dict[str, str]]) -> None:
    """Remember when the server took each report: a player's clock counts from then when
    the mail was late (docs/scheduler.md). Kept apart from sent/, which may be emptied.

    One write per game and delivery run (it was one per message, each with an fsync, a
    fifth of a move's wait): a crash in the run loses its times as a crash between
    sending a message and writing its time did, and the clock then counts from the move."""
    for game, times in accepted.items():
        kept = {**accepted_times(settings, game), **times}
        kept = dict(list(kept.items())[-ACCEPTED_KEPT:])
        ACCEPTED.write(store.of(settings), accepted_record(game), kept)


def move_to(settings: Settings, path: Path, folder: str) -> Path:
    target = state_folder(settings, folder) / path.name
    os.replace(path, target)
    with suppress(FileNotFoundError):
        retry_file(path).unlink()
    return target
