"""Pushing a forge-hosted game's main branch back (`transport.push`) to a forge that stops
answering: the push is given up after `GIT_TIMEOUT`, and nothing of it is left talking
to the forge (git's transport runs in a child process of its own: `git-remote-http`)."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gitgame import git

from adjudicator.forge import transport
from adjudicator.games.repo import GameRepo

HELD_SECONDS = 30.0  # how long the forge keeps a silent connection before it gives up


class SilentForge:
    """A TCP server that takes connections and never answers; it notes which ones the
    client closed (rather than itself, after `HELD_SECONDS`)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.closed_by_client: list[bool] = []
        self.threads: list[threading.Thread] = []
        self.stopping = threading.Event()
        self.accepting = threading.Thread(target=self._accept, daemon=True)
        self.accepting.start()

    def _accept(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._hold, args=(connection,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _hold(self, connection: socket.socket) -> None:
        connection.settimeout(HELD_SECONDS)
        with connection:
            try:
                while connection.recv(4096):  # the request, then the end when closed
                    pass
            except TimeoutError:
                self.closed_by_client.append(False)
                return
            except OSError:
                pass
            self.closed_by_client.append(True)

    def close(self) -> None:
        self.stopping.set()
        self.listener.close()
        for thread in self.threads:
            thread.join(HELD_SECONDS + 5)


@pytest.fixture
def forge() -> Iterator[SilentForge]:
    made = SilentForge()
    try:
        yield made
    finally:
        made.close()


def test_a_push_to_a_silent_forge_is_given_up_whole(
    tmp_path: Path, forge: SilentForge, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = tmp_path / "game"
    clone.mkdir()
    git(clone, "init", "-q", "-b", "main")
    (clone / "game.toml").write_text("id = 'g1'\n")
    git(clone, "add", "game.toml")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
    git(clone, "remote", "add", "origin", f"http://127.0.0.1:{forge.port}/g1.git")
    monkeypatch.setattr(transport, "GIT_TIMEOUT", 2)
    assert transport.push(GameRepo(clone)) is False
    # Once the push was given up, its transport no longer holds the forge's connection:
    # the forge sees it closed by the client, not left until it gives up itself.
    forge.close()
    assert forge.closed_by_client and all(forge.closed_by_client)


HELD_FORGE = """#!/bin/sh
sleep 30
exit 1
"""

PUSH_IN_A_PROCESS = """
import sys
from adjudicator.forge import transport
from adjudicator.games.repo import GameRepo
print("pushing", flush=True)
transport.push(GameRepo(sys.argv[1]))
"""


def _pushes_in(clone: Path) -> list[int]:
    """The `git push` processes working in `clone` (from /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            here = (entry / "cwd").resolve()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if command[:2] == [b"git", b"push"] and here == clone.resolve():
            found.append(int(entry.name))
    return found


def _wait_for(condition: Callable[[], object], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_push_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    """SIGKILL to the process pushing (not its process group): its `git push` is killed
    too, whether it was tied by setpriv (`tied_command`) or by a preexec_fn."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    hook = origin / "hooks" / "pre-receive"
    hook.write_text(HELD_FORGE, encoding="utf-8")
    hook.chmod(0o755)
    clone = tmp_path / "game"
    clone.mkdir()
    git(clone, "init", "-q", "-b", "main")
    (clone / "game.toml").write_text("id = 'g1'\n")
    git(clone, "add", "game.toml")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start")
    git(clone, "remote", "add", "origin", str(origin))
    pusher = subprocess.Popen(
        [sys.executable, "-c", PUSH_IN_A_PROCESS, str(clone)], stdout=subprocess.PIPE
    )
    try:
        assert pusher.stdout is not None and pusher.stdout.readline() == b"pushing\n"
        assert _wait_for(lambda: _pushes_in(clone), 10), "no git push started"
    finally:
        pusher.kill()  # the process only
        pusher.communicate(timeout=30)
    assert _wait_for(lambda: not _pushes_in(clone), 5), "the git push outlived its process"
