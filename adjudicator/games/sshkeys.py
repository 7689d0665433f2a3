"""OpenSSH public keys and signatures, read strictly and without running anything.

A player's `signing_key` in game.toml is an OpenSSH public key line (`TYPE BASE64
[COMMENT]`, as in `~/.ssh/id_ed25519.pub`); the adjudicator's is one too. A signed commit
carries an armored SSH signature (`-----BEGIN SSH SIGNATURE-----`, the SSHSIG format of
OpenSSH's PROTOCOL.sshsig), which names the public key that made it: reading that key
here tells whose signature it claims to be, so that one `ssh-keygen -Y verify` a commit
is enough to check it (docs/signing.md).
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from dataclasses import dataclass

# The key types OpenSSH signs commits with. DSA is gone from OpenSSH; certificates are
# not keys a player holds in a file of their own.
KEY_TYPES = (
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "ssh-rsa",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
SIGNATURE_BEGIN = "-----BEGIN SSH SIGNATURE-----"
SIGNATURE_END = "-----END SSH SIGNATURE-----"


class BadKey(ValueError):
    """Not an OpenSSH public key line, or a signature that cannot be read."""


@dataclass(frozen=True)
class PublicKey:
    """A public key: its type and the key blob; two keys are the same key when these are."""

    type: str
    blob: bytes
    comment: str = ""

    @property
    def base64(self) -> str:
        return base64.b64encode(self.blob).decode("ascii")

    def line(self) -> str:
        """The key as OpenSSH writes it, comment included."""
        return f"{self.type} {self.base64} {self.comment}".rstrip()

    def same_key(self, other: PublicKey) -> bool:
        return (self.type, self.blob) == (other.type, other.blob)


def _string(data: bytes, at: int) -> tuple[bytes, int]:
    """The SSH wire-format string at `at` (a 32-bit length, then the bytes), and where the
    next field starts."""
    if at + 4 > len(data):
        raise BadKey("it ends in the middle of a field")
    (length,) = struct.unpack(">I", data[at : at + 4])
    end = at + 4 + length
    if end > len(data):
        raise BadKey("it ends in the middle of a field")
    return data[at + 4 : end], end


def parse_key_line(text: str) -> PublicKey:
    """Read an OpenSSH public key line; raise BadKey saying what is wrong with it."""
    if "\n" in text.strip() or "\r" in text:
        raise BadKey("a public key is one line (the contents of a .pub file)")
    fields = text.strip().split(maxsplit=2)
    if len(fields) < 2:
        raise BadKey("write the public key line: TYPE BASE64 [COMMENT], e.g. ssh-ed25519 AAAA…")
    kind, encoded = fields[0], fields[1]
    if kind not in KEY_TYPES:
        raise BadKey(f"key type {kind!r} is not one of {', '.join(KEY_TYPES)}")
    if not _BASE64.match(encoded):
        raise BadKey("the key's second field is not base64")
    try:
        blob = base64.b64decode(encoded, validate=True)
    except binascii.Error:
        raise BadKey("the key's second field is not base64") from None
    inner, _ = _string(blob, 0)
    if inner != kind.encode("ascii"):
        raise BadKey(f"the key says it is {kind} but its data is {inner[:40]!r}")
    return PublicKey(kind, blob, fields[2] if len(fields) == 3 else "")


def check_key_line(text: str) -> str:
    """The key line as it is kept in game.toml (surrounding space removed); refused with
    ValueError when it is not a key."""
    return parse_key_line(text).line()


def signature_key(armored: str) -> PublicKey:
    """The public key an armored SSH signature says made it (not yet checked)."""
    lines = [line.strip() for line in armored.strip().splitlines()]
    if len(lines) < 3 or lines[0] != SIGNATURE_BEGIN or lines[-1] != SIGNATURE_END:
        raise BadKey("not an SSH signature (a GPG signature, perhaps)")
    try:
        data = base64.b64decode("".join(lines[1:-1]), validate=True)
    except binascii.Error:
        raise BadKey("the signature is not base64") from None
    if not data.startswith(b"SSHSIG"):
        raise BadKey("the signature does not start with SSHSIG")
    blob, _ = _string(data, 10)  # after the magic and the 32-bit version
    kind, _ = _string(blob, 0)
    return PublicKey(kind.decode("ascii", "replace"), blob)
