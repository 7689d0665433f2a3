"""gunicorn's settings for the web service (the Procfiles, docs/operations.md):
`gunicorn -c python:adjudicator.web.gunicorn_config 'adjudicator.web:create_app()'`.

Command-line options given beside `-c` still win, so a host can change the bind address,
the workers or the timeouts without a file of its own.
"""

from __future__ import annotations

from adjudicator.home import logs
from adjudicator.home.settings import SettingsError, load_settings

_level: str
_format: str
try:
    # Read only: gunicorn's master forks the workers and must hold no connections.
    _settings = load_settings(remember=False)
    _level, _format = _settings.log_level, _settings.log_format
except SettingsError:  # create_app refuses them, with the reason, in each worker
    _level, _format = logs.from_environment()

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
