"""Inbound mail is measured before it is parsed, and refused when it would cost too much.

Python's email package (`email.policy.default`) parses some header values in time and
memory that grow with the square of their size: a Subject of a few thousand RFC 2047
encoded words takes hundreds of megabytes, and one message under `max_inbound_bytes` can
take gigabytes. Its parser handles every line, and checks it against the boundary of
every enclosing MIME part, so that deep nesting multiplies the cost of every line. So
`measure` reads the raw bytes first, with a few regular expressions and no email package:
the header block of the message and of each MIME part, as the email package's parser
finds them, and the tree of parts. A message over any of the bounds below raises
`TooComplex` naming the bound, and is not parsed at all.

Within the bounds, parsing the whole message costs little (benchmarks/hostile_mail.py
measures it, benchmarks/README.md has its figures). Ordinary replies are far inside them:
a mail program writes a few dozen header fields of a few hundred bytes, a handful of
encoded words, and two or three levels of parts.

The tree is read as the email package's feed parser reads it (lines end with CRLF, CR or
LF; a part's headers end at a blank line or at the first line that is no header line; a
`message/*` part holds one message, `message/delivery-status` blocks of headers; a part
of a `multipart/digest` is a `message/rfc822` by default). Wherever this reading could
differ from the package's, the message is refused rather than guessed at: a part with
two Content-Type fields, a multipart type or boundary that is not written plainly, a
boundary that begins another one in force.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_FIELDS = 300  # header fields in one header block (the message's or a part's)
MAX_ALL_FIELDS = 1000  # header fields in the whole message
MAX_HEADER_LINES = 3000  # header lines, folded ones included, in the whole message
MAX_FIELD_BYTES = 16 * 1024  # one header field, with its folded lines
MAX_HEADER_BYTES = 256 * 1024  # every header block together
MAX_ENCODED_WORDS_PER_FIELD = 64  # RFC 2047 encoded words (`=?...?=`) in one field
MAX_ENCODED_WORDS = 256  # in every header block together
# The fields that are decoded with email.policy.default, whose cost grows fastest.
DECODED = frozenset(
    {
        "from",
        "to",
        "cc",
        "subject",
        "message-id",
        "auto-submitted",
        "precedence",
        "authentication-results",
        "content-type",
        "content-disposition",
        "content-transfer-encoding",
        "content-id",
    }
)
MAX_DECODED_FIELD_BYTES = 2048
MAX_DECODED_BYTES = 32 * 1024  # those fields together
# A MIME field longer than this must be written plainly: `type/subtype; name=value; ...`.
MAX_LOOSE_MIME_BYTES = 256
MAX_MIME_PARAMETERS = 12
# Lines of the whole message: the parser handles each (and checks it against every
# boundary in force); mail programs write lines of 70 to 998 bytes, so 1 MB of mail is a
# few tens of thousands of them.
MAX_LINES = 100_000
MAX_DEPTH = 8  # multipart and message/* parts nested in each other
MAX_PARTS = 64  # MIME parts in all
MAX_SIGNATURES = 8  # DKIM-Signature fields of the message: each is a key to look up

LIMITS = {
    "max_fields": MAX_FIELDS,
    "max_all_fields": MAX_ALL_FIELDS,
    "max_header_lines": MAX_HEADER_LINES,
    "max_field_bytes": MAX_FIELD_BYTES,
    "max_header_bytes": MAX_HEADER_BYTES,
    "max_encoded_words_per_field": MAX_ENCODED_WORDS_PER_FIELD,
    "max_encoded_words": MAX_ENCODED_WORDS,
    "max_decoded_field_bytes": MAX_DECODED_FIELD_BYTES,
    "max_decoded_bytes": MAX_DECODED_BYTES,
    "max_loose_mime_bytes": MAX_LOOSE_MIME_BYTES,
    "max_mime_parameters": MAX_MIME_PARAMETERS,
    "max_lines": MAX_LINES,
    "max_depth": MAX_DEPTH,
    "max_parts": MAX_PARTS,
    "max_signatures": MAX_SIGNATURES,
}

_LINE_END = re.compile(rb"\r\n|\r|\n")
# The feed parser's test of a header line (email.feedparser.headerRE), and a blank line.
_HEADER_LINE = re.compile(rb"From |[\x21-\x39\x3b-\x7e]*:|[\t ]")
_BLANK = re.compile(rb"\r\n|\r|\n")
_ENCODED_WORD = re.compile(rb"=\?")  # the start of one: counted generously
_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_TYPE = re.compile(rb"\s*(" + _TOKEN + rb")\s*/\s*(" + _TOKEN + rb")\s*(?:;|\Z)")
_QUOTED = rb'"(?:[^"\\\r\n]|\\[^\r\n])*"'
_PARAMETER = re.compile(rb"\s*;\s*(" + _TOKEN + rb")\s*=\s*(" + _QUOTED + rb"|" + _TOKEN + rb")")
_END = re.compile(rb"\s*;?\s*")
# RFC 2046 section 5.1.1: 1 to 70 of these characters, the last not a space.
_BCHARS = re.compile(rb"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")
_MIME_FIELDS = ("content-type", "content-disposition", "content-transfer-encoding")


class TooComplex(ValueError):
    """The message is over one of the bounds; the text says which."""


@dataclass
class Shape:
    """What `measure` found: where the message's own header block ends, and its counts."""

    body_start: int = 0  # the offset of the message's body (after its header block)
    lines: int = 0
    fields: int = 0
    header_lines: int = 0
    header_bytes: int = 0
    encoded_words: int = 0
    decoded_bytes: int = 0
    parts: int = 0
    depth: int = 0
    names: list[str] = field(default_factory=list)  # the message's own fields, in order


def measure(raw: bytes) -> Shape:
    """The shape of the message; TooComplex when it is over a bound."""
    return _Scan(raw).run()


def too_complex(raw: bytes) -> str | None:
    """Why the message is over a bound, or None."""
    try:
        measure(raw)
    except TooComplex as error:
        return str(error)
    return None


@dataclass
class _Field:
    name: str  # lower case
    raw: bytes  # the whole field, folded lines and line ends included

    def value(self) -> bytes:
        """The value unfolded (line ends dropped, as the email package does)."""
        return _LINE_END.sub(b"", self.raw.partition(b":")[2])


@dataclass(frozen=True)
class _Delimiter:
    start: int  # where its line starts
    end: int  # where the next line starts
    boundary: bytes
    close: bool  # `--BOUNDARY--`


@dataclass(frozen=True)
class _Finder:
    """Delimiter lines of the boundaries in force, as the feed parser matches them."""

    at: re.Pattern[bytes]  # one at a given line start
    after: re.Pattern[bytes]  # one after a line end

    def match(self, data: bytes, pos: int) -> _Delimiter | None:
        found = self.at.match(data, pos)
        return _delimiter(found, found.start()) if found is not None else None

    def search(self, data: bytes, pos: int) -> _Delimiter | None:
        """The first delimiter line starting at or after `pos` (a line start)."""
        found = self.at.match(data, pos)
        if found is not None:
            return _delimiter(found, pos)
        found = self.after.search(data, pos)
        return _delimiter(found, found.start() + 1) if found is not None else None


def _delimiter(found: re.Match[bytes], start: int) -> _Delimiter:
    return _Delimiter(start, found.end(), found.group(1), bool(found.group(2)))


class _Scan:
    def __init__(self, raw: bytes) -> None:
        self.data = raw
        self.shape = Shape()
        self._finders: dict[tuple[bytes, ...], _Finder] = {}

    def run(self) -> Shape:
        data = self.data
        lines = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
        if lines > MAX_LINES:
            raise TooComplex(f"more than {MAX_LINES} lines")
        self.shape.lines = lines
        fields = self._part(0, (), 0, b"text/plain", top=True)[1]
        names = [f.name for f in fields]
        signatures = names.count("dkim-signature")
        if signatures > MAX_SIGNATURES:
            raise TooComplex(f"{signatures} DKIM-Signature fields (at most {MAX_SIGNATURES})")
        self.shape.names = names
        return self.shape

    # -- header blocks -------------------------------------------------------------------

    def _headers(self, pos: int, bounds: tuple[bytes, ...]) -> tuple[list[_Field], int, bool]:
        """The fields of the header block at `pos`, where its body starts, and whether a
        blank line ended it (the body starts after it). Else a line that is no header
        line ended it, or a boundary line in force (which ends the part itself)."""
        data, shape = self.data, self.shape
        finder = self._finder(bounds) if bounds else None
        fields: list[_Field] = []
        start, blank = pos, False
        current = field_end = -1  # where the field being read begins and ends
        while pos < len(data):
            if finder is not None and finder.match(data, pos) is not None:
                break
            found = _LINE_END.search(data, pos)
            line_end = found.end() if found else len(data)
            if not _HEADER_LINE.match(data, pos):
                if _BLANK.match(data, pos):
                    pos, blank = line_end, True
                break
            shape.header_lines += 1
            if shape.header_lines > MAX_HEADER_LINES:
                raise TooComplex(f"more than {MAX_HEADER_LINES} header lines")
            if data[pos : pos + 1] not in (b" ", b"\t"):
                if current >= 0:
                    fields.append(self._field(data[current:field_end]))
                    current = -1
                # The feed parser ignores an envelope line (`From ...`) and a line without
                # a name (`:...`), and the folded lines after them, as it ignores folded
                # lines before the first field.
                if not data.startswith((b"From ", b":"), pos):
                    if len(fields) >= MAX_FIELDS:
                        raise TooComplex(f"more than {MAX_FIELDS} header fields in one part")
                    current = pos
            if current >= 0:
                if line_end - current > MAX_FIELD_BYTES:
                    said = _said(data[current : current + 80])
                    raise TooComplex(f"{said} longer than {MAX_FIELD_BYTES} bytes")
                field_end = line_end
            pos = line_end
        if current >= 0:
            fields.append(self._field(data[current:field_end]))
        shape.fields += len(fields)
        if shape.fields > MAX_ALL_FIELDS:
            raise TooComplex(f"more than {MAX_ALL_FIELDS} header fields in all")
        shape.header_bytes += pos - start
        if shape.header_bytes > MAX_HEADER_BYTES:
            raise TooComplex(f"more than {MAX_HEADER_BYTES} bytes of headers")
        return fields, pos, blank

    def _field(self, raw: bytes) -> _Field:
        made = _Field(_name(raw), raw)
        said = _said(raw)
        words = len(_ENCODED_WORD.findall(raw))
        if words > MAX_ENCODED_WORDS_PER_FIELD:
            raise TooComplex(
                f"{words} encoded words in {said} (at most {MAX_ENCODED_WORDS_PER_FIELD} a field)"
            )
        self.shape.encoded_words += words
        if self.shape.encoded_words > MAX_ENCODED_WORDS:
            raise TooComplex(f"more than {MAX_ENCODED_WORDS} encoded words in its headers")
        if made.name in DECODED:
            if len(raw) > MAX_DECODED_FIELD_BYTES:
                raise TooComplex(f"{said} of {len(raw)} bytes (at most {MAX_DECODED_FIELD_BYTES})")
            self.shape.decoded_bytes += len(raw)
            if self.shape.decoded_bytes > MAX_DECODED_BYTES:
                raise TooComplex(
                    f"more than {MAX_DECODED_BYTES} bytes of the header fields that are decoded"
                )
        if made.name in _MIME_FIELDS and len(raw) > MAX_LOOSE_MIME_BYTES:
            value = made.value()
            parameters = _parameters(value, _TYPE.match(value) or _TOKEN_START.match(value))
            if parameters is None or len(parameters) > MAX_MIME_PARAMETERS:
                raise TooComplex(
                    f"{said} of {len(raw)} bytes that is not written plainly "
                    f"(type/subtype; at most {MAX_MIME_PARAMETERS} name=value parameters)"
                )
        return made

    # -- the tree of parts ----------------------------------------------------------------

    def _part(
        self, pos: int, bounds: tuple[bytes, ...], depth: int, default: bytes, top: bool = False
    ) -> tuple[int, list[_Field]]:
        """Read the part (or message) at `pos`, inside the multiparts whose boundaries are
        `bounds`: return where it ends (at a boundary line in force, or the end of the
        message), and its fields."""
        self._count(depth, part=not top)
        fields, pos, _ = self._headers(pos, bounds)
        if top:
            self.shape.body_start = pos
        kind = _content_type(fields, default)
        if kind == b"message/delivery-status":
            return self._delivery_status(pos, bounds, depth), fields
        maintype, _, subtype = kind.partition(b"/")
        if maintype == b"message":
            return self._part(pos, bounds, depth + 1, b"text/plain")[0], fields
        if maintype == b"multipart":
            boundary = _boundary(fields)
            if boundary is not None:
                inner = b"message/rfc822" if subtype == b"digest" else b"text/plain"
                return self._multipart(pos, bounds, boundary, depth, inner), fields
        return self._rest(pos, bounds), fields

    def _count(self, depth: int, *, part: bool = True) -> None:
        if depth > MAX_DEPTH:
            raise TooComplex(f"MIME parts nested more than {MAX_DEPTH} deep")
        self.shape.depth = max(self.shape.depth, depth)
        if part:
            self.shape.parts += 1
            if self.shape.parts > MAX_PARTS:
                raise TooComplex(f"more than {MAX_PARTS} MIME parts")

    def _multipart(
        self, pos: int, bounds: tuple[bytes, ...], boundary: bytes, depth: int, inner: bytes
    ) -> int:
        for other in bounds:
            if other.startswith(boundary) or boundary.startswith(other):
                raise TooComplex("a MIME boundary that begins another one in force")
        inside = (*bounds, boundary)
        finder, own = self._finder(inside), self._finder((boundary,))
        data = self.data
        while True:
            found = finder.search(data, pos)
            if found is None:
                return len(data)
            if found.boundary != boundary:
                return found.start  # an enclosing part's boundary: this part ends
            pos = found.end
            if found.close:  # the epilogue, to the end of the enclosing part
                return self._rest(pos, bounds)
            while (again := own.match(data, pos)) is not None:
                pos = again.end  # the feed parser skips repeated delimiter lines
            pos = self._part(pos, inside, depth + 1, inner)[0]

    def _delivery_status(self, pos: int, bounds: tuple[bytes, ...], depth: int) -> int:
        """Blocks of header fields separated by blank lines, each a part of its own."""
        data = self.data
        finder = self._finder(bounds) if bounds else None
        while True:
            self._count(depth + 1)
            fields, pos, blank = self._headers(pos, bounds)
            if any(f.name == "content-type" for f in fields):
                raise TooComplex("a delivery status block with a Content-Type")
            if not blank:  # lines that are no header lines, to the next blank line
                stop = self._rest(pos, bounds)
                gap = _BLANK_LINE.search(data, pos, stop)
                if gap is None:
                    return stop
                pos = gap.end()
            if pos >= len(data) or (finder is not None and finder.match(data, pos)):
                return pos

    def _rest(self, pos: int, bounds: tuple[bytes, ...]) -> int:
        """Where a body that holds no parts ends: at the first boundary line in force."""
        if not bounds:
            return len(self.data)
        found = self._finder(bounds).search(self.data, pos)
        return found.start if found is not None else len(self.data)

    def _finder(self, bounds: tuple[bytes, ...]) -> _Finder:
        found = self._finders.get(bounds)
        if found is None:
            names = b"|".join(re.escape(b) for b in sorted(bounds, key=len, reverse=True))
            line = rb"--(" + names + rb")(--)?[ \t]*(?:\r\n|\r|\n|\Z)"
            found = _Finder(re.compile(line), re.compile(rb"[\r\n]" + line))
            self._finders[bounds] = found
        return found


_TOKEN_START = re.compile(rb"\s*" + _TOKEN + rb"\s*(?:;|\Z)")
_BLANK_LINE = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")


def _parameters(value: bytes, head: re.Match[bytes] | None) -> list[tuple[bytes, bytes]] | None:
    """The `name=value` parameters after a field's type (`head`), or None unless the
    whole value is written plainly: `type/subtype; name=value; name="value"`."""
    if head is None:
        return None
    pos = head.end()
    if value[pos - 1 : pos] == b";":
        pos -= 1  # the type's match took the first parameter's semicolon
    found: list[tuple[bytes, bytes]] = []
    while (parameter := _PARAMETER.match(value, pos)) is not None:
        found.append((parameter.group(1).lower(), parameter.group(2)))
        pos = parameter.end()
    return found if _END.fullmatch(value, pos) else None


def _content_type(fields: list[_Field], default: bytes) -> bytes:
    """The part's content type as the email package reads it, lower case; TooComplex when
    it could be read otherwise."""
    found = [f for f in fields if f.name == "content-type"]
    if len(found) > 1:
        raise TooComplex(f"a part with {len(found)} Content-Type fields")
    if not found:
        return default
    value = found[0].value().lower()
    match = _TYPE.match(value)
    if match is None:
        if b"multipart" in value or b"message" in value:
            raise TooComplex("a Content-Type that is not written plainly")
        return b"text/plain"  # what the email package makes of a type it cannot read
    return match.group(1) + b"/" + match.group(2)


def _boundary(fields: list[_Field]) -> bytes | None:
    """The boundary of a multipart part as the email package reads it, or None when it
    has none (the package then reads its body as text)."""
    (content_type,) = [f for f in fields if f.name == "content-type"]
    value = content_type.value()
    parameters = _parameters(value, _TYPE.match(value))
    if parameters is None:
        raise TooComplex("a multipart Content-Type that is not written plainly")
    found = [v for name, v in parameters if name.startswith(b"boundary")]
    names = [name for name, _ in parameters if name.startswith(b"boundary")]
    if not found:
        return None
    if names != [b"boundary"] or b"\\" in found[0]:
        raise TooComplex("a multipart boundary that is not written plainly")
    boundary = found[0].removeprefix(b'"').removesuffix(b'"').rstrip()
    if not _BCHARS.fullmatch(boundary):
        raise TooComplex("a multipart boundary that is not written plainly")
    return boundary


def _name(raw: bytes) -> str:
    """A field's name, lower case (the feed parser's `From ` line: `from `)."""
    name = raw.partition(b":")[0] if b":" in raw else raw[:5]
    return name.strip().decode("ascii", "replace").lower()


def _said(raw: bytes) -> str:
    """A field as a refusal names it (`the Subject field`), its name only if it is plainly
    one: the refusal is logged, and says nothing else the sender wrote."""
    name = raw.partition(b":")[0].strip()[:40].decode("ascii", "replace")
    return f"the {name} field" if re.fullmatch(r"[A-Za-z0-9-]+", name) else "a header field"
