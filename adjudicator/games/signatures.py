"""Who signed a commit: a player, the adjudicator, or nobody (docs/signing.md).

A commit's SSH signature is its `gpgsig` header; the signed bytes are the commit object
without that header, as Git signs them. The signature names its key (`sshkeys`): when the
game knows that key, the signature is checked against it (`_verifies`: in this process for
Ed25519 and RSA keys, by `ssh-keygen -Y verify` for others). The keys in force are those of
game.toml at the commit's parent, so a commit never vouches for itself (and a player's
commit may not change game.toml at all).

What a player's pushed commit must show, by `judge_player`:

- a signature by a key the game knows must verify, whoever's it is: a bad signature is
  always refused, whether or not the game requires signatures;
- a signature by another player's key (or the adjudicator's) is refused, naming whose;
- with `require_signatures`, the commit must be signed, by its player's key;
- without it, an unsigned commit, or one signed by a key the game does not know, is
  accepted: many players sign every commit with a key the game has not been told of.

Git's other signature formats, OpenPGP (`gpg.format = openpgp`, the default, and what
GitHub's web editor writes) and X.509, are not checked: the game knows SSH keys only.
Such a signature vouches for nothing, so the commit counts as unsigned; it is no sign of
damage, so it is not refused where signatures are not required.

The adjudicator's commits must be signed by the key game.toml records in
`[adjudicator]`; a game created before commits were signed records none, and its commits
are reported as unsigned, which is no fault (`judge_adjudicator`).
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import sshsig

from adjudicator.games.gamefile import GameFile
from adjudicator.games.repo import GameRepo
from adjudicator.games.sshkeys import BadKey, PublicKey, parse_key_line, signature_key
from adjudicator.home.keys import NAMESPACE, TIMEOUT

ADJUDICATOR_PRINCIPAL = "pamir@adjudicator"
SIGNATURE_HEADER = b"gpgsig "

# The first line of each signature format Git writes that pamir does not check, as Git
# itself tells the formats apart (gpg-interface.c).
UNCHECKED_FORMATS = {
    "-----BEGIN PGP SIGNATURE-----": "OpenPGP",
    "-----BEGIN PGP MESSAGE-----": "OpenPGP",
    "-----BEGIN SIGNED MESSAGE-----": "X.509",
}

Kind = Literal["unsigned", "player", "adjudicator", "unknown", "unchecked", "unreadable"]


@dataclass(frozen=True)
class Signature:
    """What a commit's signature shows. `owner` is the player whose key made it (kind
    "player"); `valid` says whether it verified (None when it could not be checked: no
    signature, a key the game does not know, or a format pamir does not check, named
    by `scheme`)."""

    kind: Kind
    owner: str | None = None
    valid: bool | None = None
    fingerprint: str = ""
    scheme: str = ""

    def describe(self) -> str:
        if self.kind == "unsigned":
            return "unsigned"
        if self.kind == "unreadable":
            return "a signature that cannot be read"
        if self.kind == "unknown":
            return f"signed by a key the game does not know ({self.fingerprint})"
        if self.kind == "unchecked":
            return f"signed with {self.scheme}, which is not checked (only SSH is)"
        who = f"player {self.owner}" if self.kind == "player" else "the adjudicator"
        return who if self.valid else f"a BAD signature by the key of {who}"


def fingerprint(key: PublicKey) -> str:
    """The key's fingerprint as `ssh-keygen -l` shows it."""
    digest = base64.b64encode(hashlib.sha256(key.blob).digest()).decode("ascii")
    return f"SHA256:{digest.rstrip('=')}"


def split_signature(raw: bytes) -> tuple[bytes, str | None]:
    """A commit object's signed bytes and its armored signature (None: unsigned)."""
    headers, blank, body = raw.partition(b"\n\n")
    kept: list[bytes] = []
    signature: list[bytes] = []
    inside = False
    for line in headers.split(b"\n"):
        if line.startswith(SIGNATURE_HEADER):
            inside = True
            signature.append(line.removeprefix(SIGNATURE_HEADER))
        elif inside and line.startswith(b" "):
            signature.append(line[1:])  # a continuation line of the header
        else:
            inside = False
            kept.append(line)
    if not signature:
        return raw, None
    text = b"\n".join(signature).decode("ascii", "replace") + "\n"
    return b"\n".join(kept) + blank + body, text


def signers(game: GameFile) -> list[tuple[str, PublicKey]]:
    """Every key of a game with its principal: the adjudicator's, then the players'."""
    found: list[tuple[str, PublicKey]] = []
    if game.adjudicator is not None:
        found.append((ADJUDICATOR_PRINCIPAL, parse_key_line(game.adjudicator.signing_key)))
    for player in game.players:
        if player.signing_key is not None:
            found.append((player.name, parse_key_line(player.signing_key)))
    return found


def allowed_signers(game: GameFile) -> str:
    """The game's keys in the allowed-signers format of ssh-keygen (and of Git's
    gpg.ssh.allowedSignersFile): `PRINCIPAL namespaces="git" TYPE BASE64`."""
    return "".join(
        f'{principal} namespaces="{NAMESPACE}" {key.type} {key.base64}\n'
        for principal, key in signers(game)
    )


@lru_cache(maxsize=4096)
def _verifies(payload: bytes, signature: str, principal: str, key: str) -> bool:
    """Whether the signature of `payload` is good and by `key` (`TYPE BASE64`), the key
    the game knows `principal` by.

    Checked in this process by `sshsig` (what `ssh-keygen -Y verify` does, for Ed25519
    and RSA keys): one ssh-keygen a commit made `pamir verify` of a long game take
    seconds. Other kinds of key (ECDSA, security keys) go to ssh-keygen itself. Cached:
    `pamir verify` asks twice of each commit (the contract, then the listing)."""
    try:
        sshsig.verify(payload, signature, [sshsig.PublicKey.from_openssh_str(key)], NAMESPACE)
    except sshsig.InvalidSignature:
        return False
    except (NotImplementedError, ValueError):
        return _ssh_keygen_verifies(payload, signature, principal, key)
    return True


def _ssh_keygen_verifies(payload: bytes, signature: str, principal: str, key: str) -> bool:
    """Whether `ssh-keygen -Y verify` accepts the signature as `principal`'s, by `key`."""
    allowed = f'{principal} namespaces="{NAMESPACE}" {key}\n'
    with tempfile.TemporaryDirectory(prefix="pamir-signature-") as scratch:
        allowed_file, signature_file = Path(scratch, "allowed_signers"), Path(scratch, "sig")
        allowed_file.write_text(allowed, encoding="ascii")
        signature_file.write_text(signature, encoding="ascii")
        command = ["ssh-keygen", "-Y", "verify", "-f", str(allowed_file), "-I", principal]
        command += ["-n", NAMESPACE, "-s", str(signature_file)]
        try:
            done = subprocess.run(
                command, input=payload, capture_output=True, timeout=TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise RuntimeError(f"ssh-keygen could not check a signature: {error}") from None
    return done.returncode == 0


def examine(repo: GameRepo, commit: str, game: GameFile) -> Signature:
    """Who signed `commit`, judged by the keys of `game` (game.toml at its parent)."""
    payload, armored = split_signature(repo.commit_info(commit).raw)
    if armored is None:
        return Signature("unsigned")
    scheme = _unchecked_scheme(armored)
    if scheme is not None:
        return Signature("unchecked", scheme=scheme)
    try:
        key = signature_key(armored)
    except BadKey:
        return Signature("unreadable", valid=False)
    for principal, known in signers(game):
        if known.same_key(key):
            line = f"{known.type} {known.base64}"
            valid = _verifies(payload, armored, principal, line)
            if principal == ADJUDICATOR_PRINCIPAL:
                return Signature("adjudicator", valid=valid, fingerprint=fingerprint(key))
            return Signature("player", principal, valid, fingerprint(key))
    return Signature("unknown", fingerprint=fingerprint(key))


def _unchecked_scheme(armored: str) -> str | None:
    """The name of a signature format pamir does not check ("OpenPGP", "X.509"), or None."""
    first = armored.lstrip().partition("\n")[0].strip()
    return UNCHECKED_FORMATS.get(first)


def judge_player(signature: Signature, player: str, game: GameFile) -> str | None:
    """Why a pushed commit's signature refuses it as `player`'s move, or None."""
    if signature.valid is False:
        return (
            f"its signature ({signature.describe()}) does not verify: the commit was "
            "changed after it was signed, or the signature is damaged"
        )
    if signature.kind == "player" and signature.owner != player:
        return f"it is signed with {signature.owner}'s key, not {player}'s"
    if signature.kind == "adjudicator":
        return f"it is signed with the adjudicator's key, not {player}'s"
    if not game.require_signatures or signature.kind == "player":
        return None
    if signature.kind == "unsigned":
        return (
            f"it is not signed: this game requires {player}'s moves to be signed with "
            f"{player}'s SSH key (docs/signing.md)"
        )
    if signature.kind == "unchecked":
        return (
            f"it is signed with {signature.scheme}, and {signature.scheme} signatures are not "
            f"accepted: this game requires {player}'s moves to be signed with {player}'s "
            "SSH key (docs/signing.md)"
        )
    return f"it is signed with a key that is not {player}'s ({signature.fingerprint})"


def judge_adjudicator(signature: Signature, game: GameFile) -> str | None:
    """Why an adjudicator's commit does not carry the signature it must, or None."""
    if signature.valid is False:
        return f"its signature ({signature.describe()}) does not verify"
    if game.adjudicator is None or signature.kind == "adjudicator":
        return None
    said = signature.describe()
    if signature.kind == "player":
        said = f"signed by {said}"  # a player's good signature, on a commit made as the service
    return f"it is {said}, not signed by the adjudicator's recorded key"


def describe_adjudicator(signature: Signature, game: GameFile) -> str:
    """How `pamir verify` names the signer of an adjudicator's commit."""
    if signature.kind == "unsigned" and game.adjudicator is None:
        return "unsigned (the game predates signed commits)"
    return signature.describe()
