"""`pamir serve --host HOST --port PORT`: the web service and the scheduler in one process.

For a single machine: the pages, webhooks and inbound email are served by waitress, a
production WSGI server that does not fork (so the scheduler, which runs in a background
thread of the same process, is not copied), reads each request whole before one of its
threads handles it (a slow client holds a connection, never a thread), drops connections
idle for `serve_timeout` seconds and holds at most `serve_connections` at once.
`--dev` runs Werkzeug's development server instead, for working on pamir itself.
A Procfile host runs the two parts as processes of their own: gunicorn with
`adjudicator.web.gunicorn_config` and `pamir scheduler` (docs/operations.md).
PAMIR_HOME selects the data folder (default: the current folder).
"""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType
from typing import TYPE_CHECKING, Protocol

from adjudicator.home import backend
from adjudicator.home.settings import Settings
from adjudicator.mail import ledger
from adjudicator.schedule.leader import run_forever
from adjudicator.web import create_app
from adjudicator.web.context import current_settings

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

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
        if backend.of(self.settings).several_nodes:
            return "with the scheduler when this node is elected to run it"
        return "with the scheduler"

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=30)


# The largest body a route takes (a forge's push event, adjudicator/web/webhooks.py): the
# server refuses a longer one (413) before it buffers it.
LARGEST_BODY = 5_000_000
# Each connection holds a file descriptor (up to three while it buffers a body).
DESCRIPTORS_PER_CONNECTION = 3


class Server(Protocol):
    """What `serve` needs of either server."""

    def run(self) -> None: ...

    def close(self) -> None: ...

    @property
    def port(self) -> int: ...


class _Waitress:
    def __init__(self, app: WSGIApplication, host: str, port: int, settings: Settings) -> None:
        from waitress.server import create_server  # the server chosen, not both

        _allow_descriptors(settings.serve_connections * DESCRIPTORS_PER_CONNECTION + 64)
        self.server = create_server(
            app,
            host=host,
            port=port,
            threads=settings.serve_threads,
            connection_limit=settings.serve_connections,
            channel_timeout=settings.serve_timeout,
            # Idle connections are looked for this often: at most a third of the timeout late.
            cleanup_interval=max(1, settings.serve_timeout // 3),
            max_request_body_size=max(LARGEST_BODY, settings.max_inbound_bytes) + 65_536,
            # poll(), not select(): select() cannot watch a descriptor numbered over 1,023.
            asyncore_use_poll=True,
            ident="pamir",
            # The service's request log says what happened; a client that hangs up early
            # is nothing to report.
            log_socket_errors=False,
        )

    @property
    def port(self) -> int:
        return int(self.server.effective_port)  # type: ignore[union-attr]

    def run(self) -> None:
        self.server.run()

    def close(self) -> None:
        self.server.close()


class _Werkzeug:
    def __init__(self, app: WSGIApplication, host: str, port: int) -> None:
        from werkzeug.serving import make_server  # the server chosen, not both

        self.server = make_server(host, port, app, threaded=True)

    @property
    def port(self) -> int:
        return self.server.server_port

    def run(self) -> None:
        self.server.serve_forever()

    def close(self) -> None:
        self.server.server_close()


def _allow_descriptors(wanted: int) -> None:
    """Raise the soft limit on open files towards `wanted` (as far as the hard limit
    allows): many systems start a process at 1,024."""
    try:
        import resource  # POSIX only
    except ImportError:  # not on this system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _reconcile(settings: Settings) -> None:
    try:
        ledger.reconcile_all(settings)
    except Exception:  # the scheduler's outbox job does the same on its next tick
        log.exception("queuing the mails a crash left unqueued failed")


def serve(host: str, port: int, *, scheduler: bool = True, dev: bool = False) -> None:
    """Serve until interrupted (Ctrl-C or SIGTERM). Port 0 picks a free port; the address
    actually used is printed. `dev`: Werkzeug's development server instead of waitress."""
    app = create_app()
    with app.app_context():
        settings = current_settings()
    # The mails of commits made by a process that died before queuing them (docs/email.md),
    # in the background: the server listens at once, whatever the number of games.
    threading.Thread(target=_reconcile, args=(settings,), daemon=True).start()
    server: Server = _Werkzeug(app, host, port) if dev else _Waitress(app, host, port, settings)
    background = Background(settings)
    note = background.start() if scheduler else "without a scheduler: --no-scheduler"
    kind = "Werkzeug's development server" if dev else "waitress"
    print(
        f"pamir: serving http://{host}:{server.port}/ on {kind} "
        f"({note}; PAMIR_HOME={settings.home})",
        flush=True,
    )
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.close()
        background.stop()
        backend.of(settings).stop()
    print("pamir: stopped", flush=True)
