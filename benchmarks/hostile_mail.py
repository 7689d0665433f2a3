"""What one inbound message costs: `python benchmarks/hostile_mail.py [--base PATH]`.

Builds an ordinary reply and hostile messages of about 1 MB (under `max_inbound_bytes`):
RFC 2047 encoded words in Subject, From, Cc or Message-ID, thousands of header fields,
MIME parts nested thousands deep, thousands of parts, the costliest message that is
still inside every bound, and bodies that are costly to read (the most lines, a
megabyte of HTML). Each is addressed to a valid reply address of a real game, from
that player's own address (the worst case: the sender knows the address), and handed to
`adjudicator.mail.incoming.handle_message` in a subprocess of its own, twice: once timed
(CPU seconds of the call), once under tracemalloc (the peak of the call's allocations);
the subprocess's maximum resident set is printed too. Then the bounds in force.

With `--base PATH` (another checkout, e.g. a `git worktree` of the branch's base), every
message is also handed to that version's code, in the same run, under a limit of
`--limit-mb` of address space and `--cpu-limit` CPU seconds per subprocess: the old parse
path runs out of either on the hostile messages, and the row says so.

    git worktree add ../pamir-base BASE
    .venv/bin/python benchmarks/hostile_mail.py --base ../pamir-base [--json]
    git worktree remove ../pamir-base
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SIZE = 1_000_000 - 4096
MAX_LINES = 100_000  # bounds.MAX_LINES (this file also runs against code without it)
SECRET = "0" * 64
PLAYER = "alice"
Built = Callable[[bytes], bytes]


# -- the messages ------------------------------------------------------------------------------


def padded(message: bytes) -> bytes:
    body = b"policy pay 2\n" + b"x" * 70 + b"\n"
    return message + body * ((SIZE - len(message)) // len(body))


def words(count: int) -> bytes:
    return b" ".join([b"=?utf-8?q?=C5=BC?="] * count)


def folded(name: bytes, value: bytes) -> bytes:
    lines = [value[i : i + 900] for i in range(0, len(value), 900)]
    return name + b": " + b"\n ".join(lines) + b"\n"


def within_bounds(head: bytes) -> bytes:
    """As costly as the bounds allow: nearly the most header fields, encoded words and
    parts, nested deepest, with plainly written MIME fields of many parameters, and the
    rest of the megabyte as short lines, which the parser checks at every depth."""
    top = head + b"Subject: " + words(60) + b"\n"
    top += b"".join(b"X-Words-%d: %s\n" % (i, words(60)) for i in range(3))
    top += b"".join(b"X-Filler-%d: %s\n" % (i, b"y" * 900) for i in range(250))
    parameters = b"".join(b'; p%d="%s"' % (i, b"v" * 50) for i in range(11))
    nest, close = b"", b""
    for depth in range(7):
        nest += b"Content-Type: multipart/mixed; boundary=d%d%s\n\n--d%d\n" % (
            depth,
            parameters,
            depth,
        )
        close = b"\n--d%d--\n" % depth + close
    leaves = b"".join(
        b"Content-Type: text/plain; charset=utf-8%s\nContent-Disposition: inline%s\n\n"
        b"policy pay 2\n--d6\n" % (parameters, parameters)
        for _ in range(17)
    )
    leaves += b"Content-Type: text/plain\n\npolicy pay 2\n--d6\n" * 38
    message = top + nest + leaves + b"Content-Type: text/plain\n\n"
    room = SIZE - len(message) - len(close)
    count = MAX_LINES - message.count(b"\n") - close.count(b"\n") - 1
    width = -(-room // count)  # the shortest lines that fill the megabyte within the bound
    lines = (b"x" * (width - 1) + b"\n") * (room // width)
    return message + lines + close


CASES: dict[str, Built] = {
    "ordinary reply": lambda h: h + b"Subject: Re: [g1] Your turn (move 1)\n\nloyalty afghan\n",
    "Subject: encoded words": lambda h: folded(b"Subject", words(SIZE // 19)) + h + b"\nx\n",
    "From: encoded words": lambda h: (
        h.replace(b"From: ", b"From: " + words(SIZE // 19) + b" <", 1).replace(
            b"\nTo:", b">\nTo:", 1
        )
        + b"\nx\n"
    ),
    "Cc: encoded words": lambda h: folded(b"Cc", words(SIZE // 19)) + h + b"\nx\n",
    "Message-ID: encoded words": lambda h: (
        folded(b"Message-ID", b"<" + words(SIZE // 19) + b"@x>") + h + b"\nx\n"
    ),
    "60,000 header fields": lambda h: padded(h + b"X-Filler: x\n" * 60000 + b"\n"),
    "15,000 nested parts": lambda h: padded(
        h
        + b"".join(
            b"Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n" % (i, i) for i in range(15000)
        )
        + b"\n"
    ),
    "20,000 parts": lambda h: (
        h
        + b"Content-Type: multipart/mixed; boundary=b\n\n"
        + b"--b\nContent-Type: text/plain\n\npolicy pay 2\n" * 20000
        + b"--b--\n"
    ),
    "inside every bound": within_bounds,
    "text of 99,000 lines": lambda h: h + b"\n" + b"policy 2\n" * 99000,
    "HTML of 1 MB": lambda h: (
        h + b"Content-Type: text/html\n\n<p>" + b"<b>policy pay 2</b>" * (SIZE // 19)
    ),
}


# -- one message, in a subprocess -----------------------------------------------------------------


def worker(home: Path, raw_file: Path, memory: bool) -> dict[str, object]:
    """Hand the message to handle_message (of the code on PYTHONPATH)."""
    import tracemalloc

    from adjudicator.home.settings import load_settings
    from adjudicator.mail.incoming import handle_message

    settings = load_settings({"home": home, "mail_auth": "token"})
    raw = raw_file.read_bytes()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if memory:
        tracemalloc.start()
    started = time.process_time()
    try:
        result = handle_message(settings, raw, deliver_now=False)
        outcome = f"{result.status}: {result.reason}"
    except MemoryError:
        outcome = "MemoryError"
    seconds = time.process_time() - started
    peak = tracemalloc.get_traced_memory()[1] if memory else 0
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "cpu": seconds,
        "peak_mb": peak / 2**20,
        "rss_mb": after / 1024,
        "rss_growth_mb": (after - before) / 1024,
        "outcome": outcome[:120],
    }


def run_case(
    root: Path, template: Path, raw: bytes, memory: bool, limit_mb: int, cpu_limit: int
) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="pamir-hostile-") as folder:
        home = Path(folder) / "home"
        shutil.copytree(template, home, symlinks=True)
        raw_file = Path(folder) / "message.eml"
        raw_file.write_bytes(raw)

        def limits() -> None:
            size = limit_mb * 2**20
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))

        command = [sys.executable, __file__, "--worker", str(home), str(raw_file)]
        command += ["--memory"] if memory else []
        env = dict(os.environ, PYTHONPATH=str(root), PAMIR_HOME=str(home))
        env["PAMIR_LOG_LEVEL"] = "error"
        started = time.monotonic()
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, preexec_fn=limits, check=False
        )
        if done.returncode != 0 or not done.stdout.strip():
            ran = time.monotonic() - started
            why = f">{cpu_limit} s CPU" if done.returncode < 0 else f"exit {done.returncode}"
            if "MemoryError" in done.stderr:
                why = f">{limit_mb} MB"
            return {"failed": why, "seconds": ran}
        found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
        return found


# -- the table ------------------------------------------------------------------------------------


def make_home(folder: Path) -> tuple[Path, bytes]:
    """A PAMIR_HOME with one game (alice, bob) and the head of alice's messages to it."""
    sys.path.insert(0, str(HERE))
    from adjudicator.games.newgame import create_game
    from adjudicator.home.settings import load_settings
    from adjudicator.mail import tokens

    home = folder / "home"
    settings = load_settings({"home": home})
    players = [(PLAYER, "alice@players.example"), ("bob", "bob@players.example")]
    repo = create_game(settings.games_dir / "g1", players, home=home, secret=SECRET)
    repo.repo.close()
    address = tokens.reply_address(settings, "g1", PLAYER)
    head = (
        f"From: Alice <alice@players.example>\nTo: {address}\n"
        "Date: Tue, 3 Mar 2026 10:00:00 +0000\nMIME-Version: 1.0\n"
        "Message-ID: <reply.1@players.example>\n"
    ).encode()
    return home, head


def cell(found: dict[str, object], memory: bool, limit_mb: int) -> str:
    """A figure; `>` when the run stopped at its limit (the old code catches the
    MemoryError as a malformed message, and goes on)."""
    if "failed" in found:
        return str(found["failed"])
    over = "MemoryError" in str(found.get("outcome", ""))
    if memory:
        return f">{limit_mb} MB" if over else f"{found['peak_mb']:.1f} MB"
    return f">{found['cpu']:.1f} s" if over else f"{found['cpu']:.3f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=Path, help="another checkout to compare with")
    parser.add_argument("--limit-mb", type=int, default=3072, help="address space a run gets")
    parser.add_argument("--cpu-limit", type=int, default=60, help="CPU seconds a run gets")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--worker", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--memory", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], args.worker[1], args.memory)))
        return 0

    versions = {"this checkout": HERE}
    if args.base is not None:
        versions["base"] = args.base.resolve()
    figures: dict[str, dict[str, dict[str, object]]] = {}
    with tempfile.TemporaryDirectory(prefix="pamir-hostile-") as folder:
        template, head = make_home(Path(folder))
        print(f"{'message':28} {'bytes':>9}  {'version':14} {'CPU':>9}  {'peak':>11}  outcome")
        for name, build in CASES.items():
            raw = build(head)
            for version, root in versions.items():
                timed = run_case(root, template, raw, False, args.limit_mb, args.cpu_limit)
                traced = run_case(root, template, raw, True, args.limit_mb, args.cpu_limit)
                figures.setdefault(name, {})[version] = {"cpu": timed, "memory": traced}
                outcome = str(timed.get("outcome", timed.get("failed", "")))
                print(
                    f"{name:28} {len(raw):9,}  {version:14} "
                    f"{cell(timed, False, args.limit_mb):>9}  "
                    f"{cell(traced, True, args.limit_mb):>11}  {outcome[:60]}",
                    flush=True,
                )
    sys.path.insert(0, str(HERE))
    from adjudicator.mail import bounds

    print("\nBounds in force (adjudicator/mail/bounds.py):")
    for key, value in bounds.LIMITS.items():
        print(f"  {key:28} {value:,}")
    if args.json:
        print(json.dumps({"figures": figures, "bounds": bounds.LIMITS}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
