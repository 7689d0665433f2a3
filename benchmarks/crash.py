"""Crash safety under `kill -9`: many moves by email, each handling killed at a random moment.

For each move, `pamir inbound-email` is started on the player's message and killed with
SIGKILL after a random delay (from at once to after it finished); then the message is
delivered again, as an MTA does after a failure, and one reconciler pass runs, as the
scheduler's next tick would. A real SMTP server (aiosmtpd) counts what arrives. The script
prints, over all moves, the reports and answers lost and duplicated (both should be 0),
those sent again because the kill fell between the SMTP server's acceptance and the move
to sent/ (the one window SMTP cannot close; docs/email.md), and whether `pamir verify`
accepts the game.

    .venv/bin/python benchmarks/crash.py [--moves N] [--seed S] [--max-delay SECONDS]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "mail"))

from gitgame import PAMIR
from mailserver import mail_server
from test_crash_safety import (
    by_email,
    caught_in_the_act,
    email,
    inbound,
    moves_committed,
    next_move,
    tally,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--max-delay", type=float, default=2.0)
    args = parser.parse_args()
    chance = random.Random(args.seed)
    lost = duplicated = resent = killed = 0
    resendable: set[str] = set()
    seen_twice: set[str] = set()
    with tempfile.TemporaryDirectory() as scratch, mail_server() as server:
        home = Path(scratch) / "home"
        home.mkdir()
        os.environ["PAMIR_HOME"] = str(home)
        os.environ.pop("PAMIR_FAULT", None)
        # One report per adjudication, as the tests count them (tests/gitgame.py's home).
        os.environ["PAMIR_NOTIFY"] = "every"
        service = by_email(home, server)
        for number in range(1, args.moves + 1):
            player, text = next_move(service)
            raw = email(service, player, text)
            process = subprocess.Popen(
                [str(PAMIR), "inbound-email"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=service.env(),
            )
            assert process.stdin is not None
            process.stdin.write(raw)
            process.stdin.close()
            time.sleep(chance.uniform(0.0, args.max_delay))
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                killed += 1
            process.wait(timeout=60)
            resendable |= caught_in_the_act(service)
            again = inbound(service, raw)
            if again.returncode != 0 or moves_committed(service) != number:
                print(f"move {number}: not played after redelivery: {again.stderr.decode()}")
                break
            service.reconciler_pass()
            counted = tally(server, number, player)
            for expected, got in ((2, sum(counted.reports.values())), (1, counted.confirmations)):
                lost += max(expected - got, 0)
                duplicated += max(got - expected, 0)
            twice = set(counted.duplicate_ids) - seen_twice
            seen_twice |= twice
            duplicated += counted.refusals + len(twice - resendable)
            resent += len(twice & resendable)
        print(
            f"crash.py: {args.moves} moves by email, {killed} handlings killed mid-way: "
            f"{lost} mails lost, {duplicated} duplicated, "
            f"{resent} sent again from the acceptance window; "
            f"pamir verify: {'ok' if service.verified() else 'FAILED'}"
        )


if __name__ == "__main__":
    main()
