"""gunicorn's settings for the web service (the Procfiles, docs/operations.md):
`gunicorn -c python:adjudicator.web.gunicorn_config 'adjudicator.web:create_app()'`.

Command-line options given beside `-c` still win, so a host can change the bind address,
the workers or the timeouts without a file of its own.
"""

from __future__ import annotations

import os
from typing import Any


def child_exit(server: object, worker: Any) -> None:
    """A worker exited: in prometheus-client's multiprocess mode, its live gauges go with
    it, while its counts stay in the totals (docs/operations.md#metrics)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
