"""What a player wrote in a reply: the message's text (text/plain, else the HTML as text)
and the lines of it that are the reply, without quoted lines (`>`), the "On ... wrote:"
line, a signature (`-- ` and below), forwarded or quoted originals and the footers mobile
mail apps add.
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from html.parser import HTMLParser


# Hand-written on purpose, both: html2text (GPL-3.0-or-later) cannot be a dependency of
# this MIT-licensed service without changing the terms of its distribution, and
# mail-parser-reply (1.36, tried) keeps what follows a mobile footer ("Envoyé de mon
# iPhone" then the original unquoted), which a move must never take in.
class _HTMLText(HTMLParser):
    """HTML to plain text: block elements break lines, blockquotes become `> ` lines."""

    BLOCKS = frozenset(
        [
            "p",
            "div",
            "br",
            "li",
            "tr",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "table",
            "ul",
            "ol",
            "blockquote",
            "hr",
            "section",
        ]
    )
    HIDDEN = frozenset(("head", "style", "script", "title"))

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0  # blockquote nesting
        self.hidden = 0

    def _break(self) -> None:
        text = "".join(self.current).strip()
        self.current = []
        if text or (self.lines and self.lines[-1]):
            self.lines.append(("> " * self.depth) + text if text else "")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.BLOCKS:
            self._break()
            if tag == "blockquote":
                self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self.BLOCKS:
            self._break()
            if tag == "blockquote":
                self.depth = max(0, self.depth - 1)

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.current.append(re.sub(r"\s+", " ", data))

    def text(self) -> str:
        self._break()
        return "\n".join(self.lines)


def html_to_text(html: str) -> str:
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return parser.text()


# Of an HTML body, what is read: the player's own lines come first, and the rest is the
# quoted report, while the parser's cost grows with every tag (a second a megabyte).
MAX_HTML_CHARS = 256 * 1024


def body_text(message: EmailMessage) -> str | None:
    """The message's text: its text/plain body, else its HTML body as text (its first
    MAX_HTML_CHARS characters), else None."""
    part = message.get_body(preferencelist=("plain",))
    if part is not None:
        return str(part.get_content())
    part = message.get_body(preferencelist=("html",))
    if part is not None:
        return html_to_text(str(part.get_content())[:MAX_HTML_CHARS])
    return None


FOOTER = re.compile(
    r"^("
    r"sent (from|with|via) \S.*"  # Sent from my iPhone / Sent with Proton Mail ...
    r"|get outlook for \S.*|download outlook for \S.*"
    r"|envoyé de mon \S.*|envoyé depuis \S.*|von meinem \S.* gesendet\.?"
    r"|enviado desde mi \S.*|enviado do meu \S.*|inviato da\b.*"
    r"|verzonden (vanaf|met) \S.*|verstuurd vanaf \S.*"
    r")$",
    re.IGNORECASE,
)
SEPARATOR = re.compile(
    r"^(-{2,}\s*(original message|forwarded message|message d'origine|ursprüngliche nachricht)"
    r"\s*-{2,}|_{10,}|begin forwarded message:|-{5,})$",
    re.IGNORECASE,
)
ATTRIBUTION_START = re.compile(r"^(on|le|am|el|il|op|em|den|w dniu)\s", re.IGNORECASE)
ATTRIBUTION_END = re.compile(
    r"(wrote|writes|a écrit|schrieb|escribió|ha scritto|scrisse|schreef|escreveu|skrev|"
    r"napisał)\s*:\s*$",
    re.IGNORECASE,
)
HEADER_BLOCK = re.compile(r"^(from|sent|date|to|subject|cc|de|von|envoyé|gesendet):\s", re.I)
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)
# Compiled once: each is tried on every line of a reply.
FROM_LINE = re.compile(r"^(from|de|von):\s", re.IGNORECASE)
BULLET = re.compile(r"^[-*•]\s+")


def _attribution(lines: list[str], index: int) -> int:
    """How many lines from `index` form an "On DATE, NAME wrote:" line (0: none)."""
    first = lines[index].strip()
    if ATTRIBUTION_END.search(first) and (ATTRIBUTION_START.match(first) or "@" in first):
        return 1
    if not ATTRIBUTION_START.match(first):
        return 0
    for span in (2, 3):
        chunk = [line.strip() for line in lines[index : index + span]]
        if len(chunk) < span or not all(chunk):
            return 0
        if ATTRIBUTION_END.search(" ".join(chunk)):
            return span
    return 0


def _header_block(lines: list[str], index: int) -> bool:
    """An Outlook-style quoted original: `From: ...` followed by `Sent:`/`To:`/...."""
    if not FROM_LINE.match(lines[index].strip()):
        return False
    following = [line.strip() for line in lines[index + 1 : index + 5]]
    return sum(1 for line in following if HEADER_BLOCK.match(line)) >= 2


def _tidy(line: str) -> str:
    """A reply line as a move line: no list bullet, no backticks around it."""
    line = line.translate(INVISIBLE).replace("\xa0", " ").strip()
    line = BULLET.sub("", line)
    if len(line) >= 2 and line.startswith("`") and line.endswith("`"):
        line = line.strip("`").strip()
    return line


def reply_lines(text: str) -> list[str]:
    """The lines a player wrote: without quoted text, attribution lines, signatures,
    quoted or forwarded originals and mobile footers; blank lines at both ends dropped."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        raw = lines[index].translate(INVISIBLE)
        stripped = raw.replace("\xa0", " ").strip()
        if raw.rstrip("\n") == "-- " or stripped == "--":
            break  # the signature and all below it
        if FOOTER.match(stripped) or SEPARATOR.match(stripped) or _header_block(lines, index):
            break
        span = _attribution(lines, index)
        if span:
            index += span
            continue
        if stripped.startswith(">"):
            index += 1
            continue
        kept.append(_tidy(raw))
        index += 1
    while kept and not kept[-1]:
        kept.pop()
    while kept and not kept[0]:
        kept.pop(0)
    return kept


# The word that asks for a preview, in the languages players write (docs/email.md).
PREVIEW = re.compile(r"(?<!\w)(preview|podgl[aą]d)(?!\w)", re.IGNORECASE)


def preview_asked(subject: str, lines: list[str]) -> tuple[bool, list[str]]:
    """Whether a reply asks for a preview of its move instead of playing it, and the
    move's lines: asked by the word `preview` (or `podgląd`) in the subject, or as the
    first non-empty line, which is then not part of the move."""
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is not None and PREVIEW.fullmatch(lines[first].strip().rstrip(":.")):
        return True, lines[first + 1 :]
    return PREVIEW.search(subject) is not None, lines
