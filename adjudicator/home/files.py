"""Writing the service's own files so that a crash never leaves half of one."""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any


def write_atomically(path: Path, data: bytes, *, mode: int = 0o666, durable: bool = True) -> None:
    """Write a temporary file beside `path`, flush it to disk, rename it into place: a
    reader (or a crash) sees the old file or the new one, never half of one. `mode` as
    os.open's (the umask applies): 0o600 for a file its owner alone may read.

    `durable=False` leaves out the flush to disk, for a cache only: a reader still never
    sees half a file, but after a crash of the machine the file may be empty or missing,
    which its reader must take for a miss."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with open(descriptor, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    finally:
        with suppress(FileNotFoundError):
            temp.unlink()


def fsync_path(path: Path) -> None:
    """Flush a file, or a folder's entries (names made, renamed or removed in it), to disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextmanager
def new_folder(path: Path) -> Iterator[Path]:
    """The folder to build `path` in, all or nothing: if the block fails, whatever it made
    is removed, and so are the parent folders made for it.

    A missing `path` is built in a hidden folder beside it and renamed into place at the
    end, so nobody sees it half made. An empty folder already at `path` is built in place
    and emptied again on failure: it may be a mount point, or carry an owner and mode of
    its own that a rename would lose.
    """
    if path.is_dir() and not any(path.iterdir()):
        with _emptied_on_failure(path):
            yield path
        return
    if path.exists():
        raise FileExistsError(f"{path} exists and is not empty")
    made = _make_parents(path.parent)
    staging = path.with_name(f".{path.name}.{secrets.token_hex(4)}.new")
    try:
        staging.mkdir()
        yield staging
        os.rename(staging, path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for folder in reversed(made):
            with suppress(OSError):  # someone else may have put something there meanwhile
                folder.rmdir()
        raise


@contextmanager
def _emptied_on_failure(folder: Path) -> Iterator[None]:
    try:
        yield
    except BaseException:
        for child in folder.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)
        raise


def _make_parents(folder: Path) -> list[Path]:
    """Make `folder` and its missing parents; return those made, outermost first."""
    missing = [f for f in (folder, *folder.parents) if not f.exists()][::-1]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def read_json(path: Path) -> Any | None:
    """The JSON a file of the service holds, or None when there is no such file yet (every
    such file is written whole by `write_atomically`)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
