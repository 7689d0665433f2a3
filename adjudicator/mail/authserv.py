"""Which server wrote an Authentication-Results header: its authserv-id (RFC 8601).

`mail_auth = "authres"` trusts the headers that carry our mail server's authserv-id, and
the mail server must remove every such header a sender put in (docs/email.md). That
holds only if the service reads a header as its server's exactly when the server's rule
sees one, so this module reads the way the mail server does, and no further:

- The message's header fields are read from its bytes as the mail server reads them
  (`header_values`): lines end at a line feed only (a lone carriage return is part of
  its line, as in Postfix), and the header ends at the first line that is neither a
  field nor a continuation of one. Python's email parser goes on past a line with no
  field name, a misplaced "From " line, or a continuation with nothing to continue,
  where Postfix sees the body begin: a field below such a line escapes the server's
  rule, so it is not read. Nor is any RFC 2047 encoded-word decoded (an
  Authentication-Results header is structured, and has none).
- The authserv-id (`split_authserv_id`) is RFC 8601's: after any comments and folding
  white space (CFWS), a `value` (RFC 2045: a token or a quoted-string), then optionally
  CFWS and the version, 1, then CFWS and the first ";". A quoted-string is read only
  when it holds plain characters: a quoted-pair (`"m\\x.example.org"` is mx.example.org)
  or white space in it makes the header unreadable, since no rule of a mail server
  could reliably tell its own name in such a form. The id is compared without case.

So a header the service reads as its server's holds that name, as written, somewhere in
the field: what the documented rule matches.
"""

from __future__ import annotations

import re

# RFC 2045 token: US-ASCII printable characters but the tspecials ()<>@,;:\"/[]?=.
_TOKEN = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`{|}~-]+")
# RFC 5322 qtext: printable US-ASCII but '"' and '\'.
_QTEXT = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")
# A header field's first line: a name of printable US-ASCII but ':', then ':'.
_FIELD = re.compile(rb"^([\x21-\x39\x3b-\x7e]+):")
_WSP = " \t"
_DIGITS = re.compile(r"[0-9]+")
VERSION = "1"  # the only version of RFC 8601's header


def header_values(raw: bytes, name: str) -> list[str]:
    """The values of the header fields called `name` (any case), top first, unfolded
    no further than the mail server does: continuation lines joined by a line feed."""
    lines = raw.split(b"\n")
    if lines and lines[0].startswith(b"From "):
        lines = lines[1:]  # the mailbox separator some delivery agents write first
    fields: list[tuple[bytes, list[bytes]]] = []
    for line in lines:
        line = line.removesuffix(b"\r")
        if line == b"":
            break
        if line[:1] in (b" ", b"\t"):
            if not fields:
                break  # a continuation of nothing: the server sees the body begin here
            fields[-1][1].append(line)
            continue
        field = _FIELD.match(line)
        if field is None:
            break  # not a field: the header ends here for the server, so here too
        fields.append((field.group(1).lower(), [line[field.end() :]]))
    wanted = name.lower().encode("ascii")
    return [
        b"\n".join(parts).decode("utf-8", "surrogateescape")
        for found, parts in fields
        if found == wanted
    ]


def split_authserv_id(value: str) -> tuple[str, str] | None:
    """(authserv-id in lower case, the rest from its ";" on) of an Authentication-Results
    value, or None when the value does not begin as RFC 8601 says, when its version is
    not 1, or when its authserv-id is quoted with more than plain characters."""
    at = _after_cfws(value, 0)
    if at is None or at == len(value):
        return None
    if value[at] == '"':
        end = value.find('"', at + 1)
        if end < 0:
            return None
        ident = value[at + 1 : end]
        if not _QTEXT.fullmatch(ident):
            return None  # empty, or a quoted-pair, white space, anything unusual
        at = end + 1
    else:
        token = _TOKEN.match(value, at)
        if token is None:
            return None
        ident, at = token.group(), token.end()
    spaced = _after_cfws(value, at)
    if spaced is None:
        return None
    version = _DIGITS.match(value, spaced)
    if version is not None:
        if spaced == at or version.group().lstrip("0") != VERSION:
            return None  # glued to the id (not RFC 8601's), or a version we cannot read
        spaced = _after_cfws(value, version.end())
        if spaced is None:
            return None
    if not value.startswith(";", spaced):
        return None
    return ident.lower(), value[spaced:]


def _after_cfws(text: str, at: int) -> int | None:
    """Where the comments and folding white space starting at `at` end; None when a
    comment is not closed or holds what a comment may not. Nesting is counted, not
    recursed into, so no depth of parentheses can exhaust the stack."""
    depth = 0
    while at < len(text):
        char = text[at]
        if char in _WSP:
            at += 1
        elif char == "\n":
            if not text.startswith((" ", "\t"), at + 1):
                return None  # a line break that is no folding
            at += 1
        elif char == "(":
            depth += 1
            at += 1
        elif depth == 0:
            return at
        elif char == ")":
            depth -= 1
            at += 1
        elif char == "\\":
            if at + 1 >= len(text) or not _commentable(text[at + 1]):
                return None
            at += 2  # a quoted-pair: the next character stands for itself
        elif _commentable(char):
            at += 1
        else:
            return None
    return None if depth else at


def _commentable(char: str) -> bool:
    """Whether a comment may hold `char`: printable US-ASCII, or UTF-8 (RFC 6532), or a
    tab; no other control character, and no lone carriage return."""
    return char == "\t" or (char >= " " and char != "\x7f")
