"""Secret seeds and their commitment (commit-reveal).

At creation the service draws a 256-bit secret, keeps it in PAMIR_HOME/secrets/GAME.secret
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


def store_secret(home: Path, game_id: str, secret: str) -> Path:
    path = secret_path(home, game_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        raise FileExistsError(f"a secret for game {game_id!r} already exists at {path}")
    path.write_text(secret + "\n", encoding="ascii")
    path.chmod(0o600)
    return path


def load_secret(home: Path, game_id: str) -> str | None:
    path = secret_path(home, game_id)
    if not path.exists():
        return None
    return path.read_text(encoding="ascii").strip()
