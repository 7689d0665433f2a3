"""`pamir serve --host HOST --port PORT`: the web service and the scheduler in one process.

For a single machine: the pages, webhooks and inbound email are served by Werkzeug's
threaded server, and the scheduler (deadlines, polling, the outbox) runs in a background
thread of the same process. A Procfile host runs them as two processes instead:
`gunicorn 'adjudicator.web:create_app()'` and `pamir scheduler` (see docs/web.md).
PAMIR_HOME selects the data folder (default: the current folder).
"""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType

from adjudicator.home import nodes
from adjudicator.home.settings import Settings
from adjudicator.mail import ledger
from adjudicator.schedule.scheduler import run_forever

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
EXIT_REFUSED = 2

log = logging.getLogger(__name__)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # unwinds serve_forever in the main thread


class Background:
    """The scheduler in a thread of this process.

    It runs through `run_forever`, which refuses to start while another scheduler holds
    this PAMIR_HOME (a `pamir scheduler` process, another `pamir serve`); in PostgreSQL
    mode it stands by until this node is elected to run the one active scheduler.
    """

    STARTUP_SECONDS = 0.5

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.problem: str | None = None

    def start(self) -> str:
        """Start it; say whether it runs."""

        def run() -> None:
            try:
                run_forever(self.settings, self.stopping)
            except Exception as error:  # e.g. another scheduler runs on this PAMIR_HOME
                self.problem = str(error)
                log.warning("the scheduler stopped: %s", error)

        self.thread = threading.Thread(target=run, name="scheduler", daemon=True)
        self.thread.start()
        self.thread.join(self.STARTUP_SECONDS)
        if self.problem is not None:
            return f"without a scheduler: {self.problem}"
        if self.settings.database_url is not None:
            return "with the scheduler when this node is elected to run it"
        return "with the scheduler"

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=30)


def serve(host: str, port: int, *, scheduler: bool = True) -> None:
    """Serve until interrupted (Ctrl-C or SIGTERM). Port 0 picks a free port; the address
    actually used is printed."""
    from werkzeug.serving import make_server

    from adjudicator.web import create_app, current_settings

    app = create_app()
    with app.app_context():
        settings = current_settings()
    # The mails of commits made by a process that died before queuing them (docs/email.md).
    ledger.reconcile_all(settings)
    server = make_server(host, port, app, threaded=True)
    background = Background(settings)
    note = background.start() if scheduler else "without a scheduler: --no-scheduler"
    print(
        f"pamir: serving http://{host}:{server.server_port}/ ({note}; PAMIR_HOME={settings.home})",
        flush=True,
    )
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
        background.stop()
        nodes.stop_heartbeat(settings)
    print("pamir: stopped", flush=True)
