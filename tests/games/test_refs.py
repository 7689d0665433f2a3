"""Moving refs in-process (`adjudicator.games.refs`, `GameRepo.update_ref`) as `git update-ref`
moves them: compare-and-swap under git's own `<ref>.lock`, loose or packed refs, the same
reflogs. Each case is checked against real git: `git rev-parse`, `git reflog`, `git fsck`,
and what `git update-ref` itself writes in a twin repository.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from pathlib import Path

import pytest
from gitgame import GIT_IDENTITY, counting_git, git

from adjudicator.games import refs
from adjudicator.games.repo import ZERO, GameRepo, RepoError, StaleHead

pytestmark = pytest.mark.usefixtures("home")

MAIN = "refs/heads/main"


def repository(path: Path, *, bare: bool = False, commits: int = 3) -> tuple[GameRepo, list[str]]:
    """A real repository with a line of `commits` empty commits on main; their ids, oldest
    first. A bare one gets them from a scratch clone, as a push would."""
    work = path.parent / f"{path.name}-work" if bare else path
    git(path.parent, "init", "-q", "--initial-branch=main", str(work))
    for number in range(commits):
        git(work, "commit", "-q", "--allow-empty", "-m", f"commit {number}")
    made = git(work, "rev-list", "--reverse", MAIN).split()
    if bare:
        git(path.parent, "clone", "-q", "--bare", str(work), str(path))
    return GameRepo(path), made


def reflog(path: Path, ref: str) -> list[str]:
    return git(path, "reflog", "show", "--format=%H", ref, "--").split()


def fsck(path: Path) -> None:
    done = subprocess.run(["git", "fsck", "--full"], cwd=path, capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr, done.stderr


def lock_of(repo: GameRepo, ref: str) -> Path:
    return Path(repo.repo.common_dir) / f"{ref}.lock"


# -- compare and swap ----------------------------------------------------------------------


def test_the_ref_moves_when_it_is_where_the_caller_expects(tmp_path: Path) -> None:
    repo, (first, _, last) = repository(tmp_path / "game")
    repo.update_ref(MAIN, first, last)
    assert git(repo.path, "rev-parse", MAIN).strip() == first
    assert repo.head() == first
    assert reflog(repo.path, MAIN)[0] == first  # `git reflog` reads the new entry
    assert reflog(repo.path, "HEAD")[0] == first  # HEAD points at main: its log too
    assert not lock_of(repo, MAIN).exists()
    assert not (repo.path / ".git" / "HEAD.lock").exists()
    fsck(repo.path)


def test_a_stale_expected_value_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    repo, (first, middle, last) = repository(tmp_path / "game")
    before = reflog(repo.path, MAIN)
    with pytest.raises(StaleHead):
        repo.update_ref(MAIN, first, middle)
    with pytest.raises(StaleHead):
        repo.update_ref(MAIN, first, None)  # "must not exist yet"
    assert git(repo.path, "rev-parse", MAIN).strip() == last
    assert reflog(repo.path, MAIN) == before
    assert not lock_of(repo, MAIN).exists()


def test_a_ref_expected_absent_is_created(tmp_path: Path) -> None:
    repo, (first, _, _) = repository(tmp_path / "game")
    repo.update_ref("refs/heads/other", first, None)
    repo.update_ref("refs/heads/zeroed", first, ZERO)  # git's way of saying "absent"
    assert (
        git(repo.path, "rev-parse", "refs/heads/other", "refs/heads/zeroed").split() == [first] * 2
    )
    with pytest.raises(StaleHead):
        repo.update_ref("refs/heads/new", first, first)  # expected to exist: it does not
    assert reflog(repo.path, "refs/heads/other") == [first]
    fsck(repo.path)


def test_a_held_lock_means_failure_and_is_left_to_its_owner(tmp_path: Path) -> None:
    repo, (first, _, last) = repository(tmp_path / "game")
    lock_of(repo, MAIN).write_text(f"{first}\n", encoding="ascii")  # another writer's
    with pytest.raises(StaleHead, match="lock"):
        repo.update_ref(MAIN, first, last)
    with pytest.raises(StaleHead, match="lock"):
        repo.set_ref(MAIN, first)
    assert lock_of(repo, MAIN).exists()
    lock_of(repo, MAIN).unlink()
    assert git(repo.path, "rev-parse", MAIN).strip() == last


def test_a_lock_released_within_the_timeout_is_waited_for(tmp_path: Path) -> None:
    """git retries a held ref lock for core.filesRefLockTimeout milliseconds."""
    repo, (first, _, last) = repository(tmp_path / "game")
    git(repo.path, "config", "core.filesRefLockTimeout", "10000")
    lock = lock_of(repo, MAIN)
    lock.write_text("", encoding="ascii")
    threading.Timer(0.05, lock.unlink).start()
    repo.update_ref(MAIN, first, last)
    assert git(repo.path, "rev-parse", MAIN).strip() == first


def test_a_packed_ref_is_compared_and_moved(tmp_path: Path) -> None:
    repo, (first, middle, last) = repository(tmp_path / "game")
    git(repo.path, "pack-refs", "--all")
    assert not (repo.path / ".git" / MAIN).exists()
    with pytest.raises(StaleHead):
        repo.update_ref(MAIN, first, middle)
    with pytest.raises(StaleHead):
        repo.update_ref(MAIN, first, None)
    repo.update_ref(MAIN, middle, last)
    assert git(repo.path, "rev-parse", MAIN).strip() == middle
    assert git(repo.path, "for-each-ref", "--format=%(objectname)", MAIN).strip() == middle
    assert reflog(repo.path, MAIN)[0] == middle
    fsck(repo.path)


def test_set_ref_moves_whatever_the_ref_is_at(tmp_path: Path) -> None:
    repo, (first, _, _) = repository(tmp_path / "game")
    repo.set_ref("refs/remotes/origin/main", first)  # absent before
    repo.set_ref(MAIN, first)
    assert git(repo.path, "rev-parse", "refs/remotes/origin/main", MAIN).split() == [first] * 2
    assert reflog(repo.path, "refs/remotes/origin/main") == [first]


def test_a_ref_is_never_pointed_at_an_object_that_is_not_there(tmp_path: Path) -> None:
    repo, (_, _, last) = repository(tmp_path / "game")
    with pytest.raises(RepoError):
        repo.update_ref(MAIN, "1" * 40, last)
    assert git(repo.path, "rev-parse", MAIN).strip() == last


# -- the same files as git update-ref ------------------------------------------------------


def entries(path: Path, log: str) -> list[str]:
    """A reflog's lines without their time stamps."""
    text = (path / log).read_text(encoding="utf-8")
    return [re.sub(r"> \d+ [+-]\d{4}", "> TIME", line) for line in text.splitlines()]


@pytest.mark.parametrize("bare", [False, True])
def test_the_reflogs_are_those_git_update_ref_writes(
    tmp_path: Path, bare: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(key, "1700000000 +0000")  # the twins' commits are the same
    ours, made = repository(tmp_path / "ours", bare=bare)
    theirs, again = repository(tmp_path / "theirs", bare=bare)
    assert made == again
    folder = "" if bare else ".git/"
    for new, old in ((made[0], made[2]), (made[1], made[0])):
        ours.update_ref(MAIN, new, old)
        git(theirs.path, "update-ref", MAIN, new, old)
        ours.set_ref("refs/remotes/origin/main", new)
        git(theirs.path, "update-ref", "refs/remotes/origin/main", new)
    ours.set_ref(MAIN, made[1])  # already there: git writes nothing, nor do we
    git(theirs.path, "update-ref", MAIN, made[1])
    for log in ("logs/HEAD", f"logs/{MAIN}", "logs/refs/remotes/origin/main"):
        mine, gits = ours.path / folder / log, theirs.path / folder / log
        assert mine.exists() == gits.exists(), log
        if gits.exists():
            assert entries(ours.path, folder + log) == entries(theirs.path, folder + log)
    assert (ours.path / folder / MAIN).read_text() == (theirs.path / folder / MAIN).read_text()
    assert oct((ours.path / folder / MAIN).stat().st_mode) == oct(
        (theirs.path / folder / MAIN).stat().st_mode
    )
    fsck(ours.path)


def test_a_bare_repository_keeps_reflogs_when_configured_to(tmp_path: Path) -> None:
    repo, (first, _, last) = repository(tmp_path / "game.git", bare=True)
    git(repo.path, "config", "core.logAllRefUpdates", "true")
    repo.update_ref(MAIN, first, last)
    assert reflog(repo.path, MAIN) == [first]


def test_the_reflog_names_the_committer_git_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, made = repository(tmp_path / "game")
    for key in GIT_IDENTITY:
        monkeypatch.delenv(key)
    monkeypatch.delenv("EMAIL", raising=False)

    def gits() -> str:
        """Whom `git update-ref` names in a reflog (`git var` refuses a guessed one)."""
        git(repo.path, "update-ref", "refs/heads/probe", made[0])
        line = (repo.path / ".git" / "logs" / "refs" / "heads" / "probe").read_text()
        git(repo.path, "update-ref", "-d", "refs/heads/probe")
        return line.split(" ", 2)[2].rsplit(" ", 2)[0]

    name, email = refs.committer(refs.lookup(repo.repo.config_reader()))
    assert f"{name} <{email}>" == gits()  # no identity anywhere: the account's, as git's
    git(repo.path, "config", "user.name", " Ada Lovelace, ")
    git(repo.path, "config", "user.email", "<ada@example.org>")
    name, email = refs.committer(refs.lookup(repo.repo.config_reader()))
    assert f"{name} <{email}>" == gits() == "Ada Lovelace <ada@example.org>"


@pytest.mark.parametrize(
    ("setting", "fsyncs"),
    [
        (None, False),  # git's default: objects' packs and metadata, never references
        ("reference", True),
        ("committed", True),
        ("all,-reference", False),
        ("reference,none", False),
        ("objects,derived-metadata", False),
    ],
)
def test_refs_are_fsynced_only_when_core_fsync_says_so(setting: str | None, fsyncs: bool) -> None:
    values = {("core", "fsync"): setting}
    assert refs._fsyncs_refs(lambda section, option: values.get((section, option))) == fsyncs


def test_a_shared_repository_is_left_to_git(tmp_path: Path) -> None:
    repo, (first, middle, last) = repository(tmp_path / "game.git", bare=True)
    git(repo.path, "config", "core.sharedRepository", "group")
    with pytest.raises(StaleHead):
        repo.update_ref(MAIN, first, middle)
    with counting_git() as started:
        repo.update_ref(MAIN, first, last)
    assert started == ["update-ref"]
    assert (repo.path / MAIN).stat().st_mode & 0o060 == 0o060  # git's group permissions
    assert git(repo.path, "rev-parse", MAIN).strip() == first


# -- no process ----------------------------------------------------------------------------


def test_moving_a_ref_starts_no_git_process(tmp_path: Path) -> None:
    repo, (first, _, last) = repository(tmp_path / "game")
    repo.head()
    repo.parents(first)  # objects read once, as a submission has read them
    with counting_git() as started:
        repo.update_ref(MAIN, first, last)
        repo.set_ref("refs/remotes/origin/main", first)
    assert started == []
    assert os.listdir(repo.path / ".git" / "refs" / "heads") == ["main"]
