"""The lobby's addresses: the service's own (`REPLY_LOCAL@REPLY_DOMAIN`), where a `new game`
mail goes, and each seat's (`REPLY_LOCAL+lobby-SEAT-TOKEN@REPLY_DOMAIN`), where its party
answers. The token is an HMAC, under the service's key (mail/tokens.py), of the seat and
the address it was made for: only the invited address's reply to its invitation counts,
and an address is never guessed from another. The address has no dot after the `+`, so
it is never read as a player's reply address (`tokens.ADDRESS`).
"""

from __future__ import annotations

import hashlib
import hmac
import re

from adjudicator.home.settings import Settings
from adjudicator.mail import tokens
from adjudicator.mail.lobby.records import SEAT_ID_LENGTH

TOKEN_LENGTH = 20
SEAT_ADDRESS = re.compile(
    rf"^(?P<local>[^+@\s]+)\+lobby-(?P<seat>[0-9a-f]{{{SEAT_ID_LENGTH}}})"
    rf"-(?P<token>[0-9a-f]{{{TOKEN_LENGTH}}})@(?P<domain>[^@\s]+)$"
)


def service_address(settings: Settings) -> str:
    return f"{settings.reply_local}@{settings.reply_domain}".lower()


def seat_token(settings: Settings, seat_id: str, address: str) -> str:
    message = f"lobby\0{seat_id}\0{address.lower()}".encode()
    key = tokens.service_key(settings)
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:TOKEN_LENGTH]


def seat_address(settings: Settings, seat_id: str, address: str) -> str:
    code = seat_token(settings, seat_id, address)
    return f"{settings.reply_local}+lobby-{seat_id}-{code}@{settings.reply_domain}"


def _ours(settings: Settings, match: re.Match[str]) -> bool:
    local, domain = match.group("local"), match.group("domain")
    return (local, domain) == (settings.reply_local.lower(), settings.reply_domain.lower())


def seat_of(settings: Settings, recipient: str) -> tuple[str, str] | None:
    """(seat, token) of a recipient that is one of the lobby's seat addresses (the token
    not checked yet: that needs the seat's address), else None."""
    match = SEAT_ADDRESS.match(recipient.strip().lower())
    if match is None or not _ours(settings, match):
        return None
    return match.group("seat"), match.group("token")


def is_seat_token(settings: Settings, seat_id: str, address: str, candidate: str) -> bool:
    made = seat_token(settings, seat_id, address)
    return hmac.compare_digest(candidate.encode(), made.encode())


def is_for_lobby(settings: Settings, recipients: list[str]) -> bool:
    """Whether the message is addressed to the lobby: its own address or a seat's."""
    own = service_address(settings)
    return any(r.strip().lower() == own or seat_of(settings, r) for r in recipients)
