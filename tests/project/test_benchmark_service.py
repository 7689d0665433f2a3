"""benchmarks/service.py, in a run of a few moves: it finishes, every report reaches every
player once, every game verifies, and `--json` ends with the figures other tools read.

The timings themselves are never asserted; what would fail here is the benchmark no longer
measuring what it says (a move whose reports never come, for one, makes it wait a minute
a move).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "service.py"
TIMEOUT = 120  # seconds; the run takes about 5 (a lost report costs it a minute)
SMOKE = ["--games", "1", "--moves", "1", "--latency-moves", "2", "--hosted-moves", "1"]


def test_a_small_run_delivers_every_report_and_ends_with_its_figures() -> None:
    pytest.importorskip("aiosmtpd")
    env = {key: value for key, value in os.environ.items() if not key.startswith("PAMIR_")}
    run = subprocess.Popen(
        [sys.executable, str(SCRIPT), *SMOKE, "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = run.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        run.terminate()  # the script then stops its service and removes its folder
        out, err = run.communicate(timeout=60)
        pytest.fail(f"no end after {TIMEOUT} s:\n{out}{err}")
    assert run.returncode == 0, out + err
    lines = out.splitlines()
    figures = json.loads(lines[-1])
    assert figures["moves"] == 2  # step 1's moves, all completed
    assert figures["all_moves"] == 4  # and one in step 2, one in step 3
    assert (figures["lost"], figures["repeated"], figures["failed"]) == (0, 0, 0), out
    assert figures["unverified"] == 0
    for key in ("service_cpu_ms_per_move", "push_to_email_p50_ms", "moves_per_s"):
        assert figures[key] > 0
    assert not any(line.startswith("{") for line in lines[:-1])  # exactly one JSON line
