"""Per-player tokens: reply addresses for play by email, and links to private pages.

A player's reply address is `REPLY_LOCAL+GAME.PLAYER.TOKEN@REPLY_DOMAIN`. The token is an
HMAC of the game, the player and the generation of the player's credentials under the
service's key (PAMIR_HOME/secrets/service.key, made on first use; in PostgreSQL mode that
record of the database, sealed), so nobody can forge another player's.

A player's private page is `/play/GAME/PLAYER/PAGE_TOKEN` (docs/web.md). Its token is an
HMAC of the same key over another message (a label first), so the link and the reply
address give nothing of each other away. The page's form carries a `form_token`: an HMAC
of the page token and the game's head commit, so a form is good for one player and one
position only, and none is stored.

The generation (adjudicator/home/credentials.py) is all that is kept: it moves on when
the host changes the player's address, when the player resigns, and on `pamir revoke`,
and both tokens change with it. A token of an earlier generation is told apart from a
wrong one (`Standing.REPLACED`), so that its holder is refused with a reason rather than
as a stranger. Generation 0 leaves the generation out of the HMAC: its tokens are those
mailed before generations existed, which keep working until the player's first change.
Every token is one segment of hex, as the log's redaction expects (home/logs.py).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from enum import Enum
from typing import Protocol

from adjudicator.home import backend, credentials, store
from adjudicator.home.settings import Settings

TOKEN_LENGTH = 20
PAGE_TOKEN_LENGTH = 32  # 128 bits: a link that is never guessed
# GAME has no dot; PLAYER may have some; TOKEN is the part after the last dot.
# The reply address, and its press form: `+all` or `+NAME` after the token sends the
# message's text as press to every player or to NAME (docs/email.md#table-talk-press).
ADDRESS = re.compile(
    r"^(?P<local>[^+@\s]+)\+(?P<game>[a-z0-9][a-z0-9_-]*)\.(?P<player>[a-z][a-z0-9_.-]*)"
    rf"\.(?P<token>[0-9a-f]{{{TOKEN_LENGTH}}})(\+(?P<press>[a-z][a-z0-9_.-]*))?"
    r"@(?P<domain>[^@\s]+)$"
)
PRESS_ALL = "all"


SERVICE_KEY = "secrets/service.key"


def _read_service_key(settings: Settings) -> bytes:
    """The key tokens are made with, made on first use (the first writer's, when several
    make it at once)."""
    records = store.of(settings)
    data = records.read(SERVICE_KEY)
    if data is None:
        data = records.create(SERVICE_KEY, (secrets.token_hex(32) + "\n").encode("ascii"))
    return bytes.fromhex(data.decode("ascii").strip())


class _ServiceKey(Protocol):
    def get(self) -> bytes: ...


SERVICE_KEY_KIND: backend.Kind[_ServiceKey] = backend.Kind("mail.service_key")


class _ServiceKeyFile:
    """The embedded mode's key: its file, read again whenever it is not the file read
    last (a host may replace it while the service runs, and every token made after that
    is made with the new key). A move's report mails make a few dozen tokens: a `stat`
    each instead of a read."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._read: tuple[tuple[int, int, int, int], bytes] | None = None

    def get(self) -> bytes:
        try:
            found = os.stat(self.settings.home / SERVICE_KEY)
        except OSError:  # not made yet: made now, by the first to get here
            return _read_service_key(self.settings)
        mark = (found.st_dev, found.st_ino, found.st_mtime_ns, found.st_size)
        read = self._read
        if read is not None and read[0] == mark:
            return read[1]
        # Stated before it is read: a file replaced in between is read again next time.
        key = _read_service_key(self.settings)
        self._read = (mark, key)
        return key


class _KeptServiceKey:
    """PostgreSQL mode's key: a row every node reads, which never changes once made, so
    it is read once (a row read per token checked would cost every request a query)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._key: bytes | None = None

    def get(self) -> bytes:
        if self._key is None:
            self._key = _read_service_key(self.settings)
        return self._key


def service_key(settings: Settings) -> bytes:
    found = backend.of(settings).service(SERVICE_KEY_KIND, _ServiceKeyFile, _KeptServiceKey)
    return found.get()


class Standing(Enum):
    """What a token presented for a player is."""

    CURRENT = "current"
    REPLACED = "replaced"  # of an earlier generation: the player has a newer one
    UNKNOWN = "unknown"  # never this player's


def generation(settings: Settings, game_id: str, player: str) -> int:
    """The current generation of `player`'s credentials in `game_id`."""
    return credentials.generation(store.of(settings), game_id, player)


def _generations(settings: Settings, game_id: str, player: str) -> range:
    """Every generation `player` has had, the current one last."""
    return range(generation(settings, game_id, player) + 1)


def _reply_token(key: bytes, game_id: str, player: str, generation: int) -> str:
    # Generation 0 is the message of the versions before generations: its tokens stand.
    message = f"{game_id}\0{player.lower()}" + (f"\0{generation}" if generation else "")
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()[:TOKEN_LENGTH]


def _page_token(key: bytes, game_id: str, player: str, generation: int) -> str:
    parts = (game_id, player.lower(), *((str(generation),) if generation else ()))
    return _keyed(key, "page", *parts)[:PAGE_TOKEN_LENGTH]


def token(settings: Settings, game_id: str, player: str) -> str:
    """The token of `player`'s reply address in game `game_id`, as it stands now."""
    key = service_key(settings)
    return _reply_token(key, game_id, player, generation(settings, game_id, player))


def page_token(settings: Settings, game_id: str, player: str) -> str:
    """The secret part of `player`'s private page link in game `game_id`, as it stands."""
    key = service_key(settings)
    return _page_token(key, game_id, player, generation(settings, game_id, player))


def _standing(candidate: str, made: list[str]) -> Standing:
    """Where `candidate` is among the tokens `made`, oldest first (constant time each)."""
    found = [hmac.compare_digest(candidate.encode(), t.encode()) for t in made]
    if found[-1]:
        return Standing.CURRENT
    return Standing.REPLACED if any(found) else Standing.UNKNOWN


def page_standing(settings: Settings, game_id: str, player: str, candidate: str) -> Standing:
    """Whether `candidate` is `player`'s page token, one they had before, or neither."""
    key = service_key(settings)
    made = [_page_token(key, game_id, player, g) for g in _generations(settings, game_id, player)]
    return _standing(candidate, made)


def form_token(settings: Settings, page: str, head: str) -> str:
    """The token of a private page's form shown at commit `head`: it proves the form came
    from that page (a site that cannot read the page cannot make one) and dates it."""
    return _hmac(settings, "form", page, head)


def is_form_token(settings: Settings, page: str, head: str, candidate: str) -> bool:
    return hmac.compare_digest(candidate.encode(), form_token(settings, page, head).encode())


def _hmac(settings: Settings, label: str, *parts: str) -> str:
    return _keyed(service_key(settings), label, *parts)


def _keyed(key: bytes, label: str, *parts: str) -> str:
    # NUL cannot occur in a game id, a player's name or a commit, so parts never run
    # into each other; the label keeps each kind of token apart from the others.
    message = "\0".join((label, *parts)).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def reply_address(settings: Settings, game_id: str, player: str) -> str:
    code = token(settings, game_id, player)
    return f"{settings.reply_local}+{game_id}.{player}.{code}@{settings.reply_domain}"


def press_address(settings: Settings, game_id: str, player: str, to: str = PRESS_ALL) -> str:
    """`player`'s address for press to `to` (a player's name, or `all`): what is written to
    it is relayed as press, with the same checks as a reply."""
    local, _, domain = reply_address(settings, game_id, player).partition("@")
    return f"{local}+{to.lower()}@{domain}"


def press_target(address: str) -> str | None:
    """Whom a press address sends to (`all` or a name); None for a plain reply address."""
    match = ADDRESS.match(address.strip().lower())
    return match.group("press") if match is not None else None


def read_address(settings: Settings, address: str) -> tuple[str, str] | None:
    """(game, player) of a reply (or press) address whose token is valid now, else None."""
    match = ADDRESS.match(address.strip().lower())
    if match is None:
        return None
    game, player = match.group("game"), match.group("player")
    if not hmac.compare_digest(match.group("token"), token(settings, game, player)):
        return None
    return game, player


def address_standing(settings: Settings, address: str) -> tuple[str, str, Standing] | None:
    """(game, player, standing) of a reply (or press) address: whether its token is the
    player's now, one they had before, or neither; None for what is no reply address."""
    match = ADDRESS.match(address.strip().lower())
    if match is None:
        return None
    game, player = match.group("game"), match.group("player")
    key = service_key(settings)
    made = [_reply_token(key, game, player, g) for g in _generations(settings, game, player)]
    return game, player, _standing(match.group("token"), made)
