"""The service's file locks (adjudicator/home/locks.py), with no database configured: they
exclude the threads of one process and other processes, and a thread that waits for a
thread of its own process waits on that process's lock, not by polling the file."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from adjudicator.home import locks

HOLD_IN_ANOTHER_PROCESS = """
import sys
from pathlib import Path
from adjudicator.home.locks import file_lock
with file_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_threads_of_one_process_take_turns(tmp_path: Path) -> None:
    path = tmp_path / "locks" / "game.lock"
    inside = 0
    most = 0
    guard = threading.Lock()

    def work() -> None:
        nonlocal inside, most
        for _ in range(5):
            with locks.file_lock(path):
                with guard:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.001)  # give the others every chance to come in
                with guard:
                    inside -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == 1


def test_waiting_threads_do_not_poll_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight threads wait while a ninth holds the lock: none of them touches the lock file
    until it is released (before, each polled it every 50 ms, and fifty webhook threads
    polling the outbox's lock kept the interpreter busy switching between them)."""
    path = tmp_path / "outbox.lock"
    attempts: list[str] = []
    flock, open_file = fcntl.flock, os.open

    def counted_flock(descriptor: int, operation: int) -> None:
        attempts.append(threading.current_thread().name)
        flock(descriptor, operation)

    def counted_open(name: str, flags: int, mode: int = 0o777) -> int:
        if Path(name) == path:
            attempts.append(threading.current_thread().name)
        return open_file(name, flags, mode)

    monkeypatch.setattr(fcntl, "flock", counted_flock)
    monkeypatch.setattr(os, "open", counted_open)
    release = threading.Event()
    held = threading.Event()
    got: list[str] = []

    def holder() -> None:
        with locks.file_lock(path):
            held.set()
            release.wait(timeout=30)

    def waiter() -> None:
        with locks.file_lock(path):
            got.append(threading.current_thread().name)

    first = threading.Thread(target=holder, name="holder")
    first.start()
    assert held.wait(timeout=30)
    waiters = [threading.Thread(target=waiter, name=f"waiter-{i}") for i in range(8)]
    for thread in waiters:
        thread.start()
    time.sleep(0.3)  # several of a polling lock's intervals (filelock's were 50 ms)
    assert attempts == ["holder", "holder"]  # its file opened, then locked
    release.set()
    for thread in [first, *waiters]:
        thread.join(timeout=30)
    assert sorted(got) == sorted(t.name for t in waiters)


def test_another_process_is_excluded(tmp_path: Path) -> None:
    path = tmp_path / "game.lock"
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_IN_ANOTHER_PROCESS, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as other:
        assert other.stdout is not None and other.stdin is not None
        assert other.stdout.readline().strip() == "held"
        taken = threading.Event()

        def take() -> None:
            with locks.file_lock(path):
                taken.set()

        thread = threading.Thread(target=take)
        thread.start()
        assert not taken.wait(timeout=0.5)  # the other process holds it
        other.stdin.write("\n")
        other.stdin.flush()
        assert taken.wait(timeout=30)
        thread.join(timeout=30)


def test_a_thread_may_hold_two_locks_but_not_one_twice(tmp_path: Path) -> None:
    game, ledger = tmp_path / "game.lock", tmp_path / "ledger.lock"
    with locks.file_lock(game), locks.file_lock(ledger):
        pass
    with locks.file_lock(game):
        again = locks.file_lock(tmp_path / "." / "game.lock")
        with pytest.raises(RuntimeError, match="already holds"):
            again.__enter__()
    with locks.file_lock(game):  # released, and free again
        pass
