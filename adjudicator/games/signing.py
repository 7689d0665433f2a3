"""Signing the adjudicator's commits with its SSH key (docs/signing.md).

Once a game records the adjudicator's public key (`[adjudicator] signing_key` in
game.toml), the commit object is serialized, its bytes signed with `ssh-keygen -Y sign -n
git`, and the signature written as its `gpgsig` header, as `git commit -S` does with
`gpg.format = ssh`. The private key's path is in the repository's own configuration
(`pamir.signingKey`, never committed). A game that records a key is never given an
unsigned commit: without the key nothing is committed.
"""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path

import git

from adjudicator.games.objects import GameError
from adjudicator.home.keys import KeyProblem, sign

SIGNING_CONFIG = ("pamir", "signingKey")  # the repository's own configuration


def recorded_key(game_toml: bytes | None) -> str | None:
    """The adjudicator's public key a game.toml records, if any."""
    if game_toml is None:
        return None
    try:
        table = tomllib.loads(game_toml.decode("utf-8")).get("adjudicator", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # not a game the service could have written: read as unsigned
    key = table.get("signing_key") if isinstance(table, dict) else None
    return key if isinstance(key, str) else None


def signing_key(repo: git.Repo) -> Path | None:
    """The private key a repository's commits are signed with, if configured."""
    reader = repo.config_reader("repository")
    try:
        return Path(str(reader.get_value(*SIGNING_CONFIG)))
    except (KeyError, ValueError, configparser.Error):
        return None
    finally:
        reader.release()


def configure_signing(repo: git.Repo, key: Path) -> None:
    """Sign a repository's commits with `key` from now on."""
    with repo.config_writer("repository") as writer:
        writer.set_value(*SIGNING_CONFIG, str(key))


def commit_signature(repo: git.Repo, where: Path, payload: bytes) -> str:
    """The SSH signature of a commit object's bytes, for its `gpgsig` header (`where`: the
    repository's path, for messages)."""
    key = signing_key(repo)
    if key is None:
        raise GameError(
            f"{where}: this game's commits are signed by the adjudicator, but the "
            "repository names no signing key (git config pamir.signingKey "
            "PAMIR_HOME/keys/adjudicator/id_ed25519)"
        )
    try:
        return sign(payload, key)
    except KeyProblem as error:
        raise GameError(f"{where}: cannot sign the commit: {error}") from None
