"""The adjudicator's signatures made in this process are ssh-keygen's, byte for byte."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from adjudicator.home import keys


def _keygen(folder: Path, kind: str) -> Path:
    path = folder / f"id_{kind}"
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-f", str(path)], check=True)
    return path


def _by_ssh_keygen(payload: bytes, key: Path) -> str:
    command = ["ssh-keygen", "-Y", "sign", "-n", "git", "-q", "-f", str(key)]
    return subprocess.run(command, input=payload, capture_output=True, check=True).stdout.decode()


@pytest.mark.parametrize("payload", [b"", b"tree 4b82\n\nMove 1\n", bytes(range(256)) * 40])
def test_an_ed25519_signature_is_the_one_ssh_keygen_writes(tmp_path: Path, payload: bytes) -> None:
    key = _keygen(tmp_path, "ed25519")
    assert keys._ed25519_key(key) is not None  # made in this process, not by ssh-keygen
    assert keys.sign(payload, key) == _by_ssh_keygen(payload, key)


def test_another_kind_of_key_is_left_to_ssh_keygen(tmp_path: Path) -> None:
    key = _keygen(tmp_path, "ecdsa")
    assert keys._ed25519_key(key) is None
    signature = keys.sign(b"payload", key)
    allowed = tmp_path / "allowed"
    allowed.write_text(f'me namespaces="git" {key.with_suffix(".pub").read_text()}')
    (tmp_path / "sig").write_text(signature)
    check = ["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", "me", "-n", "git"]
    done = subprocess.run([*check, "-s", str(tmp_path / "sig")], input=b"payload", check=False)
    assert done.returncode == 0


def test_a_replaced_key_file_is_read_again(tmp_path: Path) -> None:
    key = _keygen(tmp_path, "ed25519")
    first = keys.sign(b"x", key)
    key.unlink()
    key.with_name("id_ed25519.pub").unlink()
    _keygen(tmp_path, "ed25519")
    assert keys.sign(b"x", key) != first
    assert keys.sign(b"x", key) == _by_ssh_keygen(b"x", key)
