"""The web service: game pages, forge webhooks and inbound email (docs/web.md).

`create_app` is a Flask application factory, as in the flaskr tutorial: the settings come
from the defaults, the instance file PAMIR_HOME/pamir.toml and PAMIR_* variables
(`adjudicator.home.settings.load_settings`), then from `config`. Run it with
`gunicorn -c python:adjudicator.web.gunicorn_config 'adjudicator.web:create_app()'` or
`pamir serve`. Every request is logged (`requests_log`), its tokens hidden.

`pages` (the game pages and /help), `play` (a player's private page and its form),
`rendering` (safe HTML from reports and views), `webhooks`
(forge pushes), `inbound` (email posted by a mail gateway), `metrics` (/metrics for
Prometheus), `serve` (the web service and the scheduler in one process). Imports every
capability below the CLI.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from jinja2 import PackageLoader

from adjudicator.home import backend, logs
from adjudicator.home.settings import Settings, load_settings
from adjudicator.web.context import DEFAULT_BODY_BYTES, SECURITY_HEADERS, SETTINGS_KEY
from adjudicator.web.requests_log import RequestLog

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)


def _rebuild(settings: Settings) -> None:
    from adjudicator.games import hosting  # PostgreSQL mode's nodes only

    try:
        hosting.rebuild(settings)
    except Exception:  # the next request for each game clones it
        log.exception("cloning the registered games failed")


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The application. Lower-case keys of `config` override settings (e.g. `home`);
    upper-case keys go to Flask's own config (e.g. `TESTING`)."""
    # Flask and the blueprints are imported here, not at the top: the commands that import
    # this package for its settings alone (the CLI's parser) start without loading them.
    from flask import Flask, Response, jsonify

    from adjudicator.forge import contact
    from adjudicator.home import database
    from adjudicator.web.inbound import bp as inbound
    from adjudicator.web.languages import install as install_languages
    from adjudicator.web.metrics import bp as metrics
    from adjudicator.web.outage import install as install_outage
    from adjudicator.web.pages import bp as pages
    from adjudicator.web.play import bp as play
    from adjudicator.web.webhooks import bp as webhooks

    overrides = {k: v for k, v in (config or {}).items() if not k.isupper()}
    # Everything the application does with its data folder goes through these settings
    # (settings.home), so two applications with different homes can share a process.
    settings = load_settings(overrides)
    # Under gunicorn its configuration (adjudicator.web.gunicorn_config) set logging up
    # already, before the settings could be read in a worker; anywhere else (a bare
    # `gunicorn 'adjudicator.web:create_app()'`, another WSGI server) it is set up here.
    if not logs.configured():
        logs.configure(settings.log_level, settings.log_format)
    # PostgreSQL mode: a node whose database lacks the schema it needs does not start.
    serving = backend.of(settings)
    serving.start()
    if serving.several_nodes:
        # A node that starts empty clones the registry's games from their forges in the
        # background; whatever asks for a game first clones it then (games/hosting.py).
        threading.Thread(target=_rebuild, args=(settings,), daemon=True).start()
    app = Flask(__name__, template_folder=None)
    app.jinja_loader = PackageLoader("pamir_templates", "")
    app.config["MAX_CONTENT_LENGTH"] = DEFAULT_BODY_BYTES
    # How often the live pages ask whether the game moved (docs/web.md#live-pages), in ms.
    app.config["LIVE_POLL_MS"] = 5000
    app.wsgi_app = RequestLog(app.wsgi_app)  # type: ignore[method-assign]
    app.config.update({k: v for k, v in (config or {}).items() if k.isupper()})
    app.jinja_env.trim_blocks = app.jinja_env.lstrip_blocks = True
    app.extensions[SETTINGS_KEY] = settings
    app.register_blueprint(pages)
    app.register_blueprint(play)
    app.register_blueprint(webhooks)
    app.register_blueprint(inbound)
    if settings.metrics:  # else /metrics is a 404, as any address that is not a page
        app.register_blueprint(metrics)
    install_languages(app)  # after the blueprints: its filters speak the visitor's language
    install_outage(app, several_nodes=serving.several_nodes)

    @app.after_request
    def secure(response: Response) -> Response:
        # after_request runs for error pages too (404, 413, 500), so every answer has them.
        # A blueprint's own after_request runs first and may set a header to what its pages
        # need (the private page posts its form to itself: form-action 'self').
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    def needing_host() -> list[str]:
        """The games that need their host (a lock file that cannot be removed, a game that
        cannot be read): reported, not a reason to take the node out of service."""
        from adjudicator.games import needs_host  # the health check's alone

        try:
            return sorted(mark.game for mark in needs_host.every_mark(settings.home))
        except Exception:  # the database away: said by `database` below
            return []

    @app.get("/healthz")
    def healthz() -> Any:
        if not serving.several_nodes:
            return jsonify(
                status="ok", games=settings.games_dir.is_dir(), needs_host=needing_host()
            )
        # In PostgreSQL mode a node that cannot reach the database cannot take a move: the
        # load balancer is told so (503) and sends players to the other nodes.
        problem = serving.problem()
        # The forge as this node last fetched from it: reported, not a reason to take the
        # node out of the load balancer (every node shares the forge).
        return jsonify(
            status="ok" if problem is None else "unavailable",
            games=settings.games_dir.is_dir(),
            node=database.node_name(settings),
            database="ok" if problem is None else problem,
            forge=contact.reachability(),
            needs_host=needing_host() if problem is None else [],
        ), (200 if problem is None else 503)

    return app
