"""An SMTP session as configured: plain, STARTTLS or TLS with the system's trusted
certificates, logged in when a user is set."""

from __future__ import annotations

import smtplib
import ssl
from contextlib import suppress

from adjudicator.home.settings import Settings


def ssl_context() -> ssl.SSLContext:
    """The system's trusted certificates (SSL_CERT_FILE / SSL_CERT_DIR are honoured)."""
    return ssl.create_default_context()


def connect(settings: Settings) -> smtplib.SMTP:
    """An SMTP session as configured: plain, STARTTLS or TLS, logged in if a user is set."""
    assert settings.smtp_host is not None
    host, port, timeout = settings.smtp_host, settings.smtp_port, settings.smtp_timeout
    smtp: smtplib.SMTP
    if settings.smtp_security == "tls":
        smtp = smtplib.SMTP_SSL(host, port, timeout=timeout, context=ssl_context())
    else:
        smtp = smtplib.SMTP(host, port, timeout=timeout)
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
