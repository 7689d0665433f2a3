"""gunicorn's settings for the web service (the Procfiles, docs/operations.md):
`gunicorn -c python:adjudicator.web.gunicorn_config 'adjudicator.web:create_app()'`.

Command-line options given beside `-c` still win, so a host can change the bind address,
the workers or the timeouts without a file of its own.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from typing import Any

from adjudicator.home import logs, nodes
from adjudicator.home.settings import SettingsError, load_settings

try:
    # Read only: gunicorn's master forks the workers and must hold no connections.
    _settings = load_settings(remember=False)
    _level, _format = _settings.log_level, _settings.log_format
except SettingsError as error:
    # One clear line and no worker started, rather than a traceback from every worker that
    # fails to boot (a missing secret file, a bad value). gunicorn lets SystemExit through.
    print(f"pamir: {error}", file=sys.stderr, flush=True)
    raise SystemExit(2) from None

# gunicorn's own lines and pamir's in one form (adjudicator/home/logs.py), on standard
# error. gunicorn's access log is off: the application logs each request itself, with the
# private pages' tokens hidden (adjudicator/web/requests_log.py).
logconfig_dict = logs.dict_config(_level, _format)
loglevel = _level
accesslog = None
# gunicorn 25 and later open a control socket at one fixed path per user
# ($XDG_RUNTIME_DIR/gunicorn.ctl): two services of one user would fight over it, and the
# systemd units forbid writing to the home folder. Stop and reload with signals instead.
control_socket_disable = True


def child_exit(server: object, worker: Any) -> None:
    """A worker exited: in prometheus-client's multiprocess mode, its live gauges go with
    it, while its counts stay in the totals (docs/operations.md#metrics)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess  # only with the multiprocess folder

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def worker_exit(server: object, worker: Any) -> None:
    """In the worker, as it ends (SIGTERM, a `--max-requests` replacement, the master
    stopping): its row of `pamir_nodes` goes with it, rather than show as silent for a day
    (PostgreSQL mode; nothing otherwise)."""
    nodes.stop_heartbeats()


# The folder this master made for its workers' metrics, removed when it exits.
_made_for_metrics: list[str] = []


def on_starting(server: object) -> None:
    """Before the workers fork: without a PROMETHEUS_MULTIPROC_DIR of the operator's, one
    of this master's own, so that /metrics adds up every worker's counts (answered by
    one worker, it would otherwise show that worker's alone and jump between scrapes).
    A shared folder of the operator's also takes the scheduler's counts in."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        folder = tempfile.mkdtemp(prefix="pamir-metrics-")
        _made_for_metrics.append(folder)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder


def on_exit(server: object) -> None:
    for folder in _made_for_metrics:
        shutil.rmtree(folder, ignore_errors=True)
