"""An SMTP session as configured: plain, STARTTLS or TLS with the system's trusted
certificates, logged in when a user is set; kept open a little while between delivery
runs.

A move's reports go out in a delivery run of their own, a few seconds after the last
one. Opening a session costs a TCP connection, the server's greeting and EHLO (and, as
configured, a TLS handshake and a login), then QUIT at the end: for a delivery run over
four sessions, that was more of the service's CPU than sending the four reports over a
local server. So a session that ended its run unbroken is kept (`release`), up to
`smtp_connections` of them per server and login, for `KEPT_SECONDS`; `connect` takes the
newest kept one that answers NOOP, and opens a new one only when none does. A kept
session the server closed meanwhile fails its NOOP and is closed here: no message is
ever sent on a session that was not seen to answer just before.
"""

from __future__ import annotations

import os
import smtplib
import ssl
import threading
import time
from contextlib import suppress
from types import MethodType
from typing import Any

from adjudicator.home.settings import Settings

# How long an idle session is kept. RFC 5321 4.5.3.2.7 asks a server to wait 5 minutes
# for the next command; some close sooner, which the NOOP before reuse finds out.
KEPT_SECONDS = 60.0


def ssl_context() -> ssl.SSLContext:
    """The system's trusted certificates (SSL_CERT_FILE / SSL_CERT_DIR are honoured)."""
    return ssl.create_default_context()


def _data(smtp: smtplib.SMTP, msg: Any) -> tuple[int, bytes]:
    """smtplib's DATA, which doubles each period that starts a line (RFC 5321 4.5.2) with
    a multi-line expression over the whole message, about half a millisecond for a report
    of 90 KB: a message with no such period (a report's lines start with text, markup or
    base64) is sent as it is, after the same checks and with the same ending."""
    if type(msg) is not bytes or msg.startswith(b".") or b"\n." in msg or smtp.debuglevel:
        return smtplib.SMTP.data(smtp, msg)  # periods to double, text, or debugging
    smtp.putcmd("data")
    code, reply = smtp.getreply()
    if code != 354:
        raise smtplib.SMTPDataError(code, reply)
    ending = b".\r\n" if msg.endswith(b"\r\n") else b"\r\n.\r\n"
    smtp.send(msg + ending)
    return smtp.getreply()


def connect(settings: Settings) -> smtplib.SMTP:
    """An SMTP session as configured: plain, STARTTLS or TLS, logged in if a user is set;
    one kept from an earlier run (`release`) when one is kept and answers NOOP."""
    while (kept := _KEPT.take(_server(settings))) is not None:
        try:
            answered = kept.noop()[0] == 250
        except (OSError, smtplib.SMTPException):
            answered = False
        if answered:
            return kept
        _close(kept)
    return _opened(settings)


def release(settings: Settings, smtp: smtplib.SMTP, *, usable: bool) -> None:
    """The end of a delivery run's use of `smtp`: kept for the next run when it is
    `usable` (it did not break) and fewer than `smtp_connections` are kept, else QUIT."""
    if not usable or not _KEPT.give(_server(settings), smtp, settings.smtp_connections):
        with suppress(OSError, smtplib.SMTPException):
            smtp.quit()
        _close(smtp)


def forget_kept_sessions() -> None:
    """Close every kept session (a test's server going away, or the service stopping)."""
    for smtp in _KEPT.take_all():
        with suppress(OSError, smtplib.SMTPException):
            smtp.quit()
        _close(smtp)


def _server(settings: Settings) -> tuple[Any, ...]:
    """What a kept session must share with the settings to be used for them: the server,
    how it is reached and who is logged in; and the process (a forked one has its own)."""
    password = settings.smtp_password.get_secret_value() if settings.smtp_password else None
    return (
        os.getpid(),
        settings.smtp_host,
        settings.smtp_port,
        settings.smtp_security,
        settings.smtp_timeout,
        settings.smtp_user,
        password,
    )


def _close(smtp: smtplib.SMTP) -> None:
    with suppress(OSError):
        smtp.close()


class _Kept:
    """Idle sessions by server (see the module's documentation), the newest last."""

    def __init__(self) -> None:
        self._idle: dict[tuple[Any, ...], list[tuple[float, smtplib.SMTP]]] = {}
        self._lock = threading.Lock()

    def take(self, server: tuple[Any, ...]) -> smtplib.SMTP | None:
        """The newest session kept for `server` within `KEPT_SECONDS`; the older ones
        are closed."""
        expired: list[smtplib.SMTP] = []
        with self._lock:
            idle = self._idle.get(server, [])
            now = time.monotonic()
            expired = [smtp for since, smtp in idle if now - since > KEPT_SECONDS]
            idle[:] = [(since, smtp) for since, smtp in idle if now - since <= KEPT_SECONDS]
            found = idle.pop()[1] if idle else None
        for smtp in expired:
            _close(smtp)
        return found

    def give(self, server: tuple[Any, ...], smtp: smtplib.SMTP, most: int) -> bool:
        with self._lock:
            idle = self._idle.setdefault(server, [])
            if len(idle) >= most:
                return False
            idle.append((time.monotonic(), smtp))
            return True

    def take_all(self) -> list[smtplib.SMTP]:
        with self._lock:
            found = [smtp for idle in self._idle.values() for _, smtp in idle]
            self._idle.clear()
        return found


_KEPT = _Kept()
# The name this host gives in EHLO, as smtplib found it for the first session: it looks
# it up again for every session otherwise (three reads of /etc/hosts here).
_local_hostname: str | None = None


def _opened(settings: Settings) -> smtplib.SMTP:
    """A new session as configured."""
    global _local_hostname
    assert settings.smtp_host is not None
    host, port, timeout = settings.smtp_host, settings.smtp_port, settings.smtp_timeout
    smtp: smtplib.SMTP
    if settings.smtp_security == "tls":
        smtp = smtplib.SMTP_SSL(
            host, port, local_hostname=_local_hostname, timeout=timeout, context=ssl_context()
        )
    else:
        smtp = smtplib.SMTP(host, port, local_hostname=_local_hostname, timeout=timeout)
    _local_hostname = getattr(smtp, "local_hostname", None)
    # This session's DATA (sendmail's) is `_data`: set on the session itself, whatever
    # class smtplib makes it of.
    smtp.data = MethodType(_data, smtp)  # type: ignore[method-assign]
    try:
        if settings.smtp_security == "starttls":
            smtp.ehlo()
            smtp.starttls(context=ssl_context())
            smtp.ehlo()
        if settings.smtp_user:
            password = settings.smtp_password
            smtp.login(settings.smtp_user, password.get_secret_value() if password else "")
    except BaseException:
        with suppress(Exception):
            smtp.close()
        raise
    return smtp
