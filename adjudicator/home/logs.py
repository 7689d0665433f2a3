"""The service's logging, set up one way for every process (docs/operations.md#logging).

`pamir serve`, the application under gunicorn (`adjudicator.web.gunicorn_config` hands
`dict_config` to gunicorn's `logconfig_dict`; `create_app` calls `configure`) and every
`pamir` command write the same lines to standard error: time, level, logger and message
as text, or one JSON object a line (`log_format = "json"`) for a log shipper.

Whatever reaches the log passes through `redact` last, tracebacks included: a private
page's token (`/play/GAME/PLAYER/TOKEN`) and a reply address's token
(`pamir+GAME.PLAYER.TOKEN@...`) would let whoever reads the log move for the player.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from typing import Any, TextIO

LEVELS = ("debug", "info", "warning", "error")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# ISO 8601 in UTC, to the millisecond: lines from several processes and nodes sort alike.
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S"
HIDDEN = "…"

# The private page's path: what follows `/play/GAME/PLAYER/` up to the end of the path
# segment (a later `/`, a query, white space or a quote ends it).
_PAGE = re.compile(r"(/play/[^/\s\"'?#]+/[^/\s\"'?#]+/)[^/\s\"'?#<>]+")
# A reply address: the last dot-separated part of `+GAME.PLAYER.TOKEN` before `@` or a
# press suffix `+NAME`; player names may hold dots, the token never does.
_REPLY = re.compile(r"(\+[A-Za-z0-9][\w-]*\.[^\s@+<>\"']*\.)[^\s.@+<>\"']+(?=[@+])")
# The same address percent-encoded in a URL (mailto: links): `%2B` for `+`, `%40` for `@`.
_REPLY_ENCODED = re.compile(r"(%2[Bb][A-Za-z0-9][\w-]*\.[^\s%<>\"']*\.)[^\s.%<>\"']+(?=%40|%2[Bb])")


def redact(text: str) -> str:
    """`text` with every private-page and reply-address token replaced by `…`."""
    if "/play/" in text:
        text = _PAGE.sub(rf"\1{HIDDEN}", text)
    if "+" in text:
        text = _REPLY.sub(rf"\1{HIDDEN}", text)
    if "%2" in text:
        text = _REPLY_ENCODED.sub(rf"\1{HIDDEN}", text)
    return text


class TextFormatter(logging.Formatter):
    """`2026-11-28T09:15:02.120Z INFO adjudicator.web.requests: GET / 200 3.1 ms`."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT, DATE_FORMAT)
        self.converter = time.gmtime

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return f"{super().formatTime(record, datefmt)}.{int(record.msecs):03d}Z"

    def formatMessage(self, record: logging.LogRecord) -> str:
        # A message may quote what a stranger wrote (a refused mail's reason, a move): a
        # line break in it must not start a line that looks like the service's own. The
        # traceback, added after this, keeps its lines.
        record.message = escape_controls(record.message)
        return super().formatMessage(record)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def escape_controls(text: str) -> str:
    """`text` with its control characters but the tab written as `\\xNN`."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


# Fields a record may carry beyond the message (`log.info(..., extra={...})`), which the
# JSON lines keep as fields of their own.
EXTRA_FIELDS = ("method", "path", "status", "duration_ms", "game", "way")


class JsonFormatter(TextFormatter):
    """One JSON object a line: time, level, logger, message, the request's fields, and the
    traceback as `exception`."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, self.datefmt),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in EXTRA_FIELDS:
            if name in record.__dict__:
                entry[name] = record.__dict__[name]
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        # Each field on its own, before the line is written: redacting the JSON text could
        # take an escaping backslash for part of a token.
        return json.dumps(
            {k: redact(v) if isinstance(v, str) else v for k, v in entry.items()},
            ensure_ascii=False,
            default=str,
        )


FORMATTERS: dict[str, type[logging.Formatter]] = {"text": TextFormatter, "json": JsonFormatter}


class ServiceHandler(logging.StreamHandler[TextIO]):
    """The one handler pamir puts on the root logger; `configure` replaces it rather than
    adding a second (and leaves alone any handler that is not its own, such as a test
    runner's)."""

    def __init__(self, log_format: str = "text", stream: TextIO | None = None) -> None:
        # Standard error, looked up at each write: a test or a daemon may swap it.
        super().__init__(stream)
        self.follows_stderr = stream is None
        self.setFormatter(FORMATTERS[log_format]())

    def flush(self) -> None:
        if self.follows_stderr:
            self.stream = sys.stderr
        super().flush()

    def emit(self, record: logging.LogRecord) -> None:
        if self.follows_stderr:
            self.stream = sys.stderr
        super().emit(record)


# Loggers of libraries that say at INFO what pamir's own request log already says, or
# that are too chatty to help: quieter than the service's level.
QUIET = {
    "werkzeug": "WARNING",  # the development server's request lines (ours replace them)
    "gunicorn.access": "WARNING",  # gunicorn's (likewise): our request log has them
    "apscheduler": "WARNING",  # a line for every job run
    "waitress.queue": "WARNING",  # "task queue depth" at every busy moment
}


def dict_config(level: str = "info", log_format: str = "text") -> dict[str, Any]:
    """The set-up as `logging.config.dictConfig` takes it (gunicorn's `logconfig_dict`)."""
    handler = {"()": ServiceHandler, "log_format": log_format}
    loggers: dict[str, Any] = {
        name: {"level": quiet, "handlers": [], "propagate": True} for name, quiet in QUIET.items()
    }
    # gunicorn's own messages (workers booting, timeouts) go through the root's handler.
    loggers["gunicorn.error"] = {"level": level.upper(), "handlers": [], "propagate": True}
    loggers["gunicorn.access"]["propagate"] = False
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "handlers": {"service": handler},
        "root": {"level": level.upper(), "handlers": ["service"]},
        "loggers": loggers,
    }


def configure(level: str = "info", log_format: str = "text") -> None:
    """Set up the root logger: one `ServiceHandler` at `level`, and the quieted libraries.
    Calling it again replaces pamir's set-up. Where something else set logging up first
    (a program that runs pamir's commands inside its own process, a test runner), its
    handlers are left as they are and nothing is added: that program owns the log."""
    root = logging.getLogger()
    if any(not isinstance(handler, ServiceHandler) for handler in root.handlers):
        return
    for handler in list(root.handlers):
        if isinstance(handler, ServiceHandler):
            root.removeHandler(handler)
            handler.close()
    root.addHandler(ServiceHandler(log_format))
    root.setLevel(level.upper())
    for name, quiet in QUIET.items():
        logging.getLogger(name).setLevel(quiet)
    logging.getLogger("gunicorn.access").propagate = False


def from_environment(environ: dict[str, str] | os._Environ[str] = os.environ) -> tuple[str, str]:
    """(level, format) from PAMIR_LOG_LEVEL and PAMIR_LOG_FORMAT, for a command that reads
    no other setting; a command that is not the service logs warnings and errors unless
    told otherwise. A bad value is left for the settings to refuse."""
    level = environ.get("PAMIR_LOG_LEVEL", "warning").lower()
    log_format = environ.get("PAMIR_LOG_FORMAT", "text").lower()
    return (
        level if level in LEVELS else "warning",
        log_format if log_format in FORMATTERS else "text",
    )


def configured() -> bool:
    """Whether the root logger already has pamir's handler (e.g. gunicorn set it up)."""
    return any(isinstance(h, ServiceHandler) for h in logging.getLogger().handlers)
