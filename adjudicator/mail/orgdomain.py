"""Organizational domains (RFC 7489 §3.2), for DMARC's relaxed alignment.

The organizational domain of a name is its public suffix (by the Public Suffix List) and
one label more: `example.co.uk` for `mail.example.co.uk`, `example.org` for
`example.org`. A name that is itself a public suffix (`co.uk`, `github.io`, an unknown
top-level domain by the list's default rule `*`) has none.

The list is the copy the `publicsuffixlist` package ships; nothing is fetched. Loading it
takes about a tenth of a second, so each process loads it once, when it first needs it.

Names are compared in their ASCII form: lower case, without the root's trailing dot, and
each non-ASCII label as its A-label (`bücher.de` is `xn--bcher-kva.de`). A label is
turned into punycode as it is, after NFC and lower-casing, with none of IDNA 2003's
other mappings: those make two names one that IDNA 2008 keeps apart (`faß.de` would be
`fass.de`), and another owner's domain would align.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from publicsuffixlist import PublicSuffixList

_ASCII_LABEL = re.compile(r"^[a-z0-9_-]{1,63}$")


@functools.cache
def public_suffixes() -> PublicSuffixList:
    """The Public Suffix List, loaded once per process."""
    return PublicSuffixList()


def ascii_name(domain: str) -> str | None:
    """`domain` in the form names are compared in, or None when it is no domain name."""
    name = domain.strip().lower().removesuffix(".")
    labels = name.split(".")
    encoded: list[str] = []
    for label in labels:
        if not label.isascii():
            try:
                label = "xn--" + unicodedata.normalize("NFC", label).encode("punycode").decode()
            except UnicodeError:
                return None
        if not _ASCII_LABEL.match(label):
            return None  # an empty label (`a..b`, a leading dot), a space, a stray sign
        encoded.append(label)
    ascii = ".".join(encoded)
    return ascii if len(ascii) <= 253 else None


def organizational_domain(domain: str) -> str | None:
    """The organizational domain of `domain`, in ASCII form; None when it has none (a
    public suffix) or is no domain name."""
    name = ascii_name(domain)
    if name is None:
        return None
    found = public_suffixes().privatesuffix(name)
    return str(found) if found else None
