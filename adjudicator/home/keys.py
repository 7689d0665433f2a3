"""The adjudicator's own SSH signing key, kept in PAMIR_HOME/keys/adjudicator/.

Every commit the service makes in a game created since games were signed carries an SSH
signature by this key (docs/signing.md); its public half is recorded in the game's
game.toml. The key is made with `ssh-keygen` on first use, in a scratch folder that is
then renamed into place: two processes that make one at once both succeed, the first
rename wins, and the other process uses the winner's key. A crash leaves a scratch folder
at worst, never half a key.

Signing with an Ed25519 key, the kind the service makes, happens in this process
(`cryptography`, following OpenSSH's PROTOCOL.sshsig): Ed25519 signatures are
deterministic, so the armored signature is byte for byte the one `ssh-keygen -Y sign`
writes, without a process for every commit. Other keys go to ssh-keygen.

In PostgreSQL mode (docs/cluster.md) the key is a sealed record of the database
(`keys/adjudicator/id_ed25519`, adjudicator/home/store.py), made once for every node: each
node writes it to its own PAMIR_HOME/keys/adjudicator/ (mode 0600), where Git's
configuration of each game clone names it.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

from adjudicator.home.files import fsync_path, write_atomically
from adjudicator.home.store import DatabaseStore, store_for

KEY_NAME = "id_ed25519"
KEY_COMMENT = "pamir-adjudicator"
NAMESPACE = "git"  # the namespace Git signs and verifies commits in
TIMEOUT = 60  # seconds for one ssh-keygen


class KeyProblem(RuntimeError):
    """The signing key cannot be made, read or used."""


def key_dir(home: Path) -> Path:
    return home / "keys" / "adjudicator"


def key_path(home: Path) -> Path:
    """Where the adjudicator's private key is (its public key: the same path + .pub)."""
    return key_dir(home) / KEY_NAME


def _ssh_keygen(args: list[str], data: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["ssh-keygen", *args], input=data, capture_output=True, timeout=TIMEOUT, check=False
        )
    except FileNotFoundError:
        raise KeyProblem("ssh-keygen (OpenSSH) is not installed") from None
    except subprocess.TimeoutExpired:
        raise KeyProblem(f"ssh-keygen {args[0]} did not finish in {TIMEOUT} seconds") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()
        raise KeyProblem(f"ssh-keygen {' '.join(args[:2])} failed: {said}")
    return done.stdout


RECORD = f"keys/adjudicator/{KEY_NAME}"  # the key's record in PostgreSQL mode
_written: dict[Path, bytes] = {}  # PostgreSQL mode: the key file this process wrote, by home


def adjudicator_key(home: Path) -> Path:
    """The adjudicator's private key file, made first if the home has none yet."""
    records = store_for(home)
    if isinstance(records, DatabaseStore):
        return _key_of_database(home, records)
    target = key_dir(home)
    if (target / KEY_NAME).is_file():
        return target / KEY_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.with_name(f".adjudicator.{secrets.token_hex(4)}.new")
    scratch.mkdir(mode=0o700)
    try:
        made = scratch / KEY_NAME
        _ssh_keygen(["-q", "-t", "ed25519", "-N", "", "-C", KEY_COMMENT, "-f", str(made)])
        made.chmod(0o600)
        for path in (made, made.with_name(f"{KEY_NAME}.pub"), scratch):
            fsync_path(path)
        try:
            os.rename(scratch, target)
        except OSError:
            if not (target / KEY_NAME).is_file():
                raise  # not a lost race: something else is in the way
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target / KEY_NAME


def _key_of_database(home: Path, records: DatabaseStore) -> Path:
    """The database's key, written to this node's home (made first if there is none: two
    nodes making one at once keep the first one stored)."""
    path = key_path(home)
    known = _written.get(home)
    if known is not None and path.is_file():
        return path
    data = records.read(RECORD)
    if data is None:
        scratch = home / "tmp"
        scratch.mkdir(parents=True, exist_ok=True)
        made = scratch / f"key.{secrets.token_hex(4)}"
        try:
            _ssh_keygen(["-q", "-t", "ed25519", "-N", "", "-C", KEY_COMMENT, "-f", str(made)])
            data = records.create(RECORD, made.read_bytes())
        finally:
            made.unlink(missing_ok=True)
            made.with_name(f"{made.name}.pub").unlink(missing_ok=True)
    if not path.is_file() or path.read_bytes() != data:
        write_atomically(path, data, mode=0o600)
    public = path.with_name(f"{KEY_NAME}.pub")
    line = f"{_public_line(data)} {KEY_COMMENT}\n".encode("ascii")
    if not public.is_file() or public.read_bytes() != line:
        write_atomically(public, line)
    _written[home] = data
    return path


def _public_line(private_key: bytes) -> str:
    # cryptography takes tens of milliseconds to load: only commands that sign pay for it.
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        PublicFormat,
        load_ssh_private_key,
    )

    try:
        loaded = load_ssh_private_key(private_key, password=None)
    except (ValueError, TypeError) as error:
        raise KeyProblem(f"the adjudicator's key in the database cannot be read: {error}") from None
    return loaded.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH).decode("ascii")


def public_key_line(key: Path) -> str:
    """The public key line of a private key file (from the .pub beside it)."""
    try:
        return key.with_name(f"{key.name}.pub").read_text(encoding="ascii").strip()
    except OSError as error:
        raise KeyProblem(f"cannot read the public key of {key}: {error.strerror}") from None


def sign(payload: bytes, key: Path) -> str:
    """An armored SSH signature of `payload` by `key`, in Git's namespace."""
    if not key.is_file():
        raise KeyProblem(f"the adjudicator's signing key {key} is missing")
    private = _ed25519_key(key)
    if private is not None:
        return _sshsig(payload, private)
    return _ssh_keygen(["-Y", "sign", "-n", NAMESPACE, "-q", "-f", str(key)], payload).decode(
        "ascii"
    )


_LOADED: dict[tuple[str, int, int], Any] = {}  # (path, inode, mtime) -> Ed25519 key


def _ed25519_key(key: Path) -> Any:
    """The Ed25519 private key in an unencrypted OpenSSH key file; None for any other key
    (left to ssh-keygen, which also says what is wrong with it)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # on use
    from cryptography.hazmat.primitives.serialization import load_ssh_private_key

    facts = key.stat()
    seen = (str(key), facts.st_ino, facts.st_mtime_ns)
    if seen not in _LOADED:
        try:
            loaded = load_ssh_private_key(key.read_bytes(), password=None)
        except (ValueError, TypeError, OSError):
            loaded = None
        _LOADED[seen] = loaded if isinstance(loaded, Ed25519PrivateKey) else None
    return _LOADED[seen]


def _string(data: bytes) -> bytes:
    """An SSH wire-format string: its length (4 bytes, big-endian), then its bytes."""
    return struct.pack(">I", len(data)) + data


def _sshsig(payload: bytes, private: Any) -> str:
    """The armored SSHSIG of `payload` (namespace git, SHA-512), as ssh-keygen writes it."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat  # on use

    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    public_blob = _string(b"ssh-ed25519") + _string(public)
    namespace, algorithm = NAMESPACE.encode("ascii"), b"sha512"
    digest = hashlib.sha512(payload).digest()
    signed = b"SSHSIG" + _string(namespace) + _string(b"") + _string(algorithm)
    signed += _string(digest)
    signature = _string(b"ssh-ed25519") + _string(private.sign(signed))
    blob = b"SSHSIG" + struct.pack(">I", 1) + _string(public_blob) + _string(namespace)
    blob += _string(b"") + _string(algorithm) + _string(signature)
    encoded = base64.b64encode(blob).decode("ascii")
    lines = [encoded[start : start + 70] for start in range(0, len(encoded), 70)]
    return "-----BEGIN SSH SIGNATURE-----\n" + "\n".join(lines) + "\n-----END SSH SIGNATURE-----\n"
