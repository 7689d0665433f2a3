"""One message to one player, as the service writes every mail: headers (Message-ID,
threading, List-Id, List-Unsubscribe, the reply address), the Markdown as text/plain and
its sanitized HTML, and a picture beside the HTML when there is one. Nothing here queues
or sends: that is the outbox's (adjudicator/mail/outbox/).
"""

from __future__ import annotations

import binascii
import hashlib
import io
import random
import re
import secrets
import sys
from collections.abc import Sequence
from email import contentmanager, policy
from email.generator import BytesGenerator
from email.header import Header
from email.headerregistry import BaseHeader, HeaderRegistry, UnstructuredHeader
from email.message import EmailMessage
from email.policy import Policy
from email.utils import formataddr, formatdate, parseaddr
from functools import lru_cache
from typing import IO, Any

from adjudicator.games.registry import open_game
from adjudicator.games.safehtml import markdown_html
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.home.translations import N_, Words
from adjudicator.mail import tokens
from adjudicator.mail.compose import styles
from adjudicator.mail.pictures import Picture

# Where the report's Markdown puts the board (templates/report.md.j2), a mail says where
# the board is instead: the picture (in the HTML, when it fits) takes this line's place.
BOARD_IN_MAIL = N_("The board after this move: on this move's page, %(url)s")


def board_line(words: Words, url: str) -> str:
    """The line of a mail's report that stands where the board is (its Markdown)."""
    return words(BOARD_IN_MAIL, url=url)


def board_paragraph(words: Words, url: str) -> str:
    """That line as the mail's HTML renders it, where the picture goes."""
    return mail_html(board_line(words, url)).strip()


def subject_for(game_id: str) -> str:
    """The subject of every report of a game: one subject keeps each player's thread whole
    in mail clients that group by subject as well as by References."""
    return f"Pax Pamir game {game_id}"


def message_domain(settings: Settings) -> str:
    address = parseaddr(settings.mail_from)[1]
    domain = address.rpartition("@")[2]
    return domain or settings.reply_domain


def make_message_id(
    settings: Settings, game_id: str, number: int, player: str, key: str | None = None
) -> str:
    """`<GAME.NNNN.PLAYER.TOKEN@DOMAIN>`: unique, and telling what the message is about.

    NNNN is the last adjudicated move as the message shows the game (a report's or a
    confirmation's own move; for any other message, the move the game was at), by which a
    reply tells which position it answers (adjudicator/mail/staleness.py). TOKEN is random,
    or with a `key` (see `message_key`) derived from it: a message queued again after a
    crash then has the same Message-ID as the first time.
    """
    token = secrets.token_hex(8)
    if key is not None:
        token = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return f"<{game_id}.{number:04d}.{player.lower()}.{token}@{message_domain(settings)}>"


def message_key(game_id: str, number: int, player: str, kind: str, ref: str) -> str:
    """The name a message has whenever it is queued: the game, the move, the recipient,
    what kind of message (report, confirmation, refusal) and what it is about (a commit,
    or the hash of an inbound message). Queuing a message whose key is in the outbox
    already does nothing, so the mails of one commit can be queued any number of times."""
    return f"{game_id}-{number:04d}-{player.lower()}-{kind}-{ref[:12]}"


def render_html(markdown_text: str) -> str:
    """The HTML alternative: the Markdown rendered, with tables, in a styled page; the
    addresses the text writes out are links (https and mailto only, shown as they are).

    It renders through the same sanitizing renderer as the web pages: reports quote what
    players wrote (a note, a rollback's reason, a refused line), which must become neither
    markup nor a script link, and images become their alt text, so that no remote image
    tells anyone when a player opened the mail.
    """
    return html_page(markdown_html(markdown_text, label_tables=False, autolink=True))


def html_page(body: str) -> str:
    """A whole mail's HTML around `body`: styled for phones and dark mode
    (adjudicator/mail/compose/styles.py)."""
    return styles.page(body)


def html_page_of(parts: Sequence[str]) -> str:
    """`html_page("\\n".join(parts))`, each part styled once per distinct text."""
    return styles.page_of(parts)


def player_email(settings: Settings, game_id: str, player: str) -> tuple[str, str]:
    """The player's name as game.toml spells it, and their email address."""
    repo = open_game(settings, game_id)
    try:
        entry = snapshot(repo).game.player(player)
    finally:
        repo.repo.close()
    return entry.name, entry.email


def compose(
    settings: Settings,
    game_id: str,
    player: str,
    subject: str,
    markdown_text: str,
    *,
    thread_root: str,
    in_reply_to: str | None,
    number: int = 0,
    message_id: str | None = None,
    to: str | None = None,
    html: str | None = None,
    picture: Picture | None = None,
) -> EmailMessage:
    """One message to one player: the Markdown as text/plain, its HTML as text/html
    (`html`, when the caller rendered it already). A `picture` goes with the HTML in a
    multipart/related part; the HTML shows it by its Content-ID.

    `thread_root` is the Message-ID of the player's first message in this game (pass the
    new message's own `message_id` to start the thread); `in_reply_to` the message this one
    follows (default: the root). `to` is the player's address (default: from game.toml).
    """
    name = player
    if to is None:
        name, to = player_email(settings, game_id, player)
    own = message_id or make_message_id(settings, game_id, number, player)
    message = ServiceMessage(policy=MAIL_POLICY)
    message["From"] = address_header("From", settings.mail_from)
    message["To"] = address_header("To", formataddr((name, to)))
    message["Reply-To"] = address_header(
        "Reply-To", tokens.reply_address(settings, game_id, player.lower())
    )
    message["Subject"] = subject
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = own
    if thread_root != own:
        parent = in_reply_to or thread_root
        message["In-Reply-To"] = parent
        chain = [thread_root] if parent == thread_root else [thread_root, parent]
        message["References"] = " ".join(chain)
    # RFC 3834: automatic messages; well-behaved auto-responders do not answer them.
    message["Auto-Submitted"] = "auto-generated"
    message["X-Pamir-Game"] = game_id
    message["X-Pamir-Player"] = player.lower()
    message["X-Pamir-Move"] = str(number)
    for header, value in list_headers(settings, game_id, player).items():
        message[header] = value
    message.set_content(
        markdown_text, subtype="plain", cte="quoted-printable", content_manager=TEXT
    )
    html = html if html is not None else render_html(markdown_text)
    message.add_alternative(html, subtype="html", cte="quoted-printable", content_manager=TEXT)
    if picture is not None:
        attach_picture(message, picture)
    return message


def _text_content(
    message: EmailMessage,
    text: str,
    subtype: str = "plain",
    charset: str = "utf-8",
    cte: str | None = None,
    **options: Any,
) -> None:
    """`set_content(text, subtype=..., cte="quoted-printable")` as the email package does
    it (the same lines, the same headers), the text encoded by binascii's quoted-printable
    encoder, written in C, instead of the email package's own, in Python: about a
    millisecond a move for the four reports' texts and HTML. Both follow RFC 2045 6.7;
    binascii ends its lines at 76 characters, the email package at 78, and writes a lone
    `.` at a line's start as `=2E`. Anything else asked goes to the email package."""
    if cte != "quoted-printable" or charset != "utf-8" or any(options.values()):
        contentmanager.raw_data_manager.set_content(
            message, text, subtype=subtype, charset=charset, cte=cte, **options
        )
        return
    body = b"\n".join(text.encode("utf-8").splitlines()) + b"\n"
    message["Content-Type"] = f'text/{subtype}; charset="utf-8"'
    message.set_payload(binascii.b2a_qp(body, istext=True).decode("ascii"))
    message["Content-Transfer-Encoding"] = "quoted-printable"


TEXT = contentmanager.ContentManager()  # text parts written by `_text_content`
TEXT.add_set_handler(str, _text_content)


@lru_cache(maxsize=1024)
def address_header(name: str, value: str) -> Any:
    """The header `message[name] = value` would store, parsed once per distinct value:
    parsing an address costs about half a millisecond, three times a message, and the
    sender's, each player's and each reply address repeat from message to message. The
    policy stores a header object given to it as it is; none is changed once made."""
    return policy.default.header_factory(name, value)


def attach_picture(message: EmailMessage, picture: Picture) -> None:
    """Put `picture` beside the message's HTML part, which becomes multipart/related (as
    `add_related` makes it; the picture's part is made once for all of its messages)."""
    html_part = message.get_body(preferencelist=("html",))
    assert isinstance(html_part, EmailMessage)
    html_part.make_related()
    html_part.attach(_picture_part(picture))


class _PicturePart(EmailMessage):
    """A picture's MIME part, which every player's report of an adjudication shares; and
    that part as written out in them (`written`, by how it was written: `_Writer`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.written: dict[str, bytes] = {}


@lru_cache(maxsize=4)
def _picture_part(picture: Picture) -> EmailMessage:
    """The picture's MIME part, encoded in base64 once: every player's report of an
    adjudication shows the same picture. Parts are only read once made (when the messages
    are written out), so the messages can share it, and it is written out once for all
    of them (`_Writer`)."""
    part = _PicturePart(policy=policy.default)
    part.set_content(
        picture.png,
        maintype="image",
        subtype="png",
        cid=f"<{picture.cid}>",
        disposition="inline",
        filename="board.png",
    )
    return part


@lru_cache(maxsize=256)
def mail_html(markdown_text: str) -> str:
    """A block of Markdown as the mail's HTML, rendered once per distinct text: the report
    is the same for all who read its language, and a player's instructions repeat from
    move to move."""
    return markdown_html(markdown_text, label_tables=False, autolink=True)


class ServiceMessage(EmailMessage):
    """A message the service makes: the same as an EmailMessage, written out by
    `_Writer`, which gives the same bytes as the email package's own writer with less work
    (the picture's part written once for all of an adjudication's mails)."""

    def as_bytes(self, unixfrom: bool = False, policy: Policy | None = None) -> bytes:
        out = io.BytesIO()
        writer = _Writer(out, False, policy=self.policy if policy is None else policy)
        writer.flatten(self, unixfrom=unixfrom)
        return out.getvalue()

    def set_boundary(self, boundary: str) -> None:
        # What the writer calls on a multipart with no boundary yet: its Content-Type
        # becomes `multipart/SUBTYPE; boundary="..."` (as the email package's own method
        # writes it), a `_BoundaryType` rather than a header parsed anew.
        types = self.get_all("Content-Type") or []
        bare = len(types) == 1 and BARE_MULTIPART.fullmatch(types[0])
        if not bare or not DRAWN_BOUNDARY.fullmatch(boundary):
            super().set_boundary(boundary)
            return
        name = getattr(types[0], "name", "Content-Type")
        # The policy stores a header object named as the header it replaces as it is.
        self.replace_header(name, _BoundaryType(name, str(types[0]), boundary))


BARE_MULTIPART = re.compile(r"multipart/[a-z]+")  # a Content-Type `_make_multipart` sets
DRAWN_BOUNDARY = re.compile(r"={15}[0-9]{19}==")  # as `_Writer._make_boundary` draws one
PLACEHOLDER = "=" * 15 + "0" * 19 + "=="  # a boundary as long, folded in its place


class _BoundaryType(str):
    """A multipart's Content-Type with the boundary the writer drew, made without the
    email package's parse: each is new (its boundary is drawn for its message), and its
    parse and folding cost about 0.3 ms, three times a report mail. It is written out as
    the same header with `PLACEHOLDER` for its boundary (parsed and folded once per
    subtype and policy by the registry), the boundary put in: a placeholder of the same
    length and kind of characters is folded at the same places. The email package reads
    a header with a `name` and a `fold` as it stands, and everything else it asks of a
    Content-Type (type, parameters, boundary) from its text."""

    name: str
    _bare: str
    _boundary: str

    def __new__(cls, name: str, bare: str, boundary: str) -> _BoundaryType:
        made = super().__new__(cls, f'{bare}; boundary="{boundary}"')
        made.name, made._bare, made._boundary = name, bare, boundary
        return made

    @property
    def defects(self) -> tuple[()]:
        return ()

    def fold(self, *, policy: Policy) -> str:
        template = _HEADERS(self.name, f'{self._bare}; boundary="{PLACEHOLDER}"')
        folded = template.fold(policy=policy)
        if folded.count(PLACEHOLDER) != 1:  # cannot happen with these lengths; to be safe
            return _HEADERS(self.name, str(self)).fold(policy=policy)
        return folded.replace(PLACEHOLDER, self._boundary)


class _LineWriter(BytesGenerator):
    """The email package's BytesGenerator, with the same output, writing a body at once."""

    _NL: str  # the policy's line end, which the email package's `flatten` sets

    def _write_lines(self, lines: str) -> None:
        # The email package's own splits the text at each line end and writes every line
        # and every line end with a call of its own (two per line of a quoted-printable
        # body, some 900 calls for a report's HTML); what it writes is the text with each
        # line end (CRLF, CR or LF) made the policy's, which one substitution gives.
        if "\r" in lines:
            lines = LINE_END.sub(self._NL, lines)
        elif self._NL != "\n":
            lines = lines.replace("\n", self._NL)  # the same, without the expression
        if lines:
            self.write(lines)


class _Writer(_LineWriter):
    """`_LineWriter`, with the same output, and two more costs taken out.

    A picture's part (`_PicturePart`) is written out once per way of writing it (the
    generator's policy and options) and copied into each message after: its 75 KB of
    base64 were written line by line into every player's message (about a fifth of
    writing one out). And a multipart's new boundary, which must appear in none of its
    parts as a line of its own, is looked for in them with a plain search for `--` and
    the boundary first: only where that finds it does the email package's line-by-line
    expression run (its expression over the whole text, the picture's base64 included,
    cost more than the rest of choosing the boundary)."""

    def __init__(
        self,
        outfp: IO[bytes],
        mangle_from_: bool | None = None,
        maxheaderlen: int | None = None,
        *,
        policy: Policy | None = None,
    ) -> None:
        super().__init__(outfp, mangle_from_, maxheaderlen, policy=policy)
        self._out, self._options = outfp, (mangle_from_, maxheaderlen)

    def flatten(self, msg: Any, unixfrom: bool = False, linesep: str | None = None) -> None:
        if not isinstance(msg, _PicturePart) or unixfrom:
            super().flatten(msg, unixfrom, linesep)
            return
        how = f"{self.policy!r} {linesep!r} {self._options!r}"
        data = msg.written.get(how)
        if data is None:  # the first message of the picture written out this way
            out = io.BytesIO()
            mangle, width = self._options
            _LineWriter(out, mangle, width, policy=self.policy).flatten(msg, False, linesep)
            data = out.getvalue()
            if len(msg.written) < KEPT_WRITINGS:
                msg.written[how] = data
        self._out.write(data)

    @classmethod
    def _make_boundary(cls, text: bytes | None = None) -> str:
        # The same random draw and the same checks as the email package's, in its order.
        token = random.randrange(sys.maxsize)
        boundary = "=" * 15 + BOUNDARY_DIGITS % token + "=="
        if text is None:
            return boundary
        found, counter = boundary, 0
        while b"--" + found.encode("ascii") in text:
            line = re.compile(b"^--" + re.escape(found.encode("ascii")) + b"(--)?$", re.MULTILINE)
            if not line.search(text):
                break
            found = boundary + "." + str(counter)
            counter += 1
        return found


LINE_END = re.compile(r"\r\n|\r|\n")  # as the email package's generator finds line ends
KEPT_WRITINGS = 4  # ways one picture's part or header is written out (one, in the service)
BOUNDARY_DIGITS = f"%0{len(repr(sys.maxsize - 1))}d"  # as the email package pads its token


class _OneLineHeader(UnstructuredHeader, BaseHeader):
    """A header written out on one line as it stands, never folded or made an encoded
    word: RFC 2369's List-Unsubscribe, whose `<mailto:...>` mail programs read as it is
    (no whitespace may be put inside the brackets, and `=?utf-8?q?=3Cmailto...?=`, which
    the email package wrote for a value longer than a line, is no URL at all). A value
    that is not ASCII or longer than a header line may be is left to the usual folding."""

    def fold(self, *, policy: Policy) -> str:
        text = str(self)
        if not text.isascii() or len(self.name) + 2 + len(text) > MAX_HEADER_LINE:
            return super().fold(policy=policy)
        return f"{self.name}: {text}{policy.linesep}"


MAX_HEADER_LINE = 998  # RFC 5322 2.1.1: characters a line may have, its CRLF not counted


class _EncodedWordsHeader(UnstructuredHeader, BaseHeader):
    """A Subject that is not ASCII, written as encoded words that hold its spaces too.

    The email package's own folding may end an encoded word just before a space and start
    the next with the word after it (`=?utf-8?q?akcj=C4=99?= =?utf-8?q?=28pozosta...`):
    the space between two encoded words is no part of the text (RFC 2047 6.2), so every
    mail program, Python's own included, reads "akcję(pozostało". Here the whole value is
    encoded in words split only between characters, each space inside a word."""

    def fold(self, *, policy: Policy) -> str:
        text = str(self)
        if text.isascii():
            return super().fold(policy=policy)
        encoded = Header(text, "utf-8", header_name=self.name).encode(
            linesep=policy.linesep, maxlinelen=FOLDED_LINE
        )
        return f"{self.name}: {encoded}{policy.linesep}"


FOLDED_LINE = 78  # RFC 5322 2.1.1: the length a header line should keep to


class _FoldedOnce(BaseHeader):
    """A header that is folded (written out as its lines) once per way of folding it
    (the policy it is written under): the headers a registry of `_KeptHeaders` shares
    between messages are written out in each of them, at about a tenth of a millisecond
    each."""

    def fold(self, *, policy: Policy) -> str:
        folds: dict[str, str] = vars(self).setdefault("_folds", {})
        how = repr(policy)  # every setting that differs from the defaults
        found = folds.get(how)
        if found is None:
            found = super().fold(policy=policy)
            if len(folds) < KEPT_WRITINGS:
                folds[how] = found
        return found


class _KeptHeaders(HeaderRegistry):
    """The header registry of the service's messages, which parses each distinct header
    (name and value) once: the sender, each player's address, reply address, List-Id and
    List-Unsubscribe, the game's name and the MIME headers repeat from message to message,
    and the email package parsed each again for every message (and made a new class for
    it), about a sixth of composing a report mail. Its header objects are never changed
    once made (a header set again is parsed anew), so messages can share them."""

    def __init__(self) -> None:
        super().__init__(base_class=_FoldedOnce)
        self._classes: dict[str, type[BaseHeader]] = {}
        self._parsed = lru_cache(maxsize=KEPT_HEADERS)(super().__call__)

    def map_to_type(self, name: str, cls: type[BaseHeader]) -> None:
        super().map_to_type(name, cls)
        self._classes.clear()
        self._parsed.cache_clear()

    def __getitem__(self, name: str) -> type[BaseHeader]:
        found = self._classes.get(name.lower())
        if found is None:
            found = self._classes[name.lower()] = super().__getitem__(name)
        return found

    def __call__(self, name: str, value: Any) -> BaseHeader:
        if type(value) is not str:  # a Header or another object: parsed as it comes
            return super().__call__(name, value)
        parsed: BaseHeader = self._parsed(name, value)
        return parsed


KEPT_HEADERS = 4096  # distinct headers: a few dozen a game, and every Date and Message-ID

_HEADERS = _KeptHeaders()


_HEADERS.map_to_type("list-unsubscribe", _OneLineHeader)
_HEADERS.map_to_type("subject", _EncodedWordsHeader)


MAIL_POLICY = policy.default.clone(header_factory=_HEADERS)  # of every message the service makes


def list_headers(settings: Settings, game_id: str, player: str) -> dict[str, str]:
    """RFC 2919's List-Id, which mail programs sort and filter a game's mail by, and RFC
    2369's List-Unsubscribe: for a game one is playing that means fewer messages, so it
    asks, by mail, for only the turns that are the player's (`settings notify turns`)."""
    address = tokens.reply_address(settings, game_id, player.lower())
    return {
        "List-Id": f"Pax Pamir game {game_id} <{game_id}.games.{settings.reply_domain}>",
        "List-Unsubscribe": f"<mailto:{address}?subject=settings%20notify%20turns"
        "&body=settings%20notify%20turns>",
    }


CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def one_line(value: str | None) -> str | None:
    """A header value taken from someone's mail, safe to use in ours: encoded words may
    decode to CR or LF (`=?utf-8?q?hi=0D=0ABcc:_x?=`), which the email package refuses
    in a header (and which would inject one); control characters become spaces."""
    if value is None:
        return None
    return " ".join(CONTROL.sub(" ", value).split()) or None
