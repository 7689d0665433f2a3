"""gunicorn's settings for the web service (the Procfiles, docs/operations.md):
`gunicorn -c python:adjudicator.web.gunicorn_config 'adjudicator.web:create_app()'`.

Command-line options given beside `-c` still win, so a host can change the bind address,
the workers or the timeouts without a file of its own.
"""

from __future__ import annotations
