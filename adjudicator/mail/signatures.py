"""The DKIM signatures of an inbound message (RFC 6376), verified with dkimpy.

dkimpy has no type hints: this module is the only one that calls it, and hands the rest
of the service typed results. The DNS lookup is a parameter, so that a test can publish
its own key without a DNS server.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

import dkim
from dkim import dnsplug


class DnsLookup(Protocol):
    """A TXT lookup as dkimpy calls it: the record for `name` (bytes), or None."""

    def __call__(self, name: bytes, timeout: int = 5) -> bytes | None: ...


def public_dns(name: bytes, timeout: int = 5) -> bytes | None:
    """The TXT record from the system's resolver (dkimpy's own lookup, on dnspython)."""
    found = dnsplug.get_txt(name, timeout=timeout)
    return bytes(found) if found is not None else None


class DnsUnavailable(RuntimeError):
    """The signer's key could not be looked up for now: try the message again later."""


@dataclass(frozen=True)
class Signature:
    """One DKIM-Signature header: its signing domain (`d=`), and whether it verifies."""

    domain: str
    valid: bool
    problem: str = ""  # why it does not verify, for the log and the player
    b: str = ""  # the signature itself (`b=`), without its folding whitespace


class _Errors(logging.Handler):
    """Keeps what dkimpy logs as errors: its only word on why a key could not be used."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _problem(error: str, selector: str, domain: str) -> str:
    where = f"{selector}._domainkey.{domain}"
    if error.startswith("DnsTimeoutError"):
        raise DnsUnavailable(f"the DKIM key at {where} could not be looked up: {error}")
    if "missing public key" in error:
        return f"no DKIM key is published at {where}"
    if error:
        return f"the DKIM key at {where} cannot be used ({error})"
    return f"the signature does not match the message and the key at {where}"


def verify_signatures(raw: bytes, dnsfunc: DnsLookup = public_dns) -> list[Signature]:
    """Every DKIM signature of the message, top to bottom, verified; [] when unsigned.

    A signature counts only if it covers the From header (RFC 6376 section 5.4 requires
    the signer to sign it; an unsigned From could be replaced) and the Message-ID header
    (by which a message handled before is known: an unsigned one could be replaced, and
    the move played again), and all of the body: one with `l=` signs only its first
    bytes, and more lines could follow (adjudicator/mail/replays.py). Raises
    DnsUnavailable when a key lookup timed out.
    """
    errors = _Errors()
    # A logger of our own, outside the logging tree: dkimpy's errors are read, not shown.
    logger = logging.Logger("dkim-verify")
    logger.addHandler(errors)
    try:
        checker = dkim.DKIM(raw, logger=logger)
    except dkim.DKIMException as error:
        return [Signature("", False, f"the message cannot be read for DKIM ({error})")]
    count = sum(1 for name, _ in checker.headers if name.lower() == b"dkim-signature")
    return [_verify(checker, index, dnsfunc, errors) for index in range(count)]


def _verify(checker: dkim.DKIM, index: int, dnsfunc: DnsLookup, errors: _Errors) -> Signature:
    errors.messages.clear()
    checker.domain = checker.selector = None
    try:
        valid = bool(checker.verify(idx=index, dnsfunc=dnsfunc))
    except dkim.DKIMException as error:
        return Signature(_text(checker.domain), False, _described(str(error)))
    domain, selector = _text(checker.domain), _text(checker.selector)
    if not valid:
        return Signature(domain, False, _problem(" ".join(errors.messages), selector, domain))
    fields = checker.signature_fields or {}
    signed = "".join(bytes(fields.get(b"b", b"")).decode("ascii", "replace").split())
    if b"from" not in (checker.include_headers or ()):
        return Signature(domain, False, "the signature does not cover the From header", signed)
    if b"message-id" not in (checker.include_headers or ()):
        problem = "the signature does not cover the Message-ID header"
        return Signature(domain, False, problem, signed)
    if b"l" in fields:
        problem = "the signature covers only the first bytes of the body (l=)"
        return Signature(domain, False, problem, signed)
    return Signature(domain, True, b=signed)


def _described(error: str) -> str:
    if error.startswith("body hash mismatch"):
        return "the body was changed after it was signed (body hash mismatch)"
    return f"the signature is malformed or does not apply ({error})"


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
    return text.strip().rstrip(".").lower()
