"""An SMTP session as configured: plain, STARTTLS or TLS with the system's trusted
certificates, logged in when a user is set."""

from __future__ import annotations

import smtplib
import ssl
from contextlib import suppress
from types import MethodType
from typing import Any

from adjudicator.home.settings import Settings


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
    """An SMTP session as configured: plain, STARTTLS or TLS, logged in if a user is set."""
    assert settings.smtp_host is not None
    host, port, timeout = settings.smtp_host, settings.smtp_port, settings.smtp_timeout
    smtp: smtplib.SMTP
    if settings.smtp_security == "tls":
        smtp = smtplib.SMTP_SSL(host, port, timeout=timeout, context=ssl_context())
    else:
        smtp = smtplib.SMTP(host, port, timeout=timeout)
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
