"""Per-player reply tokens for play by email.

A player's reply address is `REPLY_LOCAL+GAME.PLAYER.TOKEN@REPLY_DOMAIN`. The token is an
HMAC of the game and the player under the service's key (PAMIR_HOME/secrets/service.key,
made on first use), so nothing needs storing and nobody can forge another player's.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from pathlib import Path

from adjudicator.home.settings import Settings

TOKEN_LENGTH = 20
# GAME has no dot; PLAYER may have some; TOKEN is the part after the last dot.
ADDRESS = re.compile(
    r"^(?P<local>[^+@\s]+)\+(?P<game>[a-z0-9][a-z0-9_-]*)\.(?P<player>[a-z][a-z0-9_.-]*)"
    rf"\.(?P<token>[0-9a-f]{{{TOKEN_LENGTH}}})@(?P<domain>[^@\s]+)$"
)


def service_key(settings: Settings) -> bytes:
    path: Path = settings.home / "secrets" / "service.key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32) + "\n", encoding="ascii")
        path.chmod(0o600)
    return bytes.fromhex(path.read_text(encoding="ascii").strip())


def token(settings: Settings, game_id: str, player: str) -> str:
    message = f"{game_id}\0{player.lower()}".encode()
    digest = hmac.new(service_key(settings), message, hashlib.sha256).hexdigest()
    return digest[:TOKEN_LENGTH]


def reply_address(settings: Settings, game_id: str, player: str) -> str:
    code = token(settings, game_id, player)
    return f"{settings.reply_local}+{game_id}.{player}.{code}@{settings.reply_domain}"


def read_address(settings: Settings, address: str) -> tuple[str, str] | None:
    """(game, player) of a reply address whose token is valid, else None."""
    match = ADDRESS.match(address.strip().lower())
    if match is None:
        return None
    game, player = match.group("game"), match.group("player")
    if not hmac.compare_digest(match.group("token"), token(settings, game, player)):
        return None
    return game, player
