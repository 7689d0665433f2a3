"""Helpers for the end-to-end tests of game repositories: real Git, the real `pamir` script.

Every test gets its own PAMIR_HOME (and its own HOME, so that no user or system Git
configuration leaks in) through `isolate`, which each test module calls from an autouse
fixture. Games are played in-process through `adjudicator.games.pipeline` when the test is not
about the command line, and through the installed `pamir` console script when it is.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import engine
from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import replay, snapshot
from adjudicator.home.paths import home_from
from engine.game import legal_seat_actions

PAMIR = Path(sys.executable).parent / "pamir"
MAIN = "refs/heads/main"
TWO = ("alice", "bob")
THREE = ("alice", "bob", "carol")
SECRET = hashlib.sha256(b"pamir end-to-end tests").hexdigest()
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Player",
    "GIT_AUTHOR_EMAIL": "player@example.org",
    "GIT_COMMITTER_NAME": "Test Player",
    "GIT_COMMITTER_EMAIL": "player@example.org",
}


def isolate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh PAMIR_HOME (returned) and a Git environment free of outside configuration."""
    home = tmp_path / "pamir-home"
    home.mkdir()
    user = tmp_path / "user-home"
    user.mkdir()
    monkeypatch.setenv("PAMIR_HOME", str(home))
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    # One report per adjudication, as the tests written for it count (`notify every`); the
    # default, one mail a turn, has tests of its own (tests/mail/test_turn_mails.py).
    monkeypatch.setenv("PAMIR_NOTIFY", "every")
    for key in ("PAMIR_FAULT", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(key, raising=False)
    return home


def current_home() -> Path:
    """The PAMIR_HOME `isolate` set: the data folder of the service under test."""
    return home_from(os.environ)


def run(
    args: Sequence[str],
    cwd: Path | None = None,
    *,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def pamir(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `pamir` console script."""
    return run([str(PAMIR), *map(str, args)], env=env)


@contextmanager
def counting_git() -> Iterator[list[str]]:
    """The git commands (`fetch`, `push`, ...) this process starts meanwhile, GitPython's
    included, and a push started through setpriv (`transport.tied_command`), in order."""
    started: list[str] = []
    original = subprocess.Popen.__init__

    def counting(popen: Any, args: Any, *rest: Any, **options: Any) -> None:
        names = [Path(str(arg)).name for arg in args] if isinstance(args, list | tuple) else []
        if names[:1] == ["git"]:
            started.append(str(args[1]))
        elif names[:1] == ["setpriv"] and "git" in names:  # a push tied to this process
            started.append(str(args[names.index("git") + 1]))
        original(popen, args, *rest, **options)

    subprocess.Popen.__init__ = counting  # type: ignore[method-assign,assignment]
    try:
        yield started
    finally:
        subprocess.Popen.__init__ = original  # type: ignore[method-assign]


def pamir_ok(*args: str | Path, env: dict[str, str] | None = None) -> str:
    done = pamir(*args, env=env)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    return done.stdout


def git(cwd: Path, *args: str) -> str:
    done = run(["git", *args], cwd)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def head(path: Path) -> str:
    return git(path, "rev-parse", MAIN).strip()


def refs(path: Path) -> str:
    return git(path, "for-each-ref", "--format=%(refname) %(objectname)")


def count_commits(path: Path, ref: str = MAIN) -> int:
    return int(git(path, "rev-list", "--count", ref))


def status(path: Path) -> str:
    """`git status --porcelain` of a working tree: empty when it matches HEAD."""
    return git(path, "status", "--porcelain", "--untracked-files=all")


def reachable_text(path: Path) -> str:
    """The content of every object reachable from any ref: commits, trees and blobs."""
    listing = git(path, "rev-list", "--all", "--objects")
    ids = "".join(line.split()[0] + "\n" for line in listing.splitlines())
    batch = ["git", "cat-file", "--batch"]
    done = subprocess.run(batch, cwd=path, input=ids.encode(), capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace")  # trees hold binary object ids


def show(path: Path, rev: str, file: str) -> str:
    return git(path, "show", f"{rev}:{file}")


def changed_files(path: Path, rev: str = MAIN) -> set[str]:
    """The files a commit changes with respect to its (single) parent."""
    return set(git(path, "diff", "--name-only", f"{rev}^", rev).split())


def trailer(path: Path, key: str, rev: str = MAIN) -> str:
    """A trailer's value as Git itself parses the commit message."""
    return git(path, "log", "-1", f"--format=%(trailers:key={key},valueonly)", rev).strip()


def sha256(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def state_json(path: Path, rev: str = MAIN) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(show(path, rev, "state.json"))
    return data


@contextmanager
def opened(path: Path) -> Iterator[GameRepo]:
    repo = GameRepo(path)
    try:
        yield repo
    finally:
        repo.repo.close()


def create(
    path: Path, names: Sequence[str] = TWO, *, bare: bool = False, secret: str = SECRET
) -> Path:
    """A new game, created in-process (the secret goes to the current PAMIR_HOME)."""
    repo = create_game(
        path,
        [(n, f"{n}@example.org") for n in names],
        home=current_home(),
        secret=secret,
        bare=bare,
    )
    repo.repo.close()
    return path


def full_state(path: Path, upto: int | None = None) -> engine.State:
    """The full position replayed from the repository (after move `upto`, if given)."""
    with opened(path) as repo:
        snap = snapshot(repo)
        if upto is None:
            return position(snap, current_home())
        return replay(snap, current_home(), upto=upto)[0]


def next_number(path: Path) -> int:
    with opened(path) as repo:
        return snapshot(repo).next_number


def decider(state: engine.State) -> tuple[str, list[str]]:
    """The first player who must decide now, and their legal actions in the notation."""
    choices = legal_seat_actions(state)
    assert choices, "nobody has anything to decide"
    seat = choices[0][0]
    return state.name(seat), [engine.format_action(a) for s, a in choices if s == seat]


def bot_submission(
    state: engine.State, rng: random.Random, *, whole_turn: bool = False
) -> tuple[str, str]:
    """A seeded random bot's move file: one legal action, or (whole_turn) every decision of
    its author until someone else must decide."""
    seat = rng.choice(legal_seat_actions(state))[0]
    lines: list[str] = []
    while state.phase != "over":
        mine = [a for s, a in legal_seat_actions(state) if s == seat]
        if not mine:
            break
        action = rng.choice(mine)
        lines.append(engine.format_action(action))
        state = engine.apply(state, seat, action)
        if not whole_turn:
            break
    return state.name(seat), "\n".join(lines) + "\n"


def play(path: Path, moves: int, seed: int, *, whole_turn: bool = False) -> int:
    """Submit up to `moves` bot move files through the pipeline; return how many were played
    (fewer when the game ends)."""
    rng = random.Random(seed)
    played = 0
    with opened(path) as repo:
        while played < moves:
            state = position(snapshot(repo), current_home())
            if state.phase == "over":
                break
            player, text = bot_submission(state, rng, whole_turn=whole_turn)
            submit(repo, player, text, home=current_home())
            played += 1
    return played


def copy_game(source: Path, source_home: Path, target: Path) -> Path:
    """A copy of a game repository, with its secret copied into the current PAMIR_HOME."""
    shutil.copytree(source, target, symlinks=True)
    home = current_home()
    (home / "secrets").mkdir(exist_ok=True)
    for secret in (source_home / "secrets").iterdir():
        shutil.copy(secret, home / "secrets" / secret.name)
    return target


def player_email(clone: Path, player: str) -> str:
    """The email game.toml gives a player (the author a pushed move file needs)."""
    game = tomllib.loads((clone / "game.toml").read_text(encoding="utf-8"))
    for entry in game["players"]:
        if entry["name"].lower() == player.lower():
            return str(entry["email"])
    return GIT_IDENTITY["GIT_AUTHOR_EMAIL"]


def write_move(
    clone: Path, number: int, player: str, text: str, *, email: str | None = None
) -> str:
    """Add and commit a move file in a player's clone (authored by that player, unless
    `email` says otherwise); return its path in the repository."""
    name = f"moves/{number:04d}-{player}.txt"
    (clone / "moves").mkdir(exist_ok=True)
    (clone / name).write_text(text, encoding="utf-8")
    git(clone, "add", name)
    author = f"{player} <{email or player_email(clone, player)}>"
    git(clone, "commit", "-q", "--author", author, "-m", f"{player}: move {number}")
    return name


def push(clone: Path, *refspec: str) -> subprocess.CompletedProcess[str]:
    return run(["git", "push", "origin", *(refspec or ("main",))], clone)
