"""Git's fetch and push between a game's service clone and its forge, as processes that
never wait for a password and are given up after `GIT_TIMEOUT` (docs/web.md); a push dies
with the process that started it (`dies_with_parent`).

Each fetch records whether it reached the forge (`contact`, for `/healthz`).
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from contextlib import suppress
from functools import cache

import git

from adjudicator.forge import contact
from adjudicator.games.repo import BRANCH, REF, GameRepo

ORIGIN = "origin"
TRACKING = f"refs/remotes/{ORIGIN}/{BRANCH}"
GIT_TIMEOUT = 120  # seconds for one fetch or push
GIT_ENV = {"GIT_TERMINAL_PROMPT": "0"}  # never wait for a password nobody will type

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>

log = logging.getLogger(__name__)


@cache
def _prctl() -> Callable[..., int] | None:
    """libc's prctl, looked up once, in the parent: the child calls it and nothing else."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        found: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return found


def dies_with_parent() -> Callable[[], None] | None:
    """A `preexec_fn` that ties a git push to this process (Linux; None elsewhere): the
    kernel sends it SIGKILL when the thread that started it ends, as when this process is
    killed with SIGKILL. A push of a node that died must not go on to land on the forge
    once another node has taken the game over; its own session (for `_stop`) keeps it out
    of the node's process group, and nothing else reaches it once the node is gone. The
    thread that starts a push waits for it, so the tie holds for its whole life. The child
    runs only prctl and getppid between fork and exec.

    Pushes only: a preexec_fn makes Popen fork the whole process rather than vfork it
    (some 10 ms more a process on an idle node of 150 MB, 20 to 30 under load), and a
    fetch that outlives its node only writes to that node's clone, and ends by itself.
    `push` ties its process by `tied_command` instead where it can, which needs no
    preexec_fn."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def tie() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before the tie was made
            os._exit(1)

    return tie


# Run by `tied_command` between setpriv and git: the check `dies_with_parent` makes after
# its prctl (setpriv made it), that the process that started this one is still its parent.
_STILL_THE_PARENT = '[ "$PPID" = "$0" ] || exit 1; exec "$@"'


@cache
def _setpriv() -> str | None:
    """util-linux's setpriv, if it is there and sets a parent-death signal (2.33 and
    later): tried once, on a process of its own."""
    found = shutil.which("setpriv")
    if found is None or not sys.platform.startswith("linux") or not os.path.exists("/bin/sh"):
        return None
    try:
        tried = subprocess.run(
            [found, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", "exit 0"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return found if tried.returncode == 0 else None


def tied_command(command: list[str]) -> list[str] | None:
    """`command` tied to this process as `dies_with_parent` ties it (SIGKILL when the
    thread that starts it ends; an exit if this process died before the tie was made),
    by setpriv and a line of sh before it: with no preexec_fn, Popen vforks, and the
    fork of the whole process (and its copy-on-write faults while the push runs) are
    saved. None where setpriv cannot do it."""
    setpriv = _setpriv()
    if setpriv is None:
        return None
    tie = [setpriv, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", _STILL_THE_PARENT]
    return [*tie, str(os.getpid()), *command]


class RemoteError(RuntimeError):
    """The forge cannot be reached, refuses our pushes, or its history was rewritten."""


def run_git(repo: GameRepo, *args: str, tied: bool = False) -> str:
    """`tied`: the process dies with this one (`dies_with_parent`), for a push."""
    # GitPython 3.1's overloads of `execute` leave out the keywords its body takes.
    return str(
        repo.repo.git.execute(  # type: ignore[call-overload,unused-ignore]
            ["git", *args],
            env=GIT_ENV,
            kill_after_timeout=GIT_TIMEOUT,
            preexec_fn=dies_with_parent() if tied else None,  # passed on to Popen
        )
    )


def rev(repo: GameRepo, ref: str) -> str | None:
    """The commit a ref names, read in this process (None: no such ref)."""
    return repo.ref(ref)


def fetch(repo: GameRepo) -> str:
    """Fetch origin's main into origin/main (whatever it is: `update` judges it against the
    service's record, never against what the previous fetch saw)."""
    try:
        run_git(repo, "fetch", "--quiet", "--no-tags", ORIGIN, f"+{REF}:{TRACKING}")
    except git.GitCommandError as error:
        log.warning("fetch failed in %s: %s", repo.path, error.stderr)
        contact.record(repo.path.name, f"cannot fetch ({str(error.stderr).strip()[:200]})")
        raise RemoteError(f"cannot fetch the game from its forge ({repo.path.name})") from None
    contact.record(repo.path.name)
    after = rev(repo, TRACKING)
    if after is None:
        raise RemoteError(f"the forge repository of {repo.path.name} has no {BRANCH} branch")
    return after


def push(repo: GameRepo, meanwhile: Callable[[], object] | None = None) -> bool:
    """Push main to origin; False when the forge refused it (someone pushed meanwhile).

    `meanwhile` runs in this thread while the push is on its way: a push is mostly
    waiting on the forge (20 ms or more, seconds on a slow one), time the caller can use
    to prepare what follows a push that succeeds. What it raises is logged, never the
    push's outcome."""
    command = ["git", "push", "--quiet", "--porcelain", ORIGIN, f"{REF}:{REF}"]
    tied = tied_command(command)
    try:
        process = subprocess.Popen(
            command if tied is None else tied,
            cwd=repo.path,
            env={**os.environ, **GIT_ENV},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its transport (ssh, git-remote-http) killed with it
            preexec_fn=dies_with_parent() if tied is None else None,
        )
    except OSError as error:
        log.info("cannot start git push in %s: %s", repo.path, error)
        return False
    try:
        if meanwhile is not None:
            meanwhile()
    except Exception:
        log.exception("work done during the push of %s failed", repo.path.name)
    except BaseException:  # interrupted: the push is not left running behind
        _stop(process)
        raise
    try:
        _, stderr = process.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        _stop(process)
        log.info("push timed out in %s", repo.path)
        return False
    if process.returncode != 0:
        log.info("push refused in %s: %s", repo.path, stderr.decode("utf-8", "replace"))
        return False
    return True


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill a push and wait for it. The whole group: a transport child (ssh,
    git-remote-http) left running keeps the pipes open, and `communicate` would wait for
    it as long as the forge holds its connection."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def force_push(repo: GameRepo, start: str, upstream: str) -> bool:
    """Push `start` over the forge's rewritten main, only if it is still `upstream`."""
    lease = f"--force-with-lease={REF}:{upstream}"
    try:
        run_git(repo, "push", "--quiet", "--porcelain", lease, ORIGIN, f"{start}:{REF}", tied=True)
    except git.GitCommandError as error:
        log.info("forced push refused in %s: %s", repo.path, error.stderr)
        return False
    return True
