"""The request log: one line per request, the same under `pamir serve` and gunicorn.

A WSGI middleware rather than a Flask hook, so that it also sees what Flask answers
before any of its hooks run (404, 405, a body too large) and times the whole response,
streaming included. The path passes through `adjudicator.home.logs.redact` like every
log line: a private page's token never reaches the log.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

log = logging.getLogger("adjudicator.web.requests")


class RequestLog:
    """Wraps a WSGI application; logs `METHOD PATH STATUS DURATION` at INFO when the
    response is done (5xx at ERROR, so that an alert on errors sees them)."""

    def __init__(self, app: WSGIApplication) -> None:
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        status: list[str] = []

        def starting(
            code: str, headers: list[tuple[str, str]], *info: Any
        ) -> Callable[[bytes], object]:
            status[:] = [code]
            return start_response(code, headers, *info)

        try:
            body = self.app(environ, starting)
        except BaseException:
            _write(environ, "500", started)
            raise
        return _Logged(body, lambda: _write(environ, status[0] if status else "500", started))


class _Logged:
    """The response's body, which logs the request once the server has sent it all."""

    def __init__(self, body: Iterable[bytes], done: Callable[[], None]) -> None:
        self.body = body
        self.done = done

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            self.done()


# A path is the client's to choose: a line break in it must not start a line of its own
# in the log, and a path of many kilobytes says nothing more than its start.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
MAX_PATH = 300


def _printable(text: str, limit: int) -> str:
    text = _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text if len(text) <= limit else text[:limit] + "…"


def _write(environ: WSGIEnvironment, status: str, started: float) -> None:
    code = int(status.split(" ", 1)[0]) if status[:3].isdigit() else 500
    method = _printable(str(environ.get("REQUEST_METHOD", "-")), 16)
    path = str(environ.get("SCRIPT_NAME", "")) + str(environ.get("PATH_INFO", ""))
    query = str(environ.get("QUERY_STRING", ""))
    if query:
        path += "?" + query
    path = _printable(path, MAX_PATH)
    duration = round((time.perf_counter() - started) * 1000, 1)
    log.log(
        logging.ERROR if code >= 500 else logging.INFO,
        "%s %s %d %.1f ms",
        method,
        path,
        code,
        duration,
        extra={"method": method, "path": path, "status": code, "duration_ms": duration},
    )
