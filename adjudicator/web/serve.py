"""`pamir serve --host HOST --port PORT`: the web service and the scheduler in one process.

For a single machine: the pages, webhooks and inbound email are served by Werkzeug's
threaded server, and the scheduler (deadlines, polling, the outbox) runs in a background
thread of the same process. A Procfile host runs them as two processes instead:
`gunicorn 'adjudicator.web:create_app()'` and `pamir scheduler` (see docs/web.md).
PAMIR_HOME selects the data folder (default: the current folder).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from adjudicator.config import Settings, SettingsError, load_settings
from adjudicator.files import optional_module

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
EXIT_REFUSED = 2

log = logging.getLogger(__name__)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # unwinds serve_forever in the main thread


class Background:
    """The scheduler in a thread of this process, if the scheduler module is installed.

    It runs through `run_forever`, which refuses to start while another scheduler holds
    this PAMIR_HOME (a `pamir scheduler` process, another `pamir serve`).
    """

    STARTUP_SECONDS = 0.5

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.problem: str | None = None

    def start(self) -> str:
        """Start it; say whether it runs."""
        module = optional_module("adjudicator.scheduler")
        if module is None:
            return "without a scheduler: adjudicator.scheduler is not installed"
        run_forever = module.run_forever

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
    print("pamir: stopped", flush=True)


def cmd_serve(args: argparse.Namespace) -> None:
    try:
        load_settings()  # refuse bad settings before anything starts
    except SettingsError as error:
        print(f"pamir serve: {error}", file=sys.stderr)
        raise SystemExit(EXIT_REFUSED) from None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    serve(args.host, args.port, scheduler=not args.no_scheduler)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `pamir serve` to the command line's subcommands."""
    serve_cmd = commands.add_parser(
        "serve", help="run the web service (pages, webhooks, inbound email) and the scheduler"
    )
    serve_cmd.add_argument("--host", default=DEFAULT_HOST, help=f"default {DEFAULT_HOST}")
    serve_cmd.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}; 0: any free"
    )
    serve_cmd.add_argument(
        "--no-scheduler", action="store_true", help="do not run the scheduler in this process"
    )
    serve_cmd.set_defaults(func=cmd_serve)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m adjudicator.web.serve ...`: the same as `pamir serve ...`."""
    parser = argparse.ArgumentParser(prog="pamir")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    args.func(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
