"""Writing the service's own files so that a crash never leaves half of one."""

from __future__ import annotations

import os
import secrets
from contextlib import suppress
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write a temporary file beside `path`, flush it to disk, rename it into place: a
    reader (or a crash) sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    finally:
        with suppress(FileNotFoundError):
            temp.unlink()
