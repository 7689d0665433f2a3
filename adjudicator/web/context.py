"""What every route of the web service shares: the settings of the application that
handles the request, its body read within a limit, and the headers of every answer."""

from __future__ import annotations

from adjudicator.home.settings import Settings

SETTINGS_KEY = "pamir.settings"
# Nothing on the pages runs inline script or loads anything from elsewhere: the one
# stylesheet and the one script (live.js, which asks this site only) come from this site,
# and no page may be framed. So even markup that slipped past the sanitizer could not run
# (docs/web.md).
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; "
        "connect-src 'self'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
# Bodies no route asks for more of; the routes that take one set their own limit.
DEFAULT_BODY_BYTES = 1_000_000


def current_settings() -> Settings:
    """The settings of the application handling the current request."""
    from flask import current_app  # Flask loads with the web service only

    settings: Settings = current_app.extensions[SETTINGS_KEY]
    return settings


def read_body(limit: int) -> bytes | None:
    """The current request's body, or None when it is longer than `limit` bytes.

    The limit holds while the body streams in, chunked ones too: Werkzeug stops reading at
    `limit` bytes, so an oversized body is never held in memory whole.
    """
    from flask import request  # Flask loads with the web service only
    from werkzeug.exceptions import RequestEntityTooLarge

    # One byte more than allowed: Werkzeug's limited stream stops quietly at its limit (it
    # raises only on a later read), so a body that reaches limit + 1 is known too long.
    request.max_content_length = limit + 1
    try:
        body = request.get_data(cache=False)
    except RequestEntityTooLarge:  # a Content-Length over the limit: nothing was read
        return None
    return body if len(body) <= limit else None
