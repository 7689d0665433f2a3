"""Git objects read and written in this process agree with git's own, byte for byte:
loose and packed objects, commits (signed or not), trees a submission appends to, and
folders that grew."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from adjudicator.games.objectdb import RAW_TREES
from adjudicator.games.objects import GameError, Person, commit_bytes, parse_commit
from adjudicator.games.repo import ADJUDICATOR, GameRepo


def git(path: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, check=True)
    return done.stdout.decode().strip()


@pytest.fixture
def repo(tmp_path: Path) -> GameRepo:
    made = GameRepo.init(tmp_path / "g", bare=True)
    first = made.commit(
        {"game.toml": b"id = 'g'\n", "moves/0001-alice.txt": b"pass\n"}, "one", parent=None
    )
    assert made.head() == first
    return made


def _moves(repo: GameRepo, at: str) -> str:
    return git(repo.path, "ls-tree", f"{at}:moves")


def test_a_move_file_appended_makes_the_tree_git_makes(repo: GameRepo) -> None:
    tip = repo.head()
    assert tip is not None
    for number in range(2, 12):
        name = f"moves/{number:04d}-bob.txt"
        tip = repo.commit({name: f"move {number}\n".encode()}, f"move {number}", parent=tip)
        # git's own tree of the same files: fsck-clean, the same id, every file readable
        listing = _moves(repo, tip)
        rebuilt = (
            subprocess.run(
                ["git", "-C", str(repo.path), "mktree"],
                input=listing.encode() + b"\n",
                capture_output=True,
                check=True,
            )
            .stdout.decode()
            .strip()
        )
        assert rebuilt == git(repo.path, "rev-parse", f"{tip}:moves")
        # written by appending to the folder's bytes, not by writing every entry out again
        assert bytes.fromhex(rebuilt) in RAW_TREES
        assert repo.read(name, tip) == f"move {number}\n"
    git(repo.path, "fsck", "--strict")
    assert len(repo.names("moves", tip)) == 11


def test_a_name_sorting_before_the_last_is_placed_in_order(repo: GameRepo) -> None:
    tip = repo.head()
    assert tip is not None
    tip = repo.commit({"moves/0003-bob.txt": b"a\n"}, "three", parent=tip)
    tip = repo.commit({"moves/0002-carol.txt": b"b\n"}, "two", parent=tip)
    assert repo.names("moves", tip) == ["0001-alice.txt", "0002-carol.txt", "0003-bob.txt"]
    git(repo.path, "fsck", "--strict")


def test_packed_objects_are_read_as_loose_ones(repo: GameRepo) -> None:
    tip = repo.head()
    assert tip is not None
    tip = repo.commit(
        {"moves/0002-bob.txt": b"x\n"}, "two", parent=tip, author=Person("Bob", "bob@example.org")
    )
    loose = GameRepo(repo.path)
    before = (loose.commit_info(tip), loose.read("moves/0002-bob.txt", tip))
    git(repo.path, "gc", "-q", "--prune=now")
    assert not any((repo.path / "objects").glob("??/*"))  # nothing loose is left
    packed = GameRepo(repo.path)
    assert (packed.commit_info(tip), packed.read("moves/0002-bob.txt", tip)) == before
    info = before[0]
    assert info.author == Person("Bob", "bob@example.org") and info.committer == ADJUDICATOR
    assert info.summary == "two" and info.parents == (git(repo.path, "rev-parse", "HEAD~1"),)
    stamp = int(git(repo.path, "log", "-1", "--format=%ct", tip))
    assert int(info.committed.timestamp()) == stamp


def test_a_damaged_loose_object_is_a_game_error(repo: GameRepo) -> None:
    tip = repo.head()
    assert tip is not None
    path = repo.path / "objects" / tip[:2] / tip[2:]
    path.chmod(0o644)
    path.write_bytes(b"not zlib")
    with pytest.raises(GameError, match="cannot be read"):
        GameRepo(repo.path).commit_info(tip)


def _gpgsig(raw: bytes) -> str | None:
    """The `gpgsig` header of a commit object, its continuation lines joined."""
    lines = raw.partition(b"\n\n")[0].decode().split("\n")
    for number, line in enumerate(lines):
        if line.startswith("gpgsig "):
            rest = [more[1:] for more in lines[number + 1 :] if more.startswith(" ")]
            return "\n".join([line[7:], *rest]) + "\n"
    return None


@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
def test_a_commit_is_serialized_as_git_writes_it(tmp_path: Path, signed: bool) -> None:
    path = tmp_path / "g"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    (path / "game.toml").write_text("id = 'g'\n")
    git(path, "add", ".")
    tree = git(path, "write-tree")
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    stamp = 1767322800
    people = {
        "GIT_AUTHOR_NAME": "Zoë Ĳsselmeer",
        "GIT_AUTHOR_EMAIL": "zoe@example.org",
        "GIT_COMMITTER_NAME": ADJUDICATOR.name,
        "GIT_COMMITTER_EMAIL": ADJUDICATOR.email,
        "GIT_AUTHOR_DATE": f"{stamp} +0000",
        "GIT_COMMITTER_DATE": f"{stamp} +0000",
    }

    def commit_tree(*args: str) -> str:
        command = ["git", "-C", str(path), "-c", "gpg.format=ssh"]
        command += ["-c", f"user.signingKey={key}", "commit-tree", tree, *args]
        made = subprocess.run(command, env={**os.environ, **people}, capture_output=True)
        assert made.returncode == 0, made.stderr
        return made.stdout.decode().strip()

    first = commit_tree("-m", "one")
    sha = commit_tree(*(["-S"] if signed else []), "-p", first, "-m", "two\n\nbody, ü")
    raw = subprocess.run(
        ["git", "-C", str(path), "cat-file", "commit", sha], capture_output=True, check=True
    ).stdout
    info = parse_commit(sha, raw)
    gpgsig = _gpgsig(raw)
    assert (gpgsig is not None) == signed
    made = commit_bytes(info.tree, info.parents, info.author, info.committer, stamp, info.message)
    if gpgsig is None:
        assert made == raw
    else:
        # what git signed: the commit without its signature
        (tmp_path / "allowed").write_text(f"adjudicator {(tmp_path / 'key.pub').read_text()}")
        (tmp_path / "sig").write_text(gpgsig)
        verify = ["ssh-keygen", "-Y", "verify", "-f", str(tmp_path / "allowed"), "-n", "git"]
        checked = subprocess.run(
            [*verify, "-I", "adjudicator", "-s", str(tmp_path / "sig")],
            input=made,
            capture_output=True,
        )
        assert checked.returncode == 0, checked.stderr
        with_signature = commit_bytes(
            info.tree, info.parents, info.author, info.committer, stamp, info.message, gpgsig
        )
        assert with_signature == raw
