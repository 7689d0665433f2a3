"""The web service: game pages, forge webhooks and inbound email (docs/web.md).

`create_app` is a Flask application factory, as in the flaskr tutorial: the settings come
from the defaults, the instance file PAMIR_HOME/pamir.toml and PAMIR_* variables
(`adjudicator.home.settings.load_settings`), then from `config`. Run it with
`gunicorn 'adjudicator.web:create_app()'` or `pamir serve`.

`pages` (the game pages), `rendering` (safe HTML from reports and views), `webhooks`
(forge pushes), `inbound` (email posted by a mail gateway), `serve` (the web service and
the scheduler in one process). Imports every capability below the CLI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jinja2 import PackageLoader

from adjudicator.home.settings import Settings, load_settings

if TYPE_CHECKING:
    from flask import Flask

SETTINGS_KEY = "pamir.settings"


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The application. Lower-case keys of `config` override settings (e.g. `home`);
    upper-case keys go to Flask's own config (e.g. `TESTING`)."""
    from flask import Flask, jsonify

    from adjudicator.web.inbound import bp as inbound
    from adjudicator.web.pages import bp as pages
    from adjudicator.web.webhooks import bp as webhooks

    overrides = {k: v for k, v in (config or {}).items() if not k.isupper()}
    # Everything the application does with its data folder goes through these settings
    # (settings.home), so two applications with different homes can share a process.
    settings = load_settings(overrides)
    app = Flask(__name__, template_folder=None)
    app.jinja_loader = PackageLoader("pamir_templates", "")
    app.config.update({k: v for k, v in (config or {}).items() if k.isupper()})
    app.jinja_env.trim_blocks = app.jinja_env.lstrip_blocks = True
    app.extensions[SETTINGS_KEY] = settings
    app.register_blueprint(pages)
    app.register_blueprint(webhooks)
    app.register_blueprint(inbound)

    @app.get("/healthz")
    def healthz() -> Any:
        return jsonify(status="ok", games=settings.games_dir.is_dir())

    return app


def current_settings() -> Settings:
    """The settings of the application handling the current request."""
    from flask import current_app

    settings: Settings = current_app.extensions[SETTINGS_KEY]
    return settings
