"""OpenPGP-signed moves (docs/signing.md): pamir checks SSH signatures only.

Git signs with OpenPGP by default, and GitHub's web editor signs every commit that way.
Such a signature vouches for nothing here, so the move counts as unsigned: played where
signatures are not required, refused with a clear reason where they are, never taken for
a commit changed after it was signed.

The signatures are real: `git commit -S` with a throwaway key in a GnuPG home of the
test's own when gpg is installed; and, wherever the tests run, a commit object written
with `git hash-object` that carries a well-formed OpenPGP signature by a key nobody here
knows, as a commit signed elsewhere arrives.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import decider, git, head, pamir, pamir_ok, player_email, push, run, show
from test_signatures import clone_of, make_key, next_move, public, signed_bare
from test_signatures_forge import checked, moves_on_forge, restores
from test_webhooks import Hosted, player_clone, state_after_pushes

from adjudicator.forge import newgames
from adjudicator.home.settings import Settings
from adjudicator.schedule.jobs import sync_game

pytestmark = pytest.mark.usefixtures("home")

# A detached OpenPGP signature (Ed25519) by a key made once and thrown away: well formed,
# as GnuPG writes it, but over other bytes than any commit here.
FOREIGN_SIGNATURE = """\
-----BEGIN PGP SIGNATURE-----

iHUEABYIAB0WIQQ1pc3LvBiFVlxOghn6w8FyUecKlQUCawpv3AAKCRD6w8FyUecK
lT6GAP48q/CBINieFiRgVcJtJK881J8xy9VHjg9QekBZLU9sdwD/UbaWKggm4o4K
4UgrAFHNjO09Z/xEXp064jB768W18Q0=
=mTUx
-----END PGP SIGNATURE-----
"""

WAYS = ["gpg", "written"]


@pytest.fixture(scope="module")
def gnupg_home() -> Iterator[Path | None]:
    """A GnuPG home holding one fresh signing key; None where gpg is not installed."""
    gpg = shutil.which("gpg")
    if gpg is None:
        yield None
        return
    # Under /tmp, short: gpg-agent's socket lives in it, and socket paths are limited.
    folder = Path(tempfile.mkdtemp(prefix="pamir-gpg-", dir="/tmp"))
    env = {**os.environ, "GNUPGHOME": str(folder)}
    quiet = [gpg, "--batch", "--pinentry-mode", "loopback", "--passphrase", ""]
    made = subprocess.run(
        [*quiet, "--quick-gen-key", "Player <player@example.org>", "ed25519", "sign", "never"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    try:
        yield folder
    finally:
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def commit_openpgp_move(
    clone: Path, number: int, player: str, text: str, way: str, gnupg: Path | None
) -> str:
    """Commit a move file as `player`, signed with OpenPGP: by `git commit -S` and gpg
    ("gpg"), or by writing the commit object with a signature header ("written")."""
    name = f"moves/{number:04d}-{player}.txt"
    (clone / "moves").mkdir(exist_ok=True)
    (clone / name).write_text(text, encoding="utf-8")
    git(clone, "add", name)
    author = f"{player} <{player_email(clone, player)}>"
    message = f"{player}: move {number}"
    if way == "gpg":
        if gnupg is None:
            pytest.skip("gpg is not installed (the written signature stands in for it)")
        openpgp = ["-c", "gpg.format=openpgp", "-c", "user.signingkey=player@example.org"]
        done = run(
            ["git", *openpgp, "commit", "-q", "-S", "--author", author, "-m", message],
            clone,
            env={"GNUPGHOME": str(gnupg)},
        )
        assert done.returncode == 0, done.stderr
    else:
        git(clone, "commit", "-q", "--author", author, "-m", message)
        raw = git(clone, "cat-file", "commit", "HEAD")
        headers, _, body = raw.partition("\n\n")
        armored = FOREIGN_SIGNATURE.rstrip("\n").replace("\n", "\n ")
        written = subprocess.run(
            ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
            cwd=clone,
            input=f"{headers}\ngpgsig {armored}\n\n{body}".encode(),
            capture_output=True,
            check=True,
        )
        git(clone, "update-ref", "HEAD", written.stdout.decode().strip())
    assert "gpgsig -----BEGIN PGP SIGNATURE-----" in git(clone, "cat-file", "commit", "HEAD")
    return head(clone)


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "player-keys"
    return {name: make_key(folder, name) for name in ("alice", "bob")}


# -- A bare game, through the pre-receive hook ---------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
def test_an_openpgp_signed_move_counts_as_unsigned_where_signatures_are_not_required(
    tmp_path: Path, keys: dict[str, Path], gnupg_home: Path | None, way: str
) -> None:
    bare = signed_bare(tmp_path, keys, require=False)
    assert "require_signatures" not in tomllib.loads(show(bare, "main", "game.toml"))
    number, player, text = next_move(bare)
    clone = clone_of(bare, player)
    made = commit_openpgp_move(clone, number, player, text, way, gnupg_home)

    done = push(clone)

    assert done.returncode == 0, done.stderr
    assert f"move {number} adjudicated" in done.stderr
    assert "changed after it was signed" not in done.stderr
    listing = pamir_ok("verify", bare, "--signers")
    (line,) = [line for line in listing.splitlines() if line.startswith(made[:10])]
    assert "signed with OpenPGP, which is not checked (only SSH is)" in line


@pytest.mark.parametrize("way", WAYS)
def test_an_openpgp_signed_move_is_refused_where_ssh_signatures_are_required(
    tmp_path: Path, keys: dict[str, Path], gnupg_home: Path | None, way: str
) -> None:
    bare = signed_bare(tmp_path, keys)
    before = head(bare)
    number, player, text = next_move(bare)
    clone = clone_of(bare, player)
    commit_openpgp_move(clone, number, player, text, way, gnupg_home)

    done = push(clone)

    assert done.returncode != 0
    assert (
        f"push refused: moves/{number:04d}-{player}.txt: it is signed with OpenPGP, and "
        f"OpenPGP signatures are not accepted: this game requires {player}'s moves to be "
        f"signed with {player}'s SSH key (docs/signing.md)"
    ) in done.stderr
    assert "does not verify" not in done.stderr
    assert head(bare) == before


def test_verify_names_an_openpgp_signed_move_written_past_the_hook(
    tmp_path: Path, keys: dict[str, Path], gnupg_home: Path | None
) -> None:
    """A required signature that is OpenPGP breaks the contract in `pamir verify` too."""
    bare = signed_bare(tmp_path, keys)
    number, player, text = next_move(bare)
    clone = clone_of(bare, player)
    made = commit_openpgp_move(clone, number, player, text, "written", gnupg_home)
    git(bare, "fetch", "-q", str(clone), "+main:main")  # a fetch runs no hook

    done = pamir("verify", bare)

    assert done.returncode == 3, done.stdout
    assert f"commit {made[:10]}" in done.stderr
    assert "it is signed with OpenPGP, and OpenPGP signatures are not accepted" in done.stderr


# -- A forge-hosted game --------------------------------------------------------------------


def forge_game(
    tmp_path: Path, settings: Settings, keys: dict[str, Path], *, require: bool
) -> Hosted:
    origin = tmp_path / "forge" / "players" / "g1.git"
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "--bare", "--initial-branch=main")
    newgames.create_remote_game(
        settings,
        str(origin),
        [("alice", "alice@example.org"), ("bob", "bob@example.org")],
        game_id="g1",
        signing_keys={name: public(key) for name, key in keys.items()},
        require_signatures=require,
    ).repo.close()
    return Hosted("g1", origin, settings.games_dir / "g1", "players/g1")


@pytest.mark.parametrize("require", [False, True])
def test_a_forge_takes_an_openpgp_signed_move_as_unsigned(
    tmp_path: Path,
    settings: Settings,
    keys: dict[str, Path],
    gnupg_home: Path | None,
    require: bool,
) -> None:
    """Where signatures are not required the move is played; where they are, it is put
    back, with the reason in the restore commit and in `pamir verify`."""
    game = forge_game(tmp_path, settings, keys, require=require)
    player, options = decider(state_after_pushes(game))
    clone = player_clone(game, player)
    way = "gpg" if gnupg_home is not None else "written"
    made = commit_openpgp_move(clone, 1, player, options[0] + "\n", way, gnupg_home)
    assert push(clone).returncode == 0

    sync_game(settings, "g1")

    if not require:
        assert moves_on_forge(game) == [f"moves/0001-{player}.txt"]
        assert not restores(game) and checked(game, settings) == []
        return
    assert moves_on_forge(game) == []
    (restore,) = restores(game)
    message = git(game.origin, "log", "-1", "--format=%B", restore)
    assert made in message and "OpenPGP signatures are not accepted" in message
    (refused,) = checked(game, settings)
    assert made[:10] in refused and "OpenPGP signatures are not accepted" in refused
