"""The outbox as it fills: looking up a message's key and queuing a message, with
outbox/sent holding more and more messages; and (`--move`) a move's mail: its reports to
four players queued and delivered.

    python benchmarks/outbox.py [--sizes 1000,10000,30000] [--repeat 50]
    python benchmarks/outbox.py --move [--repeat 50] [--connections 1,4]

For each size, in a temporary PAMIR_HOME (removed afterwards): outbox/sent is filled to
that many messages (empty files named as queued messages are), the first queued message
makes the outbox's index of keys from them (timed once), then the median time of
`outbox.queued` for a key that is not there and of `outbox.queue` for a new keyed
message (each writing and flushing its link and its file). The last line is one JSON
object of the figures. A look used to list outbox/sent: it grew with every mail sent.
Timings are printed, never asserted.

With `--move`: four report-size messages (about 60 KB each, most of it a picture in base64)
to four players, in a temporary PAMIR_HOME, against a real SMTP server on 127.0.0.1
(aiosmtpd, accepting everything): the median time of queuing the four one `queue` at a time,
then all four with one `queue_many` (where the code has it), and of `deliver` sending them,
for each number of SMTP sessions in `--connections` (1 is one session sending the
messages one after the other, as before `smtp_connections`).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.policy import Policy
from functools import lru_cache
from pathlib import Path

from adjudicator.home.settings import Settings

try:
    from adjudicator.mail import outbox
    from adjudicator.mail.outbox.folders import state_folder
except ImportError:  # a checkout from before the outbox package, to compare with
    from adjudicator.mail import outgoing as outbox  # type: ignore[attr-defined, no-redef]

    state_folder = outbox.outbox  # type: ignore[attr-defined]


def message() -> EmailMessage:
    made = EmailMessage()
    made["From"] = "pamir@example.org"
    made["To"] = "alice@example.org"
    made["Subject"] = "Move 1"
    made.set_content("a report")
    return made


def median_ms(work: list[float]) -> float:
    return round(statistics.median(work) * 1000, 3)


def measure(size: int, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(home=Path(folder))
        sent = state_folder(settings, outbox.SENT)
        for i in range(size):
            name = f"20260101T000000{i:06d}-game{i % 50}-{i % 400:04d}-p{i % 5}-report-{i:012x}"
            (sent / f"{name}.eml").write_bytes(b"")
        started = time.perf_counter()
        outbox.queue(settings, message(), "first-0001-alice-report-000000000000")
        index = time.perf_counter() - started
        looks, queues = [], []
        for i in range(repeat):
            started = time.perf_counter()
            outbox.queued(settings, f"absent-{i:04d}-bob-report-000000000000")
            looks.append(time.perf_counter() - started)
            started = time.perf_counter()
            outbox.queue(settings, message(), f"new-{i:04d}-carol-report-000000000000")
            queues.append(time.perf_counter() - started)
        return {
            "sent": size,
            "index_ms": round(index * 1000, 1),
            "lookup_ms": median_ms(looks),
            "queue_ms": median_ms(queues),
        }


PLAYERS = ("alice", "bob", "carol", "dave")


class Composed(EmailMessage):
    """A message flattened once: the queuing is timed, not the email package's writing."""

    flat: bytes | None = None

    def as_bytes(self, unixfrom: bool = False, policy: Policy | None = None) -> bytes:
        if self.flat is None:
            self.flat = super().as_bytes(unixfrom, policy)
        return self.flat


@lru_cache(maxsize=len(PLAYERS))
def report(player: str) -> EmailMessage:
    """A message the size of a move's report: text, and a picture of 44 KB in base64 (made
    once a player: the queuing is timed, not the composing)."""
    made = Composed()
    made["From"] = "pamir@example.org"
    made["To"] = f"{player}@players.example"
    made["Subject"] = "[bench] Move 1"
    made["X-Pamir-Game"] = "bench"
    made["X-Pamir-Player"] = player
    made["X-Pamir-Move"] = "1"
    made.set_content("A report.\n" * 400)
    made.add_attachment(os.urandom(44_000), maintype="image", subtype="png", filename="b.png")
    return made


def key(player: str, number: int) -> str:
    return f"bench-{number:04d}-{player}-report-{number:012x}"


def queue_each(settings: Settings, number: int) -> None:
    for player in PLAYERS:
        outbox.queue(settings, report(player), key(player, number))


def queue_together(settings: Settings, number: int) -> None:
    messages = [(report(p), key(p, number)) for p in PLAYERS]
    if hasattr(outbox, "queue_many"):
        outbox.queue_many(settings, messages)
    else:  # the code before queue_many
        for message, name in messages:
            outbox.queue(settings, message, name)


def timed_ms(work: Callable[[Settings, int], object], settings: Settings, numbers: range) -> float:
    """The median time of `work(settings, number)` for each of `numbers`."""
    times = []
    for number in numbers:
        started = time.perf_counter()
        work(settings, number)
        times.append(time.perf_counter() - started)
    return median_ms(times)


def queue_and_deliver(settings: Settings, number: int) -> float:
    queue_together(settings, number)
    started = time.perf_counter()
    outbox.deliver(settings)
    return time.perf_counter() - started


SERVER = """
import asyncio, sys
from aiosmtpd.controller import Controller

class Answering:
    def __init__(self, seconds):
        self.seconds = seconds

    async def handle_MAIL(self, server, session, envelope, address, options):
        await asyncio.sleep(self.seconds)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, options):
        await asyncio.sleep(self.seconds)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        await asyncio.sleep(self.seconds)
        return "250 OK"

controller = Controller(Answering(float(sys.argv[2])), hostname="127.0.0.1", port=int(sys.argv[1]))
controller.start()
print("ready", flush=True)
sys.stdin.read()
controller.stop()
"""


@contextmanager
def mail_server(reply_ms: float) -> Iterator[int]:
    """A real SMTP server (aiosmtpd) accepting everything, in a process of its own as a mail
    server is, answering MAIL, RCPT and DATA each `reply_ms` late: its port."""
    with socket.socket() as probe:  # a free port (aiosmtpd wants one named)
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    command = [sys.executable, "-c", SERVER, str(port), str(reply_ms / 1000)]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None and server.stdout.readline() == "ready\n"
    try:
        yield port
    finally:
        server.communicate("", timeout=10)


def measure_move(repeat: int, connections: list[int], reply_ms: float) -> dict[str, float]:
    """Median times of queuing a move's four reports and of delivering them."""
    found: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder, mail_server(reply_ms) as port:
        settings = Settings(home=Path(folder))
        queue_each(settings, 0)  # the index of keys made, the folders there
        found["queue_each_ms"] = timed_ms(queue_each, settings, range(1, repeat + 1))
        found["queue_many_ms"] = timed_ms(queue_together, settings, range(1000, 1000 + repeat))
        state_folder(settings, outbox.PENDING).rename(Path(folder) / "queued")
        for sessions in connections:
            values: dict[str, object] = {"home": Path(folder), "smtp_host": "127.0.0.1"}
            values.update(smtp_port=port, smtp_security="none")
            if sessions != 1 or "smtp_connections" in Settings.model_fields:
                values["smtp_connections"] = sessions
            sending = Settings.model_validate(values)
            first = 10_000 * (sessions + 1)
            times = [queue_and_deliver(sending, n) for n in range(first, first + repeat)]
            found[f"deliver_{sessions}_ms"] = median_ms(times)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,30000")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--move", action="store_true", help="a move's four reports instead")
    parser.add_argument("--connections", default="1,4", help="with --move: sessions to try")
    parser.add_argument(
        "--reply-ms", type=float, default=0.0, help="with --move: the server's wait per answer"
    )
    args = parser.parse_args(argv)
    if args.move:
        connections = [int(c) for c in args.connections.split(",")]
        move = measure_move(args.repeat, connections, args.reply_ms)
        print(
            f"a move's 4 reports (~60 KB) queued: one at a time {move['queue_each_ms']} ms,"
            f" together {move['queue_many_ms']} ms (medians of {args.repeat})"
        )
        for sessions in connections:
            print(
                f"delivered over up to {sessions} SMTP session(s):"
                f" {move[f'deliver_{sessions}_ms']} ms (median of {args.repeat})"
            )
        print(json.dumps(move))
        return 0
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        found = measure(size, args.repeat)
        results.append(found)
        print(
            f"{size:>7} messages in outbox/sent: index made in {found['index_ms']} ms;"
            f" a key looked up in {found['lookup_ms']} ms, a message queued in"
            f" {found['queue_ms']} ms (medians of {args.repeat})"
        )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
