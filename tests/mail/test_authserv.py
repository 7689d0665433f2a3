"""Whose Authentication-Results header is it (RFC 8601), and does the mail server's rule
remove every one that the service would take for its server's (docs/email.md)?

The rule is read from docs/email.md, as operators copy it, and run by the C library's
POSIX regular expressions, as Postfix's `regexp:` tables run it: extended syntax, case
ignored, no newline-sensitive matching (Postfix's defaults), over a header as Postfix's
header_checks see it, its lines joined by a line feed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from adjudicator.mail.authserv import header_values, split_authserv_id

DOCS = Path(__file__).resolve().parents[2] / "docs" / "email.md"
OURS = "mx.example.org"  # the authserv-id in docs/email.md's examples
RESULTS = "; dkim=pass header.d=players.example"

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
REG_EXTENDED, REG_ICASE = 1, 2  # the same in glibc, musl and the BSDs


class PosixRegex:
    """One regcomp(3) pattern, matched with regexec(3)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._compiled = ctypes.create_string_buffer(1024)  # larger than any regex_t
        error = _libc.regcomp(self._compiled, pattern.encode(), flags)
        assert error == 0, f"regcomp refused {pattern!r}: {error}"

    def search(self, text: str) -> bool:
        found: int = _libc.regexec(self._compiled, text.encode(), 0, None, 0)
        return found == 0

    def __del__(self) -> None:
        _libc.regfree(self._compiled)


def documented_rules() -> list[str]:
    """The header_checks rules in docs/email.md that remove a header."""
    text = DOCS.read_text(encoding="utf-8")
    return re.findall(r"^/(.+)/\s+IGNORE\s*$", text, re.MULTILINE)


@pytest.fixture(scope="module")
def rule() -> PosixRegex:
    (pattern,) = documented_rules()
    return PosixRegex(pattern, REG_EXTENDED | REG_ICASE)  # Postfix's defaults


def as_postfix_sees(field: str) -> str:
    """The logical header header_checks are given: lines joined by a line feed."""
    return field.replace("\r\n", "\n")


def read_as_ours(field: str) -> bool:
    """Whether the service reads this header field as written by server OURS."""
    (value,) = header_values(field.encode() + b"\n\n", "Authentication-Results")
    split = split_authserv_id(value)
    return split is not None and split[0] == OURS


# The forms a sender may give a header that the service takes for its server's.
CLAIMS_OURS = {
    "plain": f"Authentication-Results: {OURS}{RESULTS}",
    "no space": f"Authentication-Results:{OURS}{RESULTS}",
    "comment before": f"Authentication-Results: (x) {OURS}{RESULTS}",
    "comment glued": f"Authentication-Results:(x){OURS}{RESULTS}",
    "nested comments": f"Authentication-Results: (a (b) c) {OURS} (d (e)){RESULTS}",
    "escaped parenthesis": f"Authentication-Results: (a\\) ; {OURS}.evil) {OURS}{RESULTS}",
    "upper case": f"Authentication-Results: {OURS.upper()}{RESULTS}",
    "name in lower case": f"authentication-results: {OURS}{RESULTS}",
    "quoted": f'Authentication-Results: "{OURS}"{RESULTS}',
    "quoted, mixed case": f'Authentication-Results: (c) "MX.Example.ORG" (d){RESULTS}',
    "folded": f"Authentication-Results:\r\n\t(x)\r\n {OURS}\r\n\t{RESULTS}",
    "folded in a comment": f"Authentication-Results: (a\r\n b) {OURS}{RESULTS}",
    "version": f"Authentication-Results: {OURS} 1{RESULTS}",
    "version between comments": f"Authentication-Results: {OURS}(c)1(d){RESULTS}",
    "no result": f"Authentication-Results: {OURS}; none",
}

# Forms the service does not take for its server's, whatever the rule does with them.
NOT_OURS = {
    "starts with ours": f"Authentication-Results: {OURS}.evil.example{RESULTS}",
    "ends with ours": f"Authentication-Results: evil-{OURS}{RESULTS}",
    "trailing dot": f"Authentication-Results: {OURS}.{RESULTS}",
    "ours in a comment": f"Authentication-Results: ({OURS}) elsewhere.example{RESULTS}",
    "quoted-pair": f'Authentication-Results: "m\\x.example.org"{RESULTS}',
    "space in quotes": f'Authentication-Results: " {OURS}"{RESULTS}',
    "encoded-word": f"Authentication-Results: =?utf-8?q?mx=2Eexample=2Eorg?={RESULTS}",
    "version 2": f"Authentication-Results: {OURS} 2{RESULTS}",
    "version glued to quotes": f'Authentication-Results: "{OURS}"1{RESULTS}',
    "unclosed comment": f"Authentication-Results: (x {OURS}{RESULTS}",
    "no semicolon": f"Authentication-Results: {OURS} dkim=pass",
    "bare carriage return": f"Authentication-Results: (x)\r{OURS}{RESULTS}",
    "a line break that is no folding": f"Authentication-Results: (x\n){OURS}{RESULTS}",
}


def test_the_docs_give_one_rule() -> None:
    assert len(documented_rules()) == 1


@pytest.mark.parametrize("field", CLAIMS_OURS.values(), ids=CLAIMS_OURS.keys())
def test_the_documented_rule_removes_every_form_of_our_authserv_id(
    rule: PosixRegex, field: str
) -> None:
    assert read_as_ours(field)
    assert rule.search(as_postfix_sees(field))


@pytest.mark.parametrize("field", NOT_OURS.values(), ids=NOT_OURS.keys())
def test_headers_that_only_resemble_ours_are_not_read_as_ours(field: str) -> None:
    assert not read_as_ours(field)


def test_the_rule_keeps_other_servers_headers(rule: PosixRegex) -> None:
    assert not rule.search("Authentication-Results: mx.google.com; dkim=pass header.d=a.org")
    assert not rule.search("Received: from mx.example.org by mx.example.org")


def variants() -> Iterator[str]:
    """Many spellings of a header: CFWS, quoting, case, version, between the pieces."""
    spaces = ["", " ", "\t", "\n ", " (c) ", "(a(b)c)", "(x;y\\)z)", "\n\t(c\n d)\n "]
    ids = [OURS, OURS.upper(), "Mx.Example.Org", f'"{OURS}"', f'"{OURS.upper()}"']
    versions = ["", " 1", "(v)1", " 01"]
    for before, ident, version, after in itertools.product(spaces, ids, versions, spaces):
        yield f"Authentication-Results:{before}{ident}{version}{after}{RESULTS}"


def test_whatever_the_service_reads_as_ours_the_rule_removes(rule: PosixRegex) -> None:
    """Over many spellings: none that the service reads as its server's escapes the rule."""
    read = 0
    for field in variants():
        if read_as_ours(field):
            read += 1
            assert rule.search(as_postfix_sees(field)), field
    assert read > 1000  # the spellings are read, not refused wholesale


def test_the_old_rule_let_a_comment_before_the_id_through() -> None:
    """The rule docs/email.md gave before: what the attack got past."""
    old = PosixRegex(
        r"^Authentication-Results:[[:space:]]*mx\.example\.org([[:space:];]|$)",
        REG_EXTENDED | REG_ICASE,
    )
    field = CLAIMS_OURS["comment before"]
    assert read_as_ours(field) and not old.search(field)


# -- Reading the header as the mail server does ----------------------------------------------


def values(raw: bytes) -> list[str]:
    return header_values(raw, "Authentication-Results")


def test_fields_are_read_in_order_with_their_continuation_lines() -> None:
    raw = (
        b"From x@y  Mon Jan  1 00:00:00 2026\n"  # a delivery agent's mailbox separator
        b"Authentication-Results: one;\r\n\tdkim=pass\r\n"
        b"Received: by mx\r\n"
        b"authentication-results: two; none\r\n"
        b"\r\n"
        b"Authentication-Results: in the body; none\r\n"
    )
    assert values(raw) == [" one;\n\tdkim=pass", " two; none"]


@pytest.mark.parametrize(
    "smuggled",
    [
        b"X-Note: a\rAuthentication-Results: mx.example.org; dmarc=pass\n",  # a lone CR
        b": no name\nAuthentication-Results: mx.example.org; dmarc=pass\n",
        b"From mallory  Mon Jan  1 00:00:00 2026\nAuthentication-Results: mx.example.org; x\n",
        b"Not a field\nAuthentication-Results: mx.example.org; dmarc=pass\n",
        b"Authentication-Results : mx.example.org; dmarc=pass\n",  # obsolete syntax
    ],
    ids=["lone-cr", "no-name", "misplaced-from", "not-a-field", "space-before-colon"],
)
def test_a_field_the_mail_server_would_not_see_as_one_is_not_read(smuggled: bytes) -> None:
    """Python's parser reads on past these lines, where Postfix sees the body begin (or,
    for a lone carriage return, one field), so that its rule never sees the header below.
    (Postfix reads `Name :` as `Name:`; the service stops there, which is as safe.)"""
    raw = b"From: alice@players.example\n" + smuggled + b"Subject: x\n\nbody\n"
    assert values(raw) == []


def test_a_continuation_line_at_the_top_begins_the_body() -> None:
    assert values(b" folded\nAuthentication-Results: mx.example.org; none\n\n") == []


def test_comments_nested_deeper_than_any_stack_are_read() -> None:
    deep = "(" * 100_000 + ")" * 100_000
    assert split_authserv_id(f"{deep} {OURS}{RESULTS}") == (OURS, RESULTS)
    assert split_authserv_id(f"{deep[:-1]} {OURS}{RESULTS}") is None


def test_a_version_of_thousands_of_digits_is_refused_not_raised() -> None:
    assert split_authserv_id(f"{OURS} {'1' * 5000}{RESULTS}") is None
