"""The service's secret key in PostgreSQL mode: 32 bytes in base64 (`PAMIR_SECRET_KEY`).

The settings check its form when they are read; the store (adjudicator/home/store.py)
seals the database's secret records with it.
"""

from __future__ import annotations

import base64
import os

KEY_VARIABLE = "PAMIR_SECRET_KEY"


class BadSecretKey(ValueError):
    """A text that is not 32 bytes in base64."""


def parse_key(text: str) -> bytes:
    """The 32 bytes of a secret key written in base64 (BadSecretKey if it is not one)."""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise BadSecretKey(
            f"{KEY_VARIABLE} must be 32 bytes in base64 (make one with: "
            "python3 -c 'import base64, os; print(base64.b64encode(os.urandom(32)).decode())')"
        )
    return raw


def new_key() -> str:
    """A new secret key, in base64."""
    return base64.b64encode(os.urandom(32)).decode("ascii")
