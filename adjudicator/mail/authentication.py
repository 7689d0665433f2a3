"""Is an inbound message really from the address in its From header? (`mail_auth`)

- `token`: not checked. The reply token and the From address are enough, so whoever
  learns a player's reply address and forges their From can play in their name.
- `dkim`: the message must carry a DKIM signature (RFC 6376) that verifies and whose
  signing domain (`d=`) is aligned with the From domain.
- `authres`: the Authentication-Results header (RFC 8601) that the operator's own mail
  server added, named by `mail_authserv_id`, must say `dmarc=pass`, or `dkim=pass` with
  an aligned `header.d`.

Alignment is relaxed (RFC 7489 §3.1.1): the signing domain and the From domain have the
same organizational domain, by the Public Suffix List (`orgdomain`). `d=example.org`
aligns with `From: ...@mail.example.org` and the other way round; a signing domain that
is itself a public suffix (`co.uk`) aligns with nothing.

Headers are trusted in this order, top to bottom, as mail servers prepend them: for each
method (`dmarc`, `dkim`), only the topmost Authentication-Results header with our
authserv-id that reports that method is read; lower ones are ignored, and headers with
another authserv-id are ignored altogether (anyone can write them). A sender can still
put a header with our authserv-id into the message: only the mail server can tell it
from its own, so it must remove such headers on arrival (docs/email.md). Which headers
carry our authserv-id is read as RFC 8601 says, from the message's bytes as the mail
server reads them (`authserv`), so that its rule removes every one of them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from email.message import EmailMessage

import authres
import authres.dmarc

from adjudicator.home.settings import Settings
from adjudicator.mail.authserv import header_values, split_authserv_id
from adjudicator.mail.orgdomain import organizational_domain
from adjudicator.mail.signatures import DnsLookup, Signature, public_dns, verify_signatures

log = logging.getLogger(__name__)


def domain_of(address: str) -> str:
    return address.rpartition("@")[2].strip().rstrip(".").lower()


def is_aligned(signing_domain: str, author_domain: str) -> bool:
    """Relaxed alignment: both domains have the same organizational domain (and the
    signer has one: a public suffix aligns with nothing)."""
    signer = organizational_domain(signing_domain)
    return signer is not None and signer == organizational_domain(author_domain)


def unauthenticated(
    settings: Settings,
    message: EmailMessage,
    raw: bytes,
    sender: str,
    dnsfunc: DnsLookup | None = None,
    passed: list[Signature] | None = None,
) -> str | None:
    """Why the message is not proven to come from `sender` under `settings.mail_auth`,
    or None when it is (always None for `token`). Raises signatures.DnsUnavailable when
    a key could not be looked up for now. `passed` gets the DKIM signatures that proved
    it, top first."""
    if settings.mail_auth == "dkim":
        return _by_dkim(raw, domain_of(sender), dnsfunc or public_dns, passed)
    if settings.mail_auth == "authres":
        return _by_authres(raw, str(settings.mail_authserv_id), domain_of(sender))
    return None


# -- dkim --------------------------------------------------------------------------------


def _by_dkim(
    raw: bytes, author: str, dnsfunc: DnsLookup, passed: list[Signature] | None = None
) -> str | None:
    found = verify_signatures(raw, dnsfunc)
    if not found:
        return "the message has no DKIM signature"
    valid = [s.domain for s in found if s.valid]
    if any(is_aligned(domain, author) for domain in valid):
        if passed is not None:
            passed.extend(s for s in found if s.valid and is_aligned(s.domain, author))
        return None
    if valid:
        return (
            f"the message is DKIM-signed by {', '.join(valid)}, which is not the domain of "
            f"its From address ({author})"
        )
    problems = "; ".join(f"d={s.domain or '?'}: {s.problem}" for s in found)
    return f"the DKIM signature does not verify ({problems})"


# -- authres -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Result:
    method: str
    result: str
    properties: dict[str, str]  # "header.d" -> "example.org"


def _results(value: str, rest: str) -> list[_Result] | None:
    """The results of one Authentication-Results value, `rest` being what follows its
    authserv-id (from the ";" on); None if unreadable."""
    context = authres.FeatureContext(authres.dmarc)
    try:
        # The authserv-id is read already (authserv.py); authres reads the results.
        header = context.parse_value("id" + rest)
    except (authres.AuthResError, RecursionError) as error:  # comments nested too deep
        log.info("unreadable Authentication-Results header ignored (%s): %.200s", error, value)
        return None
    return [
        _Result(
            str(r.method).lower(),
            str(r.result).lower(),
            {f"{p.type}.{p.name}".lower(): str(p.value) for p in r.properties},
        )
        for r in header.results
    ]


def _ours(raw: bytes, authserv_id: str) -> list[list[_Result]]:
    """The results of each Authentication-Results header with our authserv-id, top first
    (read from the message's bytes as the mail server reads them: authserv.py)."""
    found: list[list[_Result]] = []
    for value in header_values(raw, "Authentication-Results"):
        split = split_authserv_id(value)
        if split is None:
            log.info("unreadable Authentication-Results header ignored: %.200s", value)
            continue
        if split[0] != authserv_id.lower():
            continue  # another server's, or anyone's
        results = _results(value, split[1])
        if results is not None:
            found.append(results)
    return found


def _topmost(headers: list[list[_Result]], method: str) -> list[_Result]:
    """The results for `method` of the topmost header that reports it: ours."""
    for results in headers:
        reported = [r for r in results if r.method == method]
        if reported:
            return reported
    return []


def _by_authres(raw: bytes, authserv_id: str, author: str) -> str | None:
    headers = _ours(raw, authserv_id)
    if not headers:
        return f"the message has no Authentication-Results header from {authserv_id}"
    dmarc = _topmost(headers, "dmarc")
    dkim = _topmost(headers, "dkim")
    for result in dmarc:
        checked = result.properties.get("header.from", author).rstrip(".").lower()
        if result.result == "pass" and checked == author:
            return None
    for result in dkim:
        if result.result == "pass" and is_aligned(result.properties.get("header.d", ""), author):
            return None
    said = [f"{r.method}={r.result}" + _domain_note(r) for r in dmarc + dkim]
    return (
        f"{authserv_id} found neither dmarc=pass nor dkim=pass for {author}"
        f" ({', '.join(said) if said else 'no dmarc or dkim result'})"
    )


def _domain_note(result: _Result) -> str:
    domain = result.properties.get("header.d") or result.properties.get("header.from")
    return f" for {domain}" if domain else ""
