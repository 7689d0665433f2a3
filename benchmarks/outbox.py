"""The outbox as it fills: looking up a message's key and queuing a message, with
outbox/sent holding more and more messages.

    python benchmarks/outbox.py [--sizes 1000,10000,30000] [--repeat 50]

For each size, in a temporary PAMIR_HOME (removed afterwards): outbox/sent is filled to
that many messages (empty files named as queued messages are), the first queued message
makes the outbox's index of keys from them (timed once), then the median time of
`outgoing.queued` for a key that is not there and of `outgoing.queue` for a new keyed
message (each writing and flushing its link and its file). The last line is one JSON
object of the figures. A look used to list outbox/sent: it grew with every mail sent.
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from email.message import EmailMessage
from pathlib import Path

from adjudicator.home.settings import Settings
from adjudicator.mail import outgoing


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
        sent = outgoing.outbox(settings, outgoing.SENT)
        for i in range(size):
            name = f"20260101T000000{i:06d}-game{i % 50}-{i % 400:04d}-p{i % 5}-report-{i:012x}"
            (sent / f"{name}.eml").write_bytes(b"")
        started = time.perf_counter()
        outgoing.queue(settings, message(), "first-0001-alice-report-000000000000")
        index = time.perf_counter() - started
        looks, queues = [], []
        for i in range(repeat):
            started = time.perf_counter()
            outgoing.queued(settings, f"absent-{i:04d}-bob-report-000000000000")
            looks.append(time.perf_counter() - started)
            started = time.perf_counter()
            outgoing.queue(settings, message(), f"new-{i:04d}-carol-report-000000000000")
            queues.append(time.perf_counter() - started)
        return {
            "sent": size,
            "index_ms": round(index * 1000, 1),
            "lookup_ms": median_ms(looks),
            "queue_ms": median_ms(queues),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,30000")
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args(argv)
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
