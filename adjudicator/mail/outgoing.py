"""Mail out: turn reports to every player, refusals and confirmations to a move's author.

Every message is first written to the outbox, `PAMIR_HOME/outbox/pending/*.eml` (a temporary
file renamed into place, so a file there is always complete), and only then sent over SMTP
by `deliver`. A message the server accepted moves to `outbox/sent/`. One the server (or the
network) did not take stays pending with a retry time in `NAME.eml.retry.json` beside it;
the wait doubles after each failure, from `outbox_retry_seconds` up to `MAX_RETRY_SECONDS`.
A delivery run sends over up to `smtp_connections` sessions at once, each recipient's
messages in order on one of them (`adjudicator.mail.sessions`).
With no `smtp_host` configured, pending messages move to `outbox/written/` and the log says
where they are. A message queued with a key (`message_key`) is queued once: its file name
and Message-ID come from the key, so the mails of a commit can be queued again after a
crash without a second copy (`adjudicator.mail.ledger`). docs/email.md describes it all for
players and operators. With a database configured (PostgreSQL mode) the outbox is the table
`pamir_outbox` instead, with the same rules (`adjudicator.mail.outbox_table`, to which the
outbox functions below hand over).

Messages of one game form one thread per player: the first message a player gets (usually
the report of move 0) is the thread's root; every later one carries `References: ROOT
PREVIOUS` and `In-Reply-To: PREVIOUS`, and keeps the subject. The thread state is kept in
`PAMIR_HOME/mail/threads/GAME.json`, never in the game repository.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import smtplib
import ssl
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry, UnstructuredHeader
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.policy import Policy
from email.utils import formataddr, formatdate, getaddresses, parseaddr
from functools import lru_cache
from html import escape
from pathlib import Path
from typing import Any

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.drawing.cards import ATTRIBUTION, LICENSE_URL, hand_faces
from adjudicator.drawing.description import describe
from adjudicator.games.codes import explained_codes
from adjudicator.games.gamefile import GameFile, PlayerEntry
from adjudicator.games.outputs import (
    Adjudication,
    private_section_name,
    translated_report_name,
)
from adjudicator.games.pipeline import position
from adjudicator.games.registry import open_game
from adjudicator.games.repo import GameRepo
from adjudicator.games.safehtml import markdown_html
from adjudicator.games.snapshot import STATE_FILE, game_at, snapshot
from adjudicator.games.wording import in_words
from adjudicator.home import locks, metrics, store
from adjudicator.home.faults import fault
from adjudicator.home.files import fsync_path, write_atomically
from adjudicator.home.paths import private_folder
from adjudicator.home.settings import Settings
from adjudicator.home.translations import N_, SOURCE, Words, words_for
from adjudicator.mail import tokens
from adjudicator.mail.cuts import cut_notes
from adjudicator.mail.delivery import hold, mailed_at_once
from adjudicator.mail.links import page_links
from adjudicator.mail.pictures import BoardPictures, Picture, Rasterize, cairo_png
from adjudicator.mail.preferences import notify_preference
from adjudicator.mail.sessions import SessionLost, send_over_sessions
from engine.phrases import Phrase

log = logging.getLogger(__name__)

PENDING = "pending"
SENT = "sent"
WRITTEN = "written"
FAILED = "failed"  # refused for good by the mail server (5xx): never tried again
EXPIRED = "expired"  # reminders whose deadline passed before the server took them
RETRY_SUFFIX = ".retry.json"
QUEUED_TIME = "%Y%m%dT%H%M%S%f"  # a message file's name starts with when it was queued
FAILURE_SUFFIX = ".failed.json"
DEADLINE_HEADER = "X-Pamir-Deadline"  # a message that is pointless after this instant
ACCEPTED_KEPT = 200  # per game: the reports whose acceptance time is remembered
MAX_RETRY_SECONDS = 6 * 3600
PRIVATE_NAME = re.compile(r"^(\d{4})-(.+)\.md$")
MAIL_BUDGET = 150 * 1024  # the most bytes a report may take, its picture included
PICTURE_OVERHEAD = 1024  # the picture's MIME headers and its <img> in the HTML
# Where the report's Markdown puts the board (templates/report.md.j2); in mail, the picture.
BOARD_ALT = N_("The board after this move, drawn in board.svg")


def board_paragraph(words: Words) -> str:
    return f"<p><span>{escape(words(BOARD_ALT))}</span></p>"


# -- composing -----------------------------------------------------------------------------


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
    """The HTML alternative: the Markdown rendered, with tables, in a minimal page.

    It renders through the same sanitizing renderer as the web pages: reports quote what
    players wrote (a note, a rollback's reason, a refused line), which must become neither
    markup nor a script link, and images become their alt text, so that no remote image
    tells anyone when a player opened the mail.
    """
    return _page(markdown_html(markdown_text, label_tables=False))


# Mail clients honour little CSS, and only in the head: a frame per card face and a margin
# are all the faces need; unstyled they are still paragraphs that read well.
MAIL_STYLE = (
    "table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}"
    ".card{border:1px solid #999;border-radius:6px;padding:2px 10px;margin:6px 0;"
    "max-width:36em}.card p{margin:4px 0}.card-name{font-weight:bold}"
)


def _page(body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">\n'
        f"<style>{MAIL_STYLE}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


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
    message = EmailMessage(policy=MAIL_POLICY)
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
    message.set_content(markdown_text, subtype="plain", cte="quoted-printable")
    html = html if html is not None else render_html(markdown_text)
    message.add_alternative(html, subtype="html", cte="quoted-printable")
    if picture is not None:
        attach_picture(message, picture)
    return message


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


@lru_cache(maxsize=4)
def _picture_part(picture: Picture) -> EmailMessage:
    """The picture's MIME part, encoded in base64 once: every player's report of an
    adjudication shows the same picture. Parts are only read once made (when the messages
    are written out), so the messages can share it."""
    part = EmailMessage(policy=policy.default)
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
    return markdown_html(markdown_text, label_tables=False)


# -- the outbox ----------------------------------------------------------------------------


def outbox(settings: Settings, folder: str) -> Path:
    path = settings.outbox_dir / folder
    path.mkdir(parents=True, exist_ok=True)
    return path


def messages_in(settings: Settings, folder: str) -> list[Path]:
    """The .eml files of an outbox folder, oldest first (names start with the time)."""
    if settings.database_url is not None:  # PostgreSQL mode: the rows (docs/cluster.md)
        from adjudicator.mail import outbox_table

        return outbox_table.messages_in(settings, folder)
    path = settings.outbox_dir / folder
    if not path.is_dir():
        return []
    return sorted(p for p in path.glob("*.eml") if not p.name.startswith("."))


@dataclass(frozen=True)
class Backlog:
    """What waits in the outbox: the messages pending and those refused for good, and
    when the oldest pending one was queued (None when none is)."""

    pending: int
    failed: int
    oldest: datetime | None


def backlog(settings: Settings) -> Backlog:
    """The outbox's backlog, for /metrics: the folders pending/ and failed/ listed (the
    table queried in PostgreSQL mode); sent/ and written/, which only grow, are not read."""
    if settings.database_url is not None:
        from adjudicator.mail import outbox_table

        return outbox_table.backlog(settings)
    pending = messages_in(settings, PENDING)
    failed = len(messages_in(settings, FAILED))
    return Backlog(len(pending), failed, queued_at(pending[0]) if pending else None)


def queued_at(path: Path) -> datetime:
    """When a message file was queued, from its name (else the file's own time)."""
    try:
        return datetime.strptime(path.name.split("-", 1)[0], QUEUED_TIME).replace(tzinfo=UTC)
    except ValueError:  # a file put there by hand
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)


def _retry_file(path: Path) -> Path:
    return path.with_name(path.name + RETRY_SUFFIX)


def queued(settings: Settings, key: str) -> Path | None:
    """The outbox file of the message with this key (pending, sent or written), if any."""
    if settings.database_url is not None:
        from adjudicator.mail import outbox_table

        return outbox_table.queued(settings, key)
    keys = settings.outbox_dir / KEYS
    if not keys.is_dir():  # an outbox from before the index: `queue` makes it
        _key_name(key)
        return _queued_by_listing(settings, key)
    try:
        name = os.readlink(keys / _key_name(key))
    except FileNotFoundError:
        return None
    for folder in (PENDING, SENT, WRITTEN):
        path = settings.outbox_dir / folder / name
        if path.is_file():
            return path
    return None  # failed or expired: a message with this key may be queued again


def _queued_by_listing(settings: Settings, key: str) -> Path | None:
    for folder in (PENDING, SENT, WRITTEN):
        path = settings.outbox_dir / folder
        if path.is_dir():
            for found in path.glob(f"*-{key}.eml"):
                return found
    return None


# outbox/keys/: for each message queued with a key, a symbolic link named by the key whose
# target is the name of the message's file (`STAMP-KEY.eml`, in whichever folder it is
# now). Finding a key was a listing of outbox/sent, which keeps every message ever sent:
# at 30,000 messages 22 ms a look, several looks a message. A link is written before its
# message, so a crash between them leaves a link to no file, which counts as not queued.
KEYS = "keys"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def _key_name(key: str) -> str:
    """The link's name: the key itself, which is part of its message's file name too."""
    if not _PLAIN_KEY.fullmatch(key):
        raise ValueError(f"not a message key: {key!r}")
    return key


def _key_of(file_name: str) -> str:
    """The key in the name of a keyed message's file (`STAMP-KEY.eml`; the stamp has no
    `-`). An unkeyed message's name gives a key nothing asks for."""
    return file_name.removesuffix(".eml").partition("-")[2]


def _link(folder: Path, key: str, file_name: str) -> None:
    """Point the key's link at `file_name`, replacing any older one, durably."""
    temp = folder / f".{secrets.token_hex(6)}.tmp"
    os.symlink(file_name, temp)
    os.replace(temp, folder / _key_name(key))
    fsync_path(folder)


def _key_index(settings: Settings) -> Path:
    """outbox/keys/, made from the messages already in the outbox the first time (under the
    queue lock): built aside and renamed into place, so it is whole or absent."""
    keys = settings.outbox_dir / KEYS
    if keys.is_dir():
        return keys
    building = settings.outbox_dir / f".{KEYS}.{secrets.token_hex(6)}.tmp"
    building.mkdir(parents=True)
    try:
        for folder in (PENDING, SENT, WRITTEN):
            for path in sorted((settings.outbox_dir / folder).glob("*.eml")):
                key = _key_of(path.name)
                if not _PLAIN_KEY.fullmatch(key):
                    continue  # no file of this outbox's making
                with suppress(FileExistsError):  # the older file kept, as the listing did
                    os.symlink(path.name, building / key)
        fsync_path(building)
        os.rename(building, keys)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    fsync_path(settings.outbox_dir)
    return keys


@contextmanager
def _queue_lock(settings: Settings) -> Iterator[None]:
    """Looking for a key and writing its file are one step, across processes and nodes."""
    path = outbox(settings, PENDING).parent / ".queue.lock"
    with locks.exclusive(settings, "outbox:queue", path):
        yield


def queue(settings: Settings, message: EmailMessage, key: str | None = None) -> Path:
    """Write a message to outbox/pending (atomically); return its path. With a `key`, a
    message already queued (or sent, or written) under it is kept and its path returned."""
    if settings.database_url is not None:
        from adjudicator.mail import outbox_table

        return outbox_table.queue(settings, message, key)
    stamp = datetime.now(UTC).strftime(QUEUED_TIME)
    game = str(message.get("X-Pamir-Game", "pamir"))
    player = str(message.get("X-Pamir-Player", "someone"))
    number = int(str(message.get("X-Pamir-Move", "0")))
    data = message.as_bytes()  # before the lock: the service's other games queue meanwhile
    if key is not None:
        _key_name(key)  # a key that could not be a file name is refused before anything
    if key is None:
        name = f"{stamp}-{game}-{number:04d}-{player}-{secrets.token_hex(4)}.eml"
        path = outbox(settings, PENDING) / name
        write_atomically(path, data)
        return path
    with _queue_lock(settings):
        keys = _key_index(settings)
        found = queued(settings, key)
        if found is not None:
            return found
        path = outbox(settings, PENDING) / f"{stamp}-{key}.eml"
        _link(keys, key, path.name)
        fault("key-linked")
        write_atomically(path, data)
        return path


def queue_many(
    settings: Settings, messages: Sequence[tuple[EmailMessage | bytes, str]]
) -> list[Path]:
    """Queue several messages, each with its key, as `queue` would one after the other (a
    key already in the outbox, or earlier in `messages`, keeps its first message); return
    their paths in order. The queue lock is taken once and the waits for the disk are
    shared, with `queue`'s guarantees: every new key's link is flushed before any of the
    messages is renamed into place (a crash in between leaves links to no file, which
    count as not queued: the next run queues them), each message is flushed before its
    rename, and their folder after; none is told queued before all are."""
    if settings.database_url is not None:
        from adjudicator.mail import outbox_table

        return outbox_table.queue_many(settings, messages)
    made = [(_key_name(key), _bytes(message)) for message, key in messages]
    with _queue_lock(settings):
        keys = _key_index(settings)
        stamp = datetime.now(UTC)
        paths: dict[str, Path] = {}
        new: list[tuple[str, Path, bytes]] = []
        for key, data in made:
            found = paths.get(key) or queued(settings, key)
            if found is None:  # names a microsecond apart keep the order given
                at = stamp + timedelta(microseconds=len(new))
                found = outbox(settings, PENDING) / f"{at.strftime(QUEUED_TIME)}-{key}.eml"
                new.append((key, found, data))
            paths[key] = found
        if new:
            _write_linked(keys, new)
    return [paths[key] for key, _ in made]


def _bytes(message: EmailMessage | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.as_bytes()


FLUSHING_THREADS = 4  # fsync waits with the GIL released: a few files flushed at once


def _write_linked(keys: Path, new: list[tuple[str, Path, bytes]]) -> None:
    """Write each (key, path, data): the messages to temporary files and the keys' links,
    all flushed at once (the links' folder and the files, from a few threads); then the
    messages renamed into place, and their folder flushed."""
    temps = [path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp") for _, path, _ in new]
    try:
        for temp, (_, _, data) in zip(temps, new, strict=True):
            temp.write_bytes(data)
        for key, path, _ in new:
            link = keys / f".{secrets.token_hex(6)}.tmp"
            os.symlink(path.name, link)
            os.replace(link, keys / key)
        with ThreadPoolExecutor(min(FLUSHING_THREADS, len(temps) + 1)) as flushing:
            list(flushing.map(fsync_path, [keys, *temps]))
        fault("key-linked")
        for temp, (_, path, _) in zip(temps, new, strict=True):
            os.replace(temp, path)
    finally:
        for temp in temps:
            with suppress(FileNotFoundError):
                temp.unlink()
    for folder in {path.parent for _, path, _ in new}:
        fsync_path(folder)


# -- threads -------------------------------------------------------------------------------


def _threads_dir(settings: Settings) -> Path:
    path = settings.home / "mail" / "threads"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _threads_name(game_id: str) -> str:
    """The store's record of a game's threads ({player: {"root": ID, "last": ID}})."""
    return f"mail/threads/{game_id}.json"


@contextmanager
def _threads(settings: Settings, game_id: str) -> Iterator[dict[str, dict[str, str]]]:
    """The game's thread state ({player: {"root": ID, "last": ID}}), locked; saved after."""
    folder = _threads_dir(settings)
    name, records = _threads_name(game_id), store.of(settings)
    with locks.exclusive(settings, f"threads:{game_id}", folder / f"{game_id}.lock"):
        state: dict[str, dict[str, str]] = store.read_json(records, name) or {}
        yield state
        store.write_json(records, name, state)


def thread_of(settings: Settings, game_id: str, player: str) -> dict[str, str]:
    """A player's thread in a game: {"root": ID, "last": ID}, or {} before the first."""
    data: dict[str, dict[str, str]] = (
        store.read_json(store.of(settings), _threads_name(game_id)) or {}
    )
    return dict(data.get(player.lower(), {}))


# -- what each player reads ----------------------------------------------------------------


def private_section(settings: Settings, game_id: str, number: int, player: str) -> str | None:
    """The player's private section after move `number` (or the latest one before it: a
    refused pushed move writes none), from PAMIR_HOME/private/GAME/NNNN-PLAYER.md."""
    records = store.of(settings)
    exact = records.read(private_section_name(game_id, number, player))
    if exact is not None:  # the usual case: one record read, not the game's list
        return exact.decode("utf-8")
    best: tuple[int, str] | None = None
    for name in records.names(private_folder(game_id)):
        match = PRIVATE_NAME.match(name.rsplit("/", 1)[-1])
        if not match or match.group(2).lower() != player.lower():
            continue
        found = int(match.group(1))
        if found <= number and (best is None or found > best[0]):
            best = (found, name)
    data = None if best is None else records.read(best[1])
    return None if data is None else data.decode("utf-8")


def _state_document(repo: GameRepo, commit: str) -> dict[str, Any]:
    """A commit's state.json ({} when it has none)."""
    text = repo.read(STATE_FILE, commit)
    document: dict[str, Any] = json.loads(text) if text else {}
    return document


def public_view(repo: GameRepo, commit: str) -> dict[str, Any]:
    """The public view a commit records in its state.json ({} when it has none)."""
    view: dict[str, Any] = _state_document(repo, commit).get("view") or {}
    return view


SUBJECT_LENGTH = 110  # past this a subject is cut with an ellipsis (mail lists show less)


def report_subject(
    game_id: str,
    number: int,
    document: dict[str, Any],
    *,
    decides: bool,
    over: bool,
    words: Words | None = None,
    prompt: str | None = None,
) -> str:
    """What a report mail is, and whether its reader must act, at a glance in the inbox:
    `[kabul] Your turn (move 44): alice takes an action (2 of 2 left) or passes`, or
    `[kabul] Move 43 by alice: Tax with Baluchi Chiefs (12), taking up to 2 rupees.`
    In the reader's `words` (by default English); `prompt` is the pending decision's prompt
    in them (by default the English of the view)."""
    words = words or Words()
    view: dict[str, Any] = document.get("view") or {}
    last: dict[str, Any] = document.get("last") or {}
    player = str(last.get("player"))
    if over:
        said = words("The game is over (move %(number)s)", number=number)
    elif decides:
        if prompt is None and words.language == SOURCE:
            prompt = str((view.get("pending") or {}).get("prompt", words("your decision")))
        what = prompt.split(": ")[0] if prompt else words("your decision")
        said = words("Your turn (move %(number)s): %(what)s", number=number + 1, what=what)
    elif number == 0:
        said = words("A new game")
    elif last.get("refused"):
        said = words("Move %(number)s by %(player)s was refused", number=number, player=player)
    elif last.get("actions"):
        what = in_words("; ".join(str(a) for a in last["actions"]), words)
        said = words(
            "Move %(number)s by %(player)s: %(what)s", number=number, player=player, what=what
        )
    else:
        said = words("Move %(number)s", number=number)
    subject = f"[{game_id}] {said}"
    return subject if len(subject) <= SUBJECT_LENGTH else subject[: SUBJECT_LENGTH - 1] + "…"


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
_HEADERS = HeaderRegistry()
_HEADERS.map_to_type("list-unsubscribe", _OneLineHeader)
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


def waiting_for(view: dict[str, Any]) -> list[str]:
    pending = view.get("pending")
    return [str(p).lower() for p in (pending or {}).get("players", [])]


def is_over(view: dict[str, Any]) -> bool:
    return bool(view.get("phase") == "over")


GAME_OVER = N_(
    "Nothing is left to decide, and no move or rollback can be made any more. The report "
    "above gives the final standings; thank you for playing."
)


def how_to_reply(
    settings: Settings,
    game_id: str,
    player: str,
    decides: bool,
    over: bool = False,
    plays_by: str = "both",
    words: Words | None = None,
) -> str:
    """How to answer this message; once the game is over, that nothing can be answered
    (it invites neither a move nor a rollback). A player who plays by Git alone is told
    nothing of replying by mail (their private section says how to push)."""
    words = words or Words()
    if over:
        heading = words("The game is over")
        return f"## {heading}\n\n{words(GAME_OVER)}\n"
    help_page = ""
    if settings.base_url:
        help_page = " " + words(
            "The notation is explained at %(url)s.", url=settings.base_url + "/help"
        )
    if plays_by == "git":
        reading = words(
            "You play by pushing your move files to the game's repository, as your section "
            "above says; this message is for reading."
        )
        heading = words("Playing by Git")
        return f"## {heading}\n\n{reading}{help_page}\n"
    address = tokens.reply_address(settings, game_id, player.lower())
    if decides:
        first = words(
            "It is your decision. Reply to this message with your actions, one a line, in "
            "the game's notation (for example `purchase 43`, or any of the legal actions "
            "listed above)."
        )
    else:
        first = words(
            "You have nothing to decide now; you will get a message when you do. You may "
            "still reply with a rollback request (`rollback N REASON`, or `agree rollback`)."
        )
    ignored = words(
        "Quoted lines (starting with `>`), the line saying who wrote the quoted message, "
        "and everything from your signature (`-- `) down are ignored."
    )
    token = words(
        "Your reply address, %(address)s, carries a token that identifies you in this game: "
        "keep it to yourself (whoever can write to it from your address plays for you). "
        "Replies are accepted only from the address the game has for you.",
        address=address,
    )
    heading = words("Playing by email")
    return f"## {heading}\n\n{first}{help_page} {ignored}\n\n{token}\n"


def web_pages(
    settings: Settings, game_id: str, player: str, number: int, words: Words | None = None
) -> str:
    """The pages of the game on the web, for one player: this move's, the game's, and the
    player's own page, whose link is theirs alone (it shows their hand and takes moves)."""
    words = words or Words()
    links = page_links(settings, game_id, player, number)
    lines = [
        words("This move: %(url)s", url=links.turn),
        words("The game, its board and history: %(url)s", url=links.game),
        words(
            "Your own page, with your hand, your legal actions and a form to move (the link "
            "is yours alone: keep it to yourself): %(url)s",
            url=links.private,
        ),
    ]
    heading = words("On the web")
    return f"## {heading}\n\n" + "\n".join(f"- {line}" for line in lines)


def player_message(
    settings: Settings,
    game: GameFile,
    result: Adjudication,
    player: str,
    decides: bool,
    over: bool = False,
) -> list[str]:
    """The parts of a player's message: the report (the same for all who read its
    language), the player's own private section (no one else's), the web pages, how to
    reply; all in the player's language."""
    entry = game.player(player)
    words = words_for(entry.language)
    report = report_in(settings, game, result, entry.language)
    parts = [cut_notes(report, result.number, words).rstrip("\n")]
    section = private_section(settings, game.id, result.number, player)
    if section:
        parts.append(section.rstrip("\n"))
    parts.append(web_pages(settings, game.id, player, result.number, words))
    how = how_to_reply(settings, game.id, player, decides, over, entry.plays_by, words)
    parts.append(how.rstrip("\n"))
    return parts


def report_in(settings: Settings, game: GameFile, result: Adjudication, language: str) -> str:
    """The public report of an adjudication in a language: the committed one in the game's
    language, else the translation the pipeline kept (games/outputs.py); a commit made
    before its reader chose the language has none, and its mail is in the game's."""
    if language == game.language:
        return result.report
    name = translated_report_name(game.id, result.number, language)
    data = store.of(settings).read(name)
    return result.report if data is None else data.decode("utf-8")


# -- sending out ---------------------------------------------------------------------------


class _Illustrations:
    """What an adjudication's report mails show besides their text: the public board as a
    picture (drawn and rasterized once per language its readers read, for all of them) and
    each player's own hand as card faces."""

    def __init__(
        self,
        settings: Settings,
        repo: GameRepo,
        result: Adjudication,
        view: dict[str, Any],
        rasterize: Rasterize,
    ) -> None:
        self.settings, self.repo, self.commit = settings, repo, result.commit
        self.number, self.view, self.rasterize = result.number, view, rasterize
        self._pictures: dict[str, BoardPictures] = {}
        self._state: engine.State | None = None
        self._failed = False

    def pictures(self, words: Words) -> BoardPictures | None:
        """The board's picture in `words` (None: no players, no board): drawn the first
        time a reader of that language needs it, then the same for every reader of it."""
        if not self.view.get("players"):
            return None
        found = self._pictures.get(words.language)
        if found is None:
            domain = message_domain(self.settings)
            cid = f"board.{self.number:04d}.{self.commit[:12]}@{domain}"
            alt = words(
                "The board after move %(number)s: %(description)s",
                number=self.number,
                description=describe(self.view, words),
            )
            # The public view only: every player's mail carries the same picture.
            found = BoardPictures(board_svg(self.view, words), cid, alt, self.rasterize)
            self._pictures[words.language] = found
        return found

    def hand(self, player: str, words: Words) -> str:
        """The player's own hand as card faces (HTML), from their own view of the
        position; "" when the hand is empty or the position cannot be had."""
        state = self._position()
        if state is None:
            return ""
        base = self.settings.base_url.rstrip("/").replace("{", "{{").replace("}", "}}")
        faces = hand_faces(engine.view(state, player), link=base + "/cards/{}", words=words)
        if not faces:
            return ""
        licence = escape(words("Licence"))
        credit = (
            f'<p><small>{escape(ATTRIBUTION)} <a href="{LICENSE_URL}">{licence}</a>.</small></p>'
        )
        heading = escape(words("Your hand"))
        return f"<h3>{heading}</h3>\n" + "\n".join([*faces, credit])

    def prompt(self, words: Words) -> str | None:
        """The pending decision's prompt in `words` (None: not to be had)."""
        state = self._position()
        phrase = None if state is None else engine.pending_phrase(state)
        return None if phrase is None else words.phrase(phrase)

    def _position(self) -> engine.State | None:
        if self._state is None and not self._failed:
            try:
                self._state = position(snapshot(self.repo, self.commit), self.settings.home)
            except Exception:  # the faces are an extra: the mail goes out with its text
                self._failed = True
                log.exception("no hand faces in the mails of commit %s", self.commit[:10])
        return self._state


def _with_picture(html: str, picture: Picture, words: Words) -> str:
    """The report's HTML with the picture where the report mentions the board (or first)."""
    img = f"<p>{picture.img()}</p>"
    paragraph = board_paragraph(words)
    if paragraph in html:
        return html.replace(paragraph, img, 1)
    return img + "\n" + html


def report_message(
    settings: Settings,
    game: GameFile,
    result: Adjudication,
    player: str,
    *,
    subject: str,
    decides: bool,
    over: bool = False,
    report_html: str | None,
    illustrations: _Illustrations,
    **headers: Any,
) -> EmailMessage:
    """A player's report mail: the text as today, the HTML with the board's picture (if it
    fits in `MAIL_BUDGET`, at the widest width that does) and the player's hand as faces.
    `headers` go to `compose` (thread_root, in_reply_to, number, message_id, to)."""
    report, *own_parts = player_message(settings, game, result, player, decides, over)
    words = words_for(game.player(player).language)
    # Markdown blocks render alone: the shared report's HTML is reused as is.
    own_html = [mail_html(p) for p in own_parts]
    own_html.insert(len(own_html) - 1, illustrations.hand(player, words))  # before how to reply
    text = "\n\n".join([report, *own_parts]) + "\n"
    if report_html is None:
        report_html = mail_html(report)

    def html(shown: str) -> str:
        return _page("\n".join(part for part in [shown, *own_html] if part))

    made = compose(settings, game.id, player, subject, text, html=html(report_html), **headers)
    made["X-Pamir-Kind"] = "report"  # what filters (and tests) tell report mails by
    pictures = illustrations.pictures(words)
    if pictures is None:
        return made
    picture = pictures.fitting_after(lambda exact: _size(made, exact))
    if picture is not None:
        # The message measured becomes the one with the picture, as `compose` would make
        # it: composing it again (headers parsed, text encoded) cost as much as the first.
        html_part = made.get_body(preferencelist=("html",))
        assert isinstance(html_part, EmailMessage)
        shown = _with_picture(report_html, picture, words)
        html_part.set_content(html(shown), subtype="html", cte="quoted-printable")
        attach_picture(made, picture)
    return made


def _size(message: EmailMessage, exact: bool) -> int:
    """The room left for the picture beside `message` under `MAIL_BUDGET`: exactly, from
    the message written out, or (not `exact`) at least that much, from an upper bound of
    its size that needs no writing out (a third of the cost of a report's mail). A bound
    that leaves room enough for the widest picture gives the same choice as the exact
    figure; `BoardPictures.fitting_after` asks for that only when it does not."""
    size = len(message.as_bytes()) if exact else size_at_most(message)
    return MAIL_BUDGET - size - PICTURE_OVERHEAD


def size_at_most(message: EmailMessage) -> int:
    """An upper bound of `len(message.as_bytes())`. Each header at most four bytes for
    each of its characters (encoded words and folding), plus its name and a hundred; each
    body as it is stored (encoded already by `set_content`), plus room for its part's
    boundary; and two kilobytes to spare. A body that is not text counts as unbounded."""
    total = 2048
    for part in message.walk():
        total += 200
        for name, value in part.items():
            total += len(name) + 4 * len(str(value)) + 100
        if not part.is_multipart():
            body = part.get_payload()
            if not isinstance(body, str) or not body.isascii():
                return MAIL_BUDGET * 10
            total += len(body)
    return total


@dataclass(frozen=True)
class _ReportMail:
    """Everything one player's report mail of one adjudication is made from, besides the
    settings and the commit's own files: two equal ones make the same message (but for
    its Date and its MIME boundaries)."""

    commit: str
    number: int
    key: str  # `message_key`
    player: str  # as game.toml spells it
    subject: str
    decides: bool
    over: bool
    shared_report: bool  # the report's HTML is the game language's, rendered once
    thread_root: str
    in_reply_to: str | None
    message_id: str
    to: str


class _Reports:
    """The report mails of one adjudication: its game file, state.json and report read
    once, its board drawn once per language, for every player."""

    def __init__(
        self, settings: Settings, repo: GameRepo, result: Adjudication, rasterize: Rasterize
    ) -> None:
        self.settings, self.result = settings, result
        self.game = game_at(repo, result.commit)  # one read of game.toml and state.json
        self.document = _state_document(repo, result.commit)
        view: dict[str, Any] = self.document.get("view") or {}
        self.waiting, self.over = waiting_for(view), is_over(view)
        report = cut_notes(result.report, result.number, words_for(self.game.language))
        self.report_html = mail_html(report.rstrip("\n"))
        self.illustrations = _Illustrations(settings, repo, result, view, rasterize)

    def key(self, player: str) -> str:
        return message_key(self.game.id, self.result.number, player, "report", self.result.commit)

    def plan(self, entry: PlayerEntry, thread: dict[str, str]) -> _ReportMail:
        """The mail of `entry`, the next in the player's `thread`."""
        player, result = entry.name.lower(), self.result
        words = words_for(entry.language)
        name = self.key(player)
        own = make_message_id(self.settings, self.game.id, result.number, player, name)
        decides = player in self.waiting
        subject = report_subject(
            self.game.id,
            result.number,
            self.document,
            decides=decides,
            over=self.over,
            words=words,
            prompt=None
            if words.language == SOURCE or not decides
            else self.illustrations.prompt(words),
        )
        return _ReportMail(
            result.commit,
            result.number,
            name,
            entry.name,
            subject,
            decides,
            self.over,
            entry.language == self.game.language,
            thread.get("root", own),
            thread.get("last"),
            own,
            entry.email,
        )

    def message(self, mail: _ReportMail) -> EmailMessage:
        return report_message(
            self.settings,
            self.game,
            self.result,
            mail.player,
            subject=mail.subject,
            decides=mail.decides,
            over=mail.over,
            report_html=self.report_html if mail.shared_report else None,
            illustrations=self.illustrations,
            thread_root=mail.thread_root,
            in_reply_to=mail.in_reply_to,
            number=mail.number,
            message_id=mail.message_id,
            to=mail.to,
        )


def notify(
    settings: Settings,
    repo: GameRepo,
    results: list[Adjudication],
    *,
    deliver_now: bool = True,
    rasterize: Rasterize = cairo_png,
) -> list[Path]:
    """Queue one message per adjudication and player (the public report with the board's
    picture, that player's private section and hand, how to reply), in order; then attempt
    delivery. Returns the files. `rasterize` turns the board's SVG into a PNG.

    Each message is keyed by its commit and player (`message_key`): an adjudication
    notified twice is queued once. A message `prepare` composed for the same mail is
    queued as it was made."""
    written: list[Path] = []
    for result in results:
        reports = _Reports(settings, repo, result, rasterize)
        with _threads(settings, reports.game.id) as threads:
            batch: list[tuple[EmailMessage | bytes, str]] = []
            slots: list[int] = []  # where each of the batch goes among the files returned
            for entry in reports.game.players:
                key = entry.name.lower()
                name = reports.key(key)
                done = queued(settings, name)
                if done is not None:
                    written.append(done)
                    continue
                if not _mailed_now(settings, repo, reports.game.id, result, key, reports.document):
                    continue
                mail = reports.plan(entry, threads.get(key, {}))
                message = _PREPARED.take(mail, settings, rasterize) or reports.message(mail)
                slots.append(len(written) + len(batch))
                batch.append((message, name))
                threads[key] = {"root": mail.thread_root, "last": mail.message_id}
            # Queued together, before the threads are saved (a crash before leaves them as
            # they were, so the messages are made again the same).
            for slot, path in zip(slots, queue_many(settings, batch), strict=True):
                written.insert(slot, path)
    if deliver_now and written:
        deliver(settings)
    return written


def prepare(
    settings: Settings,
    repo: GameRepo,
    results: Sequence[Adjudication],
    *,
    rasterize: Rasterize = cairo_png,
) -> int:
    """Compose the report mails `notify` will queue for `results`, and keep them (in this
    process, a few at most) for it; return how many. Nothing is queued or recorded: the
    caller does it while it waits on something else (the forge taking the push of these
    very commits), so that what follows is only queuing and sending.

    What `notify` will do is guessed from the threads and choices as they are now; it
    takes a prepared message only if it would make the very same one, so a wrong guess
    costs the time spent here and nothing else."""
    made = 0
    threads: dict[str, dict[str, str]] | None = None  # chained from one result to the next
    for result in results:
        reports = _Reports(settings, repo, result, rasterize)
        if threads is None:
            threads = store.read_json(store.of(settings), _threads_name(reports.game.id)) or {}
        for entry in reports.game.players:
            key = entry.name.lower()
            if queued(settings, reports.key(key)) is not None:
                continue
            if not _mailed_at_once(settings, reports.game.id, result, key, reports.document):
                continue
            mail = reports.plan(entry, threads.get(key, {}))
            message = reports.message(mail)
            _PREPARED.keep(mail, settings, rasterize, message.as_bytes())
            threads[key] = {"root": mail.thread_root, "last": mail.message_id}
            made += 1
    return made


class _Prepared:
    """Report mails composed ahead of their queuing (`prepare`), by what they were made
    from. Bounded: a prepared mail whose push failed is never taken, and gives way."""

    KEPT = 32  # mails: a few adjudications of five players each

    def __init__(self) -> None:
        self._kept: OrderedDict[_ReportMail, tuple[Settings, Rasterize, bytes]] = OrderedDict()
        self._lock = threading.Lock()  # requests for different games prepare at once

    def keep(
        self, mail: _ReportMail, settings: Settings, rasterize: Rasterize, data: bytes
    ) -> None:
        with self._lock:
            self._kept[mail] = (settings, rasterize, data)
            self._kept.move_to_end(mail)
            while len(self._kept) > self.KEPT:
                self._kept.popitem(last=False)

    def take(self, mail: _ReportMail, settings: Settings, rasterize: Rasterize) -> bytes | None:
        """The message prepared for `mail` with these settings, written out, once; None if
        there is none."""
        with self._lock:
            found = self._kept.pop(mail, None)
        if found is None or found[1] is not rasterize or found[0] != settings:
            return None
        return found[2]


_PREPARED = _Prepared()


def _mailed_at_once(
    settings: Settings,
    game_id: str,
    result: Adjudication,
    player: str,
    document: dict[str, Any],
) -> bool:
    """Whether the player chose to get this report now (adjudicator.mail.delivery) rather
    than in their daily digest. A new game's first report always goes."""
    view: dict[str, Any] = document.get("view") or {}
    last: dict[str, Any] = document.get("last") or {}
    preference = notify_preference(settings, game_id, player)
    return result.number == 0 or mailed_at_once(
        preference,
        decides=player in waiting_for(view),
        over=is_over(view),
        rollback="rollback" in last,
        own=str(last.get("player", "")).lower() == player,
        refused=bool(last.get("refused")),
    )


def _mailed_now(
    settings: Settings,
    repo: GameRepo,
    game_id: str,
    result: Adjudication,
    player: str,
    document: dict[str, Any],
) -> bool:
    """Whether the player gets this report now (`_mailed_at_once`); when not, it is held
    for their daily digest."""
    if _mailed_at_once(settings, game_id, result, player, document):
        return True
    made = repo.repo.commit(result.commit).committed_datetime.isoformat()
    hold(settings, game_id, player, result.number, result.commit, made)
    return False


CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def one_line(value: str | None) -> str | None:
    """A header value taken from someone's mail, safe to use in ours: encoded words may
    decode to CR or LF (`=?utf-8?q?hi=0D=0ABcc:_x?=`), which the email package refuses
    in a header (and which would inject one); control characters become spaces."""
    if value is None:
        return None
    return " ".join(CONTROL.sub(" ", value).split()) or None


def _reply_headers(
    settings: Settings, game_id: str, player: str, in_reply_to: str | None, subject: str | None
) -> tuple[str, str, str | None]:
    """Subject, thread root and parent for an answer to a player's own message."""
    thread = thread_of(settings, game_id, player)
    subject, in_reply_to = one_line(subject), one_line(in_reply_to)
    subject = subject or subject_for(game_id)
    if not subject.lower().startswith("re:"):
        subject = f"Re: {subject}"
    root = thread.get("root") or in_reply_to
    return subject, root or "", in_reply_to


def _answer(
    settings: Settings,
    repo: GameRepo,
    player: str,
    markdown_text: str,
    number: int,
    in_reply_to: str | None,
    subject: str | None,
    deliver_now: bool,
    key: str | None = None,
) -> Path:
    game = snapshot(repo).game
    entry = game.player(player)
    if key is not None and (done := queued(settings, key)) is not None:
        return done
    subject, root, parent = _reply_headers(settings, game.id, entry.name, in_reply_to, subject)
    own = make_message_id(settings, game.id, number, entry.name, key)
    message = compose(
        settings,
        game.id,
        entry.name,
        subject,
        markdown_text,
        thread_root=root or own,
        in_reply_to=parent,
        number=number,
        message_id=own,
        to=entry.email,
    )
    path = queue(settings, message, key)
    if deliver_now:
        deliver(settings)
    return path


def _numbered(text: str) -> str:
    lines = text.splitlines() or [""]
    return "\n".join(f"{n:>3}  {line}" for n, line in enumerate(lines, start=1))


QUOTED_LINES = 200  # of a refused move, quoted back: a move file too large is cut here


def _quotable(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= QUOTED_LINES and len(text) <= QUOTED_LINES * 100:
        return text
    kept = "\n".join(line[:100] for line in lines[:QUOTED_LINES])
    return kept + f"\n[... {len(text)} characters in all; the rest is not quoted]"


def notify_refusal(
    settings: Settings,
    repo: GameRepo,
    player: str,
    submitted_text: str,
    message: str,
    *,
    phrase: Phrase | None = None,
    in_reply_to: str | None = None,
    subject: str | None = None,
    deliver_now: bool = True,
    at: str | None = None,
    key: str | None = None,
) -> Path:
    """Tell the author of a move that it was refused: the refusal line by line (as the
    engine words it: `line N: CODE: message ... legal now: ...`, in the author's language
    when `phrase` says `message` so), what was read, and their private section as it
    stands (at commit `at`: by default the tip). `key`: as for `queue`."""
    snap = snapshot(repo, at)
    entry = snap.game.player(player)
    words = words_for(entry.language)
    said = words.said(phrase) if phrase is not None and str(phrase) == message else message
    refusal = "\n".join(f"    {line}" for line in said.splitlines())
    parts = [
        f"# {snap.game.id}: " + words("your move was not accepted"),
        words("Nothing was changed in the game. The adjudicator says:"),
        refusal,
        *explained_codes(message, words),
        words("Your move as it was read from your message (line numbers as counted above):"),
        "```text\n" + _numbered(_quotable(submitted_text)) + "\n```",
    ]
    over = is_over(public_view(repo, snap.commit)) if snap.commit else False
    parts.append(
        words("The game is over: no move can be made any more.")
        if over
        else words("Reply to this message with the corrected move: your actions, one a line.")
    )
    section = private_section(settings, snap.game.id, snap.adjudicated, entry.name)
    if section:
        parts.append(section.rstrip("\n"))
    text = "\n\n".join(parts) + "\n"
    return _answer(
        settings, repo, entry.name, text, snap.adjudicated, in_reply_to, subject, deliver_now, key
    )


def notify_unauthenticated(
    settings: Settings, repo: GameRepo, player: str, reason: str, *, day: str
) -> Path:
    """Tell a player, at the address game.toml has for them, that a message in their
    name was refused for want of authentication. One notice a day (`day`, as YYYY-MM-DD)
    per game and player, whatever the number of messages: forged mail cannot make the
    service mail anyone else, nor mail the player more than that. The forged message's
    subject and text are not repeated, so the notice carries nothing its sender wrote."""
    snap = snapshot(repo)
    entry = snap.game.player(player)
    key = message_key(snap.game.id, 0, entry.name, "unauthenticated", day.replace("-", ""))
    if (done := queued(settings, key)) is not None:
        return done
    words = words_for(entry.language)
    refused = words("a message in your name was refused")
    why = words(
        "A message to your reply address, with your address as its sender, was not "
        "played: it could not be proven to come from your mail provider "
        "(`mail_auth = %(mode)s`). The reason:",
        mode=settings.mail_auth,
    )
    advice = words(
        "Nothing was changed in the game. If you sent it, your mail provider may not sign "
        "its mail (DKIM): tell the game's host. If you did not, someone knows your reply "
        "address and wrote in your name: tell the game's host."
    )
    once = words("You get at most one such notice a day.")
    text = (
        f"# {snap.game.id}: {refused}\n\n{why}\n\n"
        f"    {(one_line(reason) or '')[:500]}\n\n{advice}\n\n{once}\n"
    )
    thread = thread_of(settings, snap.game.id, entry.name)
    own = make_message_id(settings, snap.game.id, snap.adjudicated, entry.name, key)
    message = compose(
        settings,
        snap.game.id,
        entry.name,
        f"[{snap.game.id}] " + words("A message in your name was refused"),
        text,
        thread_root=thread.get("root") or own,
        in_reply_to=thread.get("last"),
        number=snap.adjudicated,
        message_id=own,
        to=entry.email,
    )
    return queue(settings, message, key)


def notify_all(settings: Settings, repo: GameRepo, said: Callable[[Words], str]) -> list[Path]:
    """Queue one notice to every player (tampering put back, a game held), in each
    player's thread and language (`said(words)` is its Markdown), with the addresses of
    game.toml at the service's own tip."""
    snap = snapshot(repo)
    written: list[Path] = []
    with _threads(settings, snap.game.id) as threads:
        for entry in snap.game.players:
            key = entry.name.lower()
            own = make_message_id(settings, snap.game.id, snap.adjudicated, key)
            thread = threads.get(key, {})
            root = thread.get("root", own)
            words = words_for(entry.language)
            message = compose(
                settings,
                snap.game.id,
                entry.name,
                words("Pax Pamir game %(game)s", game=snap.game.id),
                said(words),
                thread_root=root,
                in_reply_to=thread.get("last"),
                number=snap.adjudicated,
                message_id=own,
                to=entry.email,
            )
            written.append(queue(settings, message))
            threads[key] = {"root": root, "last": own}
    return written


def notify_confirmation(
    settings: Settings,
    repo: GameRepo,
    player: str,
    submitted_text: str,
    result: Adjudication,
    *,
    in_reply_to: str | None = None,
    subject: str | None = None,
    deliver_now: bool = True,
    key: str | None = None,
) -> Path:
    """Tell the author of a move, in their language, that it was accepted (the report
    follows separately)."""
    game = snapshot(repo, result.commit).game
    entry = game.player(player)
    words = words_for(entry.language)
    number, commit = result.number, result.commit[:10]
    text = (
        f"# {game.id}: "
        + words("move %(number)s accepted", number=number)
        + "\n\n"
        + words(
            "Your move was adjudicated as move %(number)s (commit %(commit)s). Every player "
            "gets the report in the game's thread, at once or in their daily digest (as each "
            "chose).",
            number=number,
            commit=commit,
        )
        + "\n\n"
        + words("Your move as it was read from your message:")
        + "\n\n```text\n"
        + _numbered(submitted_text)
        + "\n```\n"
    )
    return _answer(
        settings, repo, entry.name, text, result.number, in_reply_to, subject, deliver_now, key
    )


# -- delivery ------------------------------------------------------------------------------


@dataclass
class DeliveryReport:
    """What one `deliver` run did with the pending messages."""

    sent: list[Path] = field(default_factory=list)  # accepted by the server (now in sent/)
    written: list[Path] = field(default_factory=list)  # no SMTP configured (now in written/)
    deferred: list[Path] = field(default_factory=list)  # failed now; retried later
    failed: list[Path] = field(default_factory=list)  # refused for good (now in failed/)
    expired: list[Path] = field(default_factory=list)  # too late to send (now in expired/)
    waiting: list[Path] = field(default_factory=list)  # not due yet
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"sent {len(self.sent)}, written {len(self.written)}, "
            f"deferred {len(self.deferred)}, failed {len(self.failed)}, "
            f"expired {len(self.expired)}, waiting {len(self.waiting)}"
        )


class Tally:
    """What a delivery run did with each message, noted from any of its sessions' threads
    and written to its DeliveryReport in the messages' order (`order`: the message's place
    among the due ones), whatever order the sessions finished in."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._noted: list[tuple[int, str, Path | str]] = []

    def add(self, order: int, outcome: str, value: Path | str) -> None:
        """`outcome`: the DeliveryReport list that `value` goes to (`sent`, `errors`, ...)."""
        with self._lock:
            self._noted.append((order, outcome, value))

    def into(self, report: DeliveryReport) -> None:
        with self._lock:  # sorted on the order alone: a message's own notes keep theirs
            for _, outcome, value in sorted(self._noted, key=lambda noted: noted[0]):
                getattr(report, outcome).append(value)


def retry_info(path: Path) -> dict[str, Any]:
    """A pending message's retry record: attempts, next_attempt (ISO time), last_error."""
    meta = _retry_file(path)
    if not meta.exists():
        return {}
    data: dict[str, Any] = json.loads(meta.read_text(encoding="utf-8"))
    return data


def retry_delay(settings: Settings, attempts: int) -> int:
    """Seconds to wait after the `attempts`-th failure: doubling, capped."""
    return int(min(settings.outbox_retry_seconds * 2 ** max(attempts - 1, 0), MAX_RETRY_SECONDS))


def _due(path: Path, now: datetime, force: bool) -> bool:
    if force:
        return True
    when = retry_info(path).get("next_attempt")
    return when is None or datetime.fromisoformat(when) <= now


def _defer(settings: Settings, path: Path, error: str, now: datetime) -> None:
    attempts = int(retry_info(path).get("attempts", 0)) + 1
    later = now + timedelta(seconds=retry_delay(settings, attempts))
    record = {"attempts": attempts, "next_attempt": later.isoformat(), "last_error": error}
    write_atomically(_retry_file(path), (json.dumps(record, indent=2) + "\n").encode())
    log.warning(
        "mail %s not delivered (attempt %d: %s); next attempt at %s",
        path.name,
        attempts,
        error,
        later.isoformat(),
    )


def permanent_refusal(error: smtplib.SMTPException) -> str | None:
    """The server's words when it refused a recipient or the message for good (a 5xx
    answer to RCPT or DATA), or None when trying again later may succeed (4xx). A refused
    sender is never taken as permanent: the sender is ours, the same in every message, so
    its refusal is the host's configuration to fix, not this message's fault."""
    answers: list[tuple[int, bytes | str]] = []
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        answers = list(error.recipients.values())
    elif isinstance(error, smtplib.SMTPDataError):
        answers = [(error.smtp_code, error.smtp_error)]
    if not answers or not all(500 <= code < 600 for code, _ in answers):
        return None
    return "; ".join(f"{code} {_text(words)}" for code, words in answers)


def _text(words: bytes | str) -> str:
    text = words.decode("utf-8", "replace") if isinstance(words, bytes) else words
    return " ".join(text.split())


def failure_info(path: Path) -> dict[str, Any]:
    """A failed message's record: reason, recipients, failed_at, game, player."""
    meta = path.with_name(path.name + FAILURE_SUFFIX)
    if not meta.exists():
        return {}
    data: dict[str, Any] = json.loads(meta.read_text(encoding="utf-8"))
    return data


@dataclass(frozen=True)
class Undeliverable:
    """A player of a game whose mail the server refused for good."""

    player: str
    recipients: tuple[str, ...]
    reason: str
    failed_at: str


def undeliverable(settings: Settings, game_id: str) -> list[Undeliverable]:
    """The game's messages in outbox/failed/, oldest first."""
    if settings.database_url is not None:
        from adjudicator.mail import outbox_table

        return outbox_table.undeliverable(settings, game_id)
    found: list[Undeliverable] = []
    for path in messages_in(settings, FAILED):
        info = failure_info(path)
        if info.get("game") != game_id:
            continue
        recipients = tuple(str(r) for r in info.get("recipients", []))
        found.append(
            Undeliverable(
                str(info.get("player", "")),
                recipients,
                str(info.get("reason", "")),
                str(info.get("failed_at", "")),
            )
        )
    return found


def failure_record(
    data: bytes, reason: str, recipients: list[str], now: datetime
) -> dict[str, Any]:
    """What is kept of a message refused for good (`data`), and what the host is told."""
    headers = header_block(data)
    return {
        "reason": reason,
        "recipients": recipients,
        "failed_at": now.isoformat(),
        "game": str(headers.get("X-Pamir-Game", "")),
        "player": str(headers.get("X-Pamir-Player", "")),
    }


def alert_failure(settings: Settings, target: Path, record: dict[str, Any]) -> None:
    """Queue the host's alert of a message refused for good, before the message is marked
    failed: a crash between the two leaves the message pending, to fail again, and the
    alert's key keeps it from being queued twice."""
    if record["player"] != "operator":  # a refused alert must not beget another one
        from adjudicator.mail.operator import alert_undeliverable  # imports this module

        alert_undeliverable(settings, target, record)


def _fail(
    settings: Settings, path: Path, reason: str, recipients: list[str], now: datetime
) -> Path:
    """Move a message refused for good to outbox/failed/, with why; tell the host."""
    record = failure_record(path.read_bytes(), reason, recipients, now)
    alert_failure(settings, outbox(settings, FAILED) / path.name, record)
    target = _move(settings, path, FAILED)
    meta = target.with_name(target.name + FAILURE_SUFFIX)
    write_atomically(meta, (json.dumps(record, indent=2) + "\n").encode())
    log.error(
        "mail %s to %s cannot be delivered: %s; moved to %s",
        target.name,
        ", ".join(recipients),
        reason,
        target.parent,
    )
    return target


BLANK_LINE = re.compile(rb"\r?\n\r?\n")


def header_block(data: bytes) -> EmailMessage:
    """A message's headers, parsed from the bytes before its first blank line only: the
    parser reads every line it is given, and a report's body (its picture in base64) is
    about a hundred times longer than its headers."""
    end = BLANK_LINE.search(data)
    head = data if end is None else data[: end.end()]
    headers = BytesHeaderParser(policy=policy.default).parsebytes(head)
    assert isinstance(headers, EmailMessage)
    return headers


def _deadline_passed(data: bytes, now: datetime) -> bool:
    """A reminder is pointless once its deadline has passed: what was played instead
    reaches the player in the report of the move made for them."""
    headers = header_block(data)
    value = headers.get(DEADLINE_HEADER)
    if value is None:
        return False
    try:
        return datetime.fromisoformat(str(value).strip()) <= now
    except ValueError:
        return False


def _accepted_name(game_id: str) -> str:
    return f"mail/accepted/{game_id}.json"


def _accepted(settings: Settings, game_id: str) -> dict[str, str]:
    data: dict[str, str] = store.read_json(store.of(settings), _accepted_name(game_id)) or {}
    return data


def _record_accepted(path: Path, now: datetime, accepted: dict[str, dict[str, str]]) -> None:
    """Note in `accepted` ({game: {key: time}}) when the server took a report, for
    `_save_accepted` to remember at the end of the delivery run."""
    key = path.name.split("-", 1)[1].removesuffix(".eml")
    if "-report-" not in key:
        return
    headers = header_block(path.read_bytes())
    game = str(headers.get("X-Pamir-Game", ""))
    if game:
        accepted.setdefault(game, {})[key] = now.isoformat()


def _save_accepted(settings: Settings, accepted: dict[str, dict[str, str]]) -> None:
    """Remember when the server took each report: a player's clock counts from then when
    the mail was late (docs/scheduler.md). Kept apart from sent/, which may be emptied.

    One write per game and delivery run (it was one per message, each with an fsync, a
    fifth of a move's wait): a crash in the run loses its times as a crash between
    sending a message and writing its time did, and the clock then counts from the move."""
    for game, times in accepted.items():
        kept = {**_accepted(settings, game), **times}
        kept = dict(list(kept.items())[-ACCEPTED_KEPT:])
        store.write_json(store.of(settings), _accepted_name(game), kept)


def accepted_at(settings: Settings, game_id: str, prefix: str) -> datetime | None:
    """When the server last accepted a message of the game whose key starts with
    `prefix`, or None if it never did (as far as the record goes)."""
    if settings.database_url is not None:
        from adjudicator.mail import outbox_table

        return outbox_table.accepted_at(settings, game_id, prefix)
    times = [t for key, t in _accepted(settings, game_id).items() if key.startswith(prefix)]
    return max((datetime.fromisoformat(t) for t in times), default=None)


def is_pending(settings: Settings, prefix: str) -> bool:
    """Whether a message whose key starts with `prefix` waits in outbox/pending/."""
    if settings.database_url is not None:
        from adjudicator.mail import outbox_table

        return outbox_table.is_pending(settings, prefix)
    folder = settings.outbox_dir / PENDING
    return folder.is_dir() and any(folder.glob(f"*-{prefix}*.eml"))


def _move(settings: Settings, path: Path, folder: str) -> Path:
    target = outbox(settings, folder) / path.name
    os.replace(path, target)
    with suppress(FileNotFoundError):
        _retry_file(path).unlink()
    return target


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


def _envelope(settings: Settings, data: bytes) -> tuple[str, list[str]]:
    headers = header_block(data)
    recipients = [a for _, a in getaddresses([str(v) for v in headers.get_all("To", [])]) if a]
    return parseaddr(settings.mail_from)[1] or settings.mail_from, recipients


def _crlf(data: bytes) -> bytes:
    """SMTP's line endings (smtplib sends bytes as they are; .eml files use newlines).
    Two replaces instead of a regular expression: a report's hundreds of base64 lines
    took the expression about a millisecond."""
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


@contextmanager
def _delivery_lock(settings: Settings) -> Iterator[None]:
    """One delivery run at a time (across processes and nodes), so nothing is sent twice."""
    path = outbox(settings, PENDING).parent / ".deliver.lock"
    with locks.exclusive(settings, "outbox:deliver", path):
        yield


def deliver(
    settings: Settings, now: datetime | None = None, *, force: bool = False
) -> DeliveryReport:
    """Send the pending messages that are due (all of them with `force`); move each one the
    server accepted to outbox/sent. With no smtp_host, move them all to outbox/written and
    log where they are. The messages the server did not take are counted for /metrics."""
    report = _deliver(settings, now or datetime.now(UTC), force)
    metrics.smtp_failures(len(report.deferred) + len(report.failed))
    return report


def _deliver(settings: Settings, now: datetime, force: bool) -> DeliveryReport:
    if settings.database_url is not None:  # rows claimed one at a time, by any node
        from adjudicator.mail import outbox_table

        return outbox_table.deliver(settings, now, force)
    report = DeliveryReport()
    with _delivery_lock(settings):
        pending = messages_in(settings, PENDING)
        if not pending:
            return report
        if settings.smtp_host is None:
            for path in pending:
                target = _move(settings, path, WRITTEN)
                report.written.append(target)
                log.info("no smtp_host configured: mail written to %s", target)
            return report
        due = [p for p in pending if _due(p, now, force)]
        report.waiting = [p for p in pending if p not in due]
        if not due:
            return report
        fault("before-send")
        _send_due(settings, due, now, report)
    return report


def _send_due(settings: Settings, due: list[Path], now: datetime, report: DeliveryReport) -> None:
    """Send the due messages over up to `smtp_connections` sessions, each recipient's in
    order (adjudicator.mail.sessions); what no session could send waits for the next run."""
    sending = _Sending(settings, due, now)
    try:
        outcome = send_over_sessions(
            min(settings.smtp_connections, len(due)),
            lambda: connect(settings),
            sending.next,
            sending.addresses,
            sending.send,
            sending.lose,
        )
        if not outcome.emptied and not outcome.opened:  # the server cannot be reached
            sending.unreachable(str(outcome.unreachable))
        elif not outcome.emptied:  # every session broke: the rest waits
            for path in sending.left:
                sending.lose(path, str(outcome.lost))
    finally:
        _save_accepted(settings, sending.accepted)
        sending.tally.into(report)


class _Sending:
    """One delivery run's due files, sent from any of its sessions' threads; what became
    of each is noted in `tally`, in the order of `due`."""

    def __init__(self, settings: Settings, due: list[Path], now: datetime) -> None:
        self.settings, self.now = settings, now
        self.order = {path: index for index, path in enumerate(due)}
        self.left = iter(due)
        self.envelopes: dict[Path, tuple[str, list[str]]] = {}
        self.tally = Tally()
        self.accepted: dict[str, dict[str, str]] = {}
        self._accepting = threading.Lock()

    def next(self) -> Path | None:
        return next(self.left, None)

    def addresses(self, path: Path) -> list[str]:
        self.envelopes[path] = _envelope(self.settings, path.read_bytes())
        return self.envelopes[path][1]

    def send(self, smtp: smtplib.SMTP, path: Path) -> None:
        """Send one message; `SessionLost` when the session broke (the message deferred)."""
        settings, now, index = self.settings, self.now, self.order[path]
        data = path.read_bytes()
        sender, recipients = self.envelopes.pop(path)
        if _deadline_passed(data, now):
            target = _move(settings, path, EXPIRED)
            self.tally.add(index, "expired", target)
            log.info("mail %s not sent: its deadline has passed", target.name)
            return
        try:
            smtp.sendmail(sender, recipients, _crlf(data))
        except (
            smtplib.SMTPRecipientsRefused,
            smtplib.SMTPSenderRefused,
            smtplib.SMTPDataError,
        ) as error:
            # This message only: the session goes on with the next one.
            self.tally.add(index, "errors", f"{path.name}: {error}")
            permanent = permanent_refusal(error)
            if permanent is None:
                _defer(settings, path, str(error), now)
                self.tally.add(index, "deferred", path)
            else:
                self.tally.add(index, "failed", _fail(settings, path, permanent, recipients, now))
            with suppress(OSError, smtplib.SMTPException):
                smtp.rset()
            return
        except (OSError, smtplib.SMTPException) as error:
            # The session broke: this message and the others it had left wait.
            self.tally.add(index, "errors", f"{path.name}: {error}")
            self.lose(path, str(error))
            raise SessionLost(str(error)) from None
        target = _move(settings, path, SENT)
        with self._accepting:
            _record_accepted(target, now, self.accepted)
        self.tally.add(index, "sent", target)
        log.info("mail %s sent to %s", target.name, ", ".join(recipients))

    def lose(self, path: Path, error: str) -> None:
        """Put off a message of a session that broke."""
        self.envelopes.pop(path, None)
        _defer(self.settings, path, f"session lost: {error}", self.now)
        self.tally.add(self.order[path], "deferred", path)

    def unreachable(self, error: str) -> None:
        """Put off every message left: no session could be opened."""
        reason = f"cannot reach {self.settings.smtp_host}:{self.settings.smtp_port}: {error}"
        self.tally.add(-1, "errors", reason)
        for path in self.left:
            _defer(self.settings, path, reason, self.now)
            self.tally.add(self.order[path], "deferred", path)


# -- answers to commands, and messages between players -------------------------------------


def notify_answer(
    settings: Settings,
    repo: GameRepo,
    player: str,
    markdown_text: str,
    *,
    key: str,
    in_reply_to: str | None,
    subject: str | None,
) -> Path:
    """Queue the answer to a player's own message (a command by mail, a press message
    sent), in their thread; `key` (see `message_key`) makes queuing it twice a no-op."""
    number = snapshot(repo).adjudicated
    return _answer(settings, repo, player, markdown_text, number, in_reply_to, subject, False, key)


def notify_players(
    settings: Settings,
    repo: GameRepo,
    players: list[str],
    subject: str,
    markdown_text: str,
    *,
    kind: str,
    ref: str,
    number: int | None = None,
) -> list[Path]:
    """Queue one message to each of `players`, in each one's thread, under keys made of
    `kind`, `ref` and `number` (by default the last adjudicated move's; queuing them again
    is a no-op); their Message-IDs name the last adjudicated move all the same. Only
    what `markdown_text` says goes out: no other player's address, as every message goes
    to one recipient."""
    snap = snapshot(repo)
    number = snap.adjudicated if number is None else number
    written: list[Path] = []
    with _threads(settings, snap.game.id) as threads:
        batch: list[tuple[EmailMessage, str]] = []
        slots: list[int] = []  # where each of the batch goes among the files returned
        for name in players:
            entry = snap.game.player(name)
            key = message_key(snap.game.id, number, entry.name, kind, ref)
            if (done := queued(settings, key)) is not None:
                written.append(done)
                continue
            # The Message-ID (and X-Pamir-Move) name the game's move, whatever the key's.
            own = make_message_id(settings, snap.game.id, snap.adjudicated, entry.name, key)
            thread = threads.get(entry.name.lower(), {})
            root = thread.get("root", own)
            message = compose(
                settings,
                snap.game.id,
                entry.name,
                subject,
                markdown_text,
                thread_root=root,
                in_reply_to=thread.get("last"),
                number=snap.adjudicated,
                message_id=own,
                to=entry.email,
            )
            slots.append(len(written) + len(batch))
            batch.append((message, key))
            threads[entry.name.lower()] = {"root": root, "last": own}
        for slot, path in zip(slots, queue_many(settings, batch), strict=True):
            written.insert(slot, path)
    return written
