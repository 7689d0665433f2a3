"""The message's own header fields, read the cheap way: before anything else is parsed.

Who wrote a message and to which reply address are read from its header block alone,
with the email package's `compat32` policy, which keeps each value as the text it is (no
RFC 2047 decoding, no structured parsing: its cost grows with the size of the block,
which `bounds.measure` has bounded already). The reply token is checked on that; only a
message with a valid token is parsed whole, with `email.policy.default`.

Values are unfolded, and bytes that are not ASCII are read as UTF-8 (an address may be
written in UTF-8, RFC 6532). An address is found in a value as `email.utils.getaddresses`
finds it; an encoded word (RFC 2047) can only stand for a display name, never for an
address, so it is left as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email import policy
from email.parser import BytesHeaderParser
from email.utils import getaddresses

_LINE_END = re.compile(r"\r\n|\r|\n")
_MESSAGE_ID = re.compile(r"<[^<>\s]+>")


@dataclass(frozen=True)
class Envelope:
    """The header fields of a message, in order: (name in lower case, value)."""

    fields: tuple[tuple[str, str], ...]

    def all(self, name: str) -> list[str]:
        wanted = name.lower()
        return [value for found, value in self.fields if found == wanted]

    def first(self, name: str) -> str | None:
        found = self.all(name)
        return found[0] if found else None

    def count(self, name: str) -> int:
        return len(self.all(name))

    def addresses(self, *names: str) -> list[str]:
        """The addresses in these fields, in order."""
        values = [value for name in names for value in self.all(name)]
        return [address for _, address in getaddresses(values) if address]

    def message_ids(self, name: str) -> list[str]:
        """The message identifiers (`<...>`) in the first such field, in order."""
        return _MESSAGE_ID.findall(self.first(name) or "")


def read(block: bytes) -> Envelope:
    """The fields of a message's header block (or of a whole message: only its header
    block is read)."""
    message = BytesHeaderParser(policy=policy.compat32).parsebytes(block)
    return Envelope(tuple((name.lower(), _text(value)) for name, value in message.raw_items()))


def _text(value: str) -> str:
    """A value as read from bytes (not ASCII: surrogate escapes) as text, unfolded."""
    text = value.encode("ascii", "surrogateescape").decode("utf-8", "replace")
    return _LINE_END.sub("", text).strip()
