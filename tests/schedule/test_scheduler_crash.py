"""A `pamir scheduler --once` that dies right after a timed-out move's commit loses
nothing: the next run mails that move's report to every player once, and writes the
private sections the crash left unwritten.

The real command runs as a process against a real SMTP server (aiosmtpd); the game's
1-hour deadline was committed two hours ago, so the first run times the decision out and
dies at `PAMIR_FAULT=after-ref` (the commit's ref written, nothing after it).
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from gitgame import PAMIR, SECRET, TWO
from mailserver import DOMAIN, MAIL_FROM, mail_server, settings_for

from adjudicator.games import newgame
from adjudicator.games.newgame import create_game
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from adjudicator.home.faults import FAULT_EXIT
from adjudicator.home.paths import private_dir

pytestmark = pytest.mark.usefixtures("home")


def once(home: Path, port: int, fault: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PAMIR_HOME": str(home),
        "PAMIR_SMTP_HOST": "127.0.0.1",
        "PAMIR_SMTP_PORT": str(port),
        "PAMIR_SMTP_SECURITY": "none",
        "PAMIR_MAIL_FROM": MAIL_FROM,
        "PAMIR_REPLY_LOCAL": "play",
        "PAMIR_REPLY_DOMAIN": DOMAIN,
    }
    env.pop("PAMIR_FAULT", None)
    if fault is not None:
        env["PAMIR_FAULT"] = fault
    return subprocess.run(
        [str(PAMIR), "scheduler", "--once"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_crash_after_a_timed_out_moves_commit_loses_no_mail_and_no_private_section(
    home: Path,
) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        players = [(n, f"{n}@example.org") for n in TWO]
        # The game began two hours ago, with 1-hour turns: its first decision is overdue.
        started = datetime.now(UTC) - timedelta(hours=2)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(newgame, "now", lambda: started)
            repo = create_game(
                settings.games_dir / "tt", players, home=home, secret=SECRET, turn_hours=1
            )
        crashed = once(home, server.port, "after-ref")
        assert crashed.returncode == FAULT_EXIT, crashed.stderr
        assert snapshot(repo).adjudicated == 1  # the timed-out move is committed
        assert "(deadline passed)" in str(repo.repo.commit("refs/heads/main").summary)

        again = once(home, server.port)
        assert again.returncode == 0, again.stderr
        reports = Counter(
            str(m["X-Pamir-Player"]) for m in server.messages if str(m["X-Pamir-Move"]) == "1"
        )
        assert reports == Counter(dict.fromkeys(TWO, 1))  # none lost, none twice
        ids = Counter(str(m["Message-ID"]) for m in server.messages)
        assert [i for i, n in ids.items() if n > 1] == []
        folder = private_dir(home, "tt")
        assert all((folder / f"0001-{name}.md").is_file() for name in TWO)
        third = once(home, server.port)  # nothing more is sent
        assert third.returncode == 0
        assert sum(1 for m in server.messages if str(m["X-Pamir-Move"]) == "1") == 2
        assert verify(GameRepo(repo.path), home).ok
        repo.repo.close()
