"""`pamir serve` beside many slow clients: how long an ordinary request waits.

Starts `pamir serve` (waitress) and, for comparison in the same run, `pamir serve --dev`
(Werkzeug's development server) on an empty PAMIR_HOME; against each, opens N connections
that send half a request line and then nothing (a stalled client; with `--trickle`, one
more header line a second, as slowloris does), then times
ordinary requests for `/healthz` while they hang on. Prints one row per server and, with
`--json`, the figures as one JSON line at the end. `--hold S` waits S seconds before
counting the server's threads, memory and open files: past `serve_timeout` (30 s) waitress
has dropped the stalled connections, Werkzeug's server never does. Traffic stays on 127.0.0.1; every
connection is closed at the end.

    .venv/bin/python benchmarks/slow_clients.py [--slow 2000] [--requests 20] [--trickle]
        [--hold S] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

PAMIR = Path(sys.executable).parent / "pamir"


def start(home: Path, dev: bool) -> tuple[subprocess.Popen[bytes], int, Path]:
    out = home / ("dev.out" if dev else "serve.out")
    command = [str(PAMIR), "serve", "--no-scheduler", "--port", "0", *(["--dev"] if dev else [])]
    env = {**os.environ, "PAMIR_HOME": str(home), "PAMIR_LOG_LEVEL": "warning"}
    with open(out, "wb") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
    limit = time.monotonic() + 60
    while time.monotonic() < limit:
        found = re.search(r"serving http://127\.0\.0\.1:(\d+)/", out.read_text(errors="replace"))
        if found:
            return process, int(found.group(1)), out
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise SystemExit(f"pamir serve did not start:\n{out.read_text(errors='replace')}")


def timed_get(port: int, timeout: float) -> float:
    """Seconds to answer GET /healthz; `timeout` if it did not answer by then."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as got:
            got.read()
    except OSError:
        return timeout
    return time.perf_counter() - started


def trickle(clients: list[socket.socket], stop: threading.Event) -> None:
    """Each slow client sends one more header line a second, as slowloris does: a client
    that is slow but never idle."""
    while not stop.wait(1.0):
        for client in clients:
            with contextlib.suppress(OSError):
                client.send(b"X-a: b\r\n")


def measure(
    home: Path, dev: bool, slow: int, requests: int, timeout: float, trickling: bool, hold: float
) -> dict[str, float]:
    process, port, _ = start(home, dev)
    clients: list[socket.socket] = []
    stop = threading.Event()
    try:
        baseline = statistics.median(timed_get(port, timeout) for _ in range(5))
        opened = time.perf_counter()
        for _ in range(slow):
            client = socket.socket()
            client.settimeout(5)
            try:
                client.connect(("127.0.0.1", port))
                client.sendall(b"GET /healthz HTTP/1.1\r\n")  # and never the rest
            except OSError:
                client.close()
                break
            clients.append(client)
        opening = time.perf_counter() - opened
        if trickling:
            threading.Thread(target=trickle, args=(clients, stop), daemon=True).start()
            time.sleep(2)
        waits = sorted(timed_get(port, timeout) for _ in range(requests))
        threads = len(os.listdir(f"/proc/{process.pid}/task"))
        status = Path(f"/proc/{process.pid}/status").read_text()
        if hold:  # what the server still holds once the stalled clients have waited
            time.sleep(hold)
        descriptors = len(os.listdir(f"/proc/{process.pid}/fd"))
        rss_mb = int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]
    finally:
        stop.set()
        for client in clients:
            client.close()
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:  # Werkzeug's server waits for its many threads
            process.kill()
            process.wait(30)
    return {
        "baseline_ms": baseline * 1000,
        "slow_clients": len(clients),
        "opening_s": opening,
        "p50_ms": statistics.median(waits) * 1000,
        "max_ms": waits[-1] * 1000,
        "unanswered": sum(1 for w in waits if w >= timeout),
        "server_threads": threads,
        "server_rss_mb": rss_mb,
        "server_descriptors": descriptors,
    }


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--slow", type=int, default=2000, help="slow connections (2000)")
    options.add_argument("--requests", type=int, default=20, help="timed requests (20)")
    options.add_argument("--timeout", type=float, default=30.0, help="a request's limit (30 s)")
    options.add_argument(
        "--trickle", action="store_true", help="slow clients send a header line a second"
    )
    options.add_argument(
        "--hold", type=float, default=0.0, help="seconds to wait before counting what it holds"
    )
    options.add_argument("--json", action="store_true", help="the figures as JSON at the end")
    args = options.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = args.slow + 256
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name, dev in (("waitress", False), ("werkzeug --dev", True)):
            home = Path(scratch) / name.split()[0]
            home.mkdir()
            results[name] = measure(
                home, dev, args.slow, args.requests, args.timeout, args.trickle, args.hold
            )
    how = "trickling a header line a second" if args.trickle else "idle"
    print(f"{args.slow} slow connections ({how}), then {args.requests} requests for /healthz")
    print(
        "server           held  baseline  p50 with them  max with them  unanswered  threads  memory"
    )
    for name, r in results.items():
        print(
            f"{name:15} {r['slow_clients']:5.0f}  {r['baseline_ms']:6.1f} ms"
            f"  {r['p50_ms']:10.1f} ms  {r['max_ms']:10.1f} ms  {r['unanswered']:10.0f}"
            f"  {r['server_threads']:7.0f}  {r['server_rss_mb']:4.0f} MB"
            f"  {r['server_descriptors']:10.0f}"
        )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
