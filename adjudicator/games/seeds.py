"""Secret seeds and their commitment (commit-reveal).

At creation the service draws a 256-bit secret, keeps it in PAMIR_HOME/secrets/GAME.secret
(in PostgreSQL mode: that record of the database, encrypted; adjudicator/home/store.py)
and writes only `sha256:` of it to game.toml. The engine's seed is derived from the secret,
so nothing in the repository tells the deck order. When the game ends the secret is
written to `reveal.toml` in the repository; anyone can then check it against the
commitment and replay the game (`pamir verify`).
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

from adjudicator.home.paths import secrets_dir
from adjudicator.home.store import store_for

SEED_BITS = 63


def new_secret() -> str:
    return secrets.token_hex(32)


def commitment(secret: str) -> str:
    return "sha256:" + hashlib.sha256(secret.encode("ascii")).hexdigest()


def seed_from(secret: str) -> int:
    """The engine seed derived from a secret (a different hash than the commitment)."""
    digest = hashlib.sha256(b"pamir-seed:" + secret.encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << SEED_BITS) - 1)


def secret_path(home: Path, game_id: str) -> Path:
    """Where the service whose data folder is `home` keeps the game's secret."""
    return secrets_dir(home) / f"{game_id}.secret"


def secret_name(game_id: str) -> str:
    """The name of the game's secret among the service's records."""
    return f"secrets/{game_id}.secret"


def has_secret(home: Path, game_id: str) -> bool:
    return store_for(home).read(secret_name(game_id)) is not None


def store_secret(home: Path, game_id: str, secret: str) -> None:
    store, name = store_for(home), secret_name(game_id)
    data = (secret + "\n").encode("ascii")
    if store.read(name) is not None or store.create(name, data) != data:
        raise FileExistsError(f"a secret for game {game_id!r} already exists ({name})")


def load_secret(home: Path, game_id: str) -> str | None:
    data = store_for(home).read(secret_name(game_id))
    return None if data is None else data.decode("ascii").strip()
