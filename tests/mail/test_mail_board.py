"""The board and the player's hand in report mails (docs/email.md#what-a-report-contains).

Through the real outbox and a real SMTP server: the public board as an inline PNG
(multipart/related, shown by Content-ID), the player's own hand as card faces in that
player's HTML only, the plain text as before, each mail under 150 KB; and without cairo,
the same mail without the picture.
"""

from __future__ import annotations

import copy
import logging
import random
import struct
import sys
import zlib
from email import policy
from email.contentmanager import ContentManager
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from gitgame import bot_submission, current_home
from mailserver import html, mail_server, needs_cairo, new_game, plain, settings_for, unstyled

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.drawing.cards import card_label
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import game_at, snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import outbox, pictures, report_mails
from adjudicator.mail.compose import messages, reports
from adjudicator.mail.compose.reports import player_message
from engine.cards import card_name

pytestmark = pytest.mark.usefixtures("home")

NAMES = ("alice", "bob", "carol")
LIMIT = 150 * 1024


def play(repo: GameRepo, count: int, seed: int = 7) -> list[Adjudication]:
    rng = random.Random(seed)
    done = []
    for _ in range(count):
        state = position(snapshot(repo), current_home())
        player, text = bot_submission(state, rng, whole_turn=True)
        done.append(submit(repo, player, text, home=current_home()))
    return done


def sent(settings: Settings) -> dict[str, tuple[EmailMessage, int]]:
    """The messages in outbox/sent, read back from their files: {player: (message, size)}."""
    found = {}
    for path in outbox.messages_in(settings, outbox.SENT):
        data = path.read_bytes()
        message = BytesParser(policy=policy.default).parsebytes(data)
        assert isinstance(message, EmailMessage)
        found[str(message["X-Pamir-Player"])] = (message, len(data))
    return found


def images(message: EmailMessage) -> list[EmailMessage]:
    return [p for p in message.walk() if p.get_content_type() == "image/png"]


def png_of(message: EmailMessage) -> bytes:
    [part] = images(message)
    data = part.get_content()
    assert isinstance(data, bytes)
    return data


def pixel_bytes(png: bytes) -> bytes:
    """The inflated IDAT data (filter bytes and pixels), read with struct and zlib."""
    offset, idat = 8, b""
    while offset < len(png):
        (length,) = struct.unpack(">I", png[offset : offset + 4])
        if png[offset + 4 : offset + 8] == b"IDAT":
            idat += png[offset + 8 : offset + 8 + length]
        offset += 12 + length
    return zlib.decompress(idat)


def expected_text(settings: Settings, repo: GameRepo, result: Adjudication, name: str) -> str:
    """The plain-text part as it was before the picture: report, own section, reply."""
    game = game_at(repo, result.commit)
    waiting = engine.view(position(snapshot(repo, result.commit), current_home()))["pending"]
    decides = name in (waiting["players"] if waiting else [])
    return "\n\n".join(player_message(settings, game, result, name, decides)) + "\n"


@pytest.fixture
def game(home: Path) -> tuple[Settings, GameRepo, Adjudication]:
    """A three-player game some moves in, with cards in hands; its last adjudication."""
    settings = settings_for(home, None)
    repo, _ = new_game(settings, NAMES)
    last = play(repo, 6)[-1]
    state = position(snapshot(repo), home)
    assert any(engine.view(state, n)["players"][i]["hand"] for i, n in enumerate(NAMES))
    return settings, repo, last


def notify(
    game: tuple[Settings, GameRepo, Adjudication], **kwargs: object
) -> tuple[Settings, dict[str, tuple[EmailMessage, int]], list[EmailMessage]]:
    """Notify the last adjudication through a real SMTP server; what the outbox kept and
    what the server received."""
    settings, repo, result = game
    with mail_server() as server:
        settings = settings.model_copy(update={"smtp_host": "127.0.0.1", "smtp_port": server.port})
        report_mails.notify(settings, repo, [result], **kwargs)  # type: ignore[arg-type]
        received = server.messages
    assert len(received) == len(NAMES)
    return settings, sent(settings), received


@needs_cairo
def test_a_report_shows_the_board_inline_by_content_id(
    game: tuple[Settings, GameRepo, Adjudication],
) -> None:
    _, kept, received = notify(game)
    assert sorted(kept) == sorted(NAMES)
    for message in [m for m, _ in kept.values()] + received:
        assert message.get_content_type() == "multipart/alternative"
        text_part, related = message.iter_parts()
        assert text_part.get_content_type() == "text/plain"
        assert related.get_content_type() == "multipart/related"
        page, image = related.iter_parts()
        assert page.get_content_type() == "text/html"
        assert image.get_content_type() == "image/png"
        assert image.get_content_disposition() == "inline"
        cid = str(image["Content-ID"])
        assert cid.startswith("<board.") and cid.endswith("@pamir.example>")
        body = html(message)
        assert f'src="cid:{cid[1:-1]}"' in body
        assert 'alt="The board after move 6: ' in body and "victory points" in body
        # The picture takes the place of the Markdown's link to board.svg.
        assert "drawn in board.svg" not in body


@needs_cairo
def test_the_picture_is_a_readable_png_of_the_public_board(
    game: tuple[Settings, GameRepo, Adjudication],
) -> None:
    _, kept, _ = notify(game)
    _, repo, result = game
    state = position(snapshot(repo, result.commit), current_home())
    pngs = {name: png_of(message) for name, (message, _) in kept.items()}
    png = pngs["alice"]
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    assert width == 800 and 600 < height < 1400
    assert len(png) > 20_000  # a blank board of this size is a few hundred bytes
    assert len(set(pixel_bytes(png))) > 16  # more than a background colour
    # One picture for all: the public view's board, and no player's own.
    assert set(pngs.values()) == {png}
    public = pictures.recompress(pictures.cairo_png(board_svg(engine.view(state)), 800))
    assert png == public
    for name in NAMES:
        drawn = board_svg(engine.view(state, name))
        own = pictures.recompress(pictures.cairo_png(drawn, 800))
        assert own != png


def test_the_hand_faces_go_to_their_owner_only(
    game: tuple[Settings, GameRepo, Adjudication],
) -> None:
    settings, kept, _ = notify(game)
    _, repo, result = game
    state = position(snapshot(repo, result.commit), current_home())
    hands: dict[str, list[int]] = {}
    for i, n in enumerate(NAMES):
        hand = engine.view(state, n)["players"][i]["hand"]
        assert hand is not None  # a player's own view shows their hand
        hands[n] = hand
    public_text = result.report
    for name, (message, _) in kept.items():
        body = html(message)
        for card in hands[name]:
            assert f'aria-label="{card_label(card)}, in hand"' in body
            assert f"{settings.base_url}/cards/{card}" in body
        assert ("<h3>Your hand</h3>" in unstyled(body)) == bool(hands[name])
        assert ("Card data from Pax Pamir" in body) == bool(hands[name])
        for other in NAMES:
            for card in set(hands[other]) - set(hands[name]):
                assert f"{card_label(card)}, in hand" not in body
                if card_name(card) not in public_text:  # not in the market, courts, ...
                    assert card_name(card) not in body


def test_the_plain_text_is_unchanged_and_a_mail_is_under_150_kb(
    game: tuple[Settings, GameRepo, Adjudication],
) -> None:
    settings, kept, received = notify(game)
    _, repo, result = game
    for name, (message, size) in kept.items():
        assert plain(message) == expected_text(settings, repo, result, name)
        assert "cid:" not in plain(message)
        assert size < LIMIT
    for message in received:
        assert len(message.as_bytes()) < LIMIT


def test_without_cairo_the_mail_goes_out_without_the_picture(
    game: tuple[Settings, GameRepo, Adjudication],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """As when libcairo cannot be loaded: the imports of cairocffi and CairoSVG fail. The
    mail goes out, its HTML without a picture; the log says why once, not once per mail."""
    monkeypatch.setattr(pictures, "_warned", set())
    # `import cairocffi` and `import cairosvg` raise ImportError.
    monkeypatch.setitem(sys.modules, "cairocffi", None)
    monkeypatch.setitem(sys.modules, "cairosvg", None)
    with caplog.at_level(logging.WARNING, logger="adjudicator.mail.pictures"):
        _, kept, received = notify(game)
    assert sorted(kept) == sorted(NAMES)
    for message in [m for m, _ in kept.values()] + received:
        assert [p.get_content_type() for p in message.iter_parts()] == [
            "text/plain",
            "text/html",
        ]
        assert images(message) == []
        assert "cid:" not in html(message)
        # Where the picture would be, the mail says where the board is.
        assert "The board after this move: on this move" in html(message)
        assert "board.svg" not in html(message)
        hand = "<h3>Your hand</h3>" in unstyled(html(message))
        assert hand or "Your hand: empty." in plain(message)
    warnings = [r for r in caplog.records if "without the board picture" in r.getMessage()]
    assert len(warnings) == 1 and "cairocffi" in warnings[0].getMessage()


def test_a_converter_that_fails_is_warned_about_once_across_adjudications(
    home: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pictures, "_warned", set())

    def no_cairo(svg_text: str, width: int) -> bytes:
        raise OSError("no library called cairo-2 was found")

    with mail_server() as server, caplog.at_level(logging.WARNING):
        settings = settings_for(home, server.port)
        repo, created = new_game(settings, NAMES)
        results = [created, *play(repo, 2)]
        report_mails.notify(settings, repo, results, rasterize=no_cairo)
        received = server.messages
    assert len(received) == 3 * len(NAMES)
    assert all(images(m) == [] for m in received)
    warnings = [r for r in caplog.records if "without the board picture" in r.getMessage()]
    assert len(warnings) == 1 and "cairo-2" in warnings[0].getMessage()


@needs_cairo
def test_a_board_too_large_for_the_room_is_drawn_narrower_or_left_out(
    game: tuple[Settings, GameRepo, Adjudication], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pictures, "_warned", set())
    _, repo, result = game
    view = engine.view(position(snapshot(repo, result.commit), current_home()))
    svg_text = board_svg(view)
    made: list[int] = []

    def counted(text: str, width: int) -> bytes:
        made.append(width)
        return pictures.cairo_png(text, width)

    board = pictures.BoardPictures(svg_text, "b@x", "the board", counted)
    wide = board.fitting(10**6)
    assert wide is not None and pictures.png_size(wide.png)[0] == 800
    narrow_room = pictures.encoded_size(board.at(480).png) + 1  # type: ignore[union-attr]
    narrow = board.fitting(narrow_room)
    assert narrow is not None and pictures.png_size(narrow.png)[0] < 800
    assert board.fitting(1000) is None
    assert sorted(made) == sorted(set(made))  # each width rasterized once


# Notes as long as a move file may be (max_move_bytes, 64 KB by default): one line of
# text, one of characters that take four bytes each, thousands of tiny ones.
NOTES = {
    "one long line": "# note: " + "Lorem ipsum dolor sit amet. " * 2300 + "\n",
    "four bytes each": "# note: " + "\U0001f600" * 16300 + "\n",
    "markup": "# note: " + "<&>" * 21700 + "\n",
    "markdown": "# note: " + "**a** _b_ `c` [d](https://e.example/f) " * 1500 + "\n",
    "thousands of them": "# note: \U0001f600\n" * 5000,
}


@pytest.mark.parametrize("note", list(NOTES))
def test_a_report_with_the_longest_note_stays_under_150_kb(
    game: tuple[Settings, GameRepo, Adjudication], note: str
) -> None:
    """The note is the player's own text, cut in the mail with a word of where it is
    whole: the committed report, which the game's record keeps."""
    settings, repo, _ = game
    state = position(snapshot(repo), current_home())
    player, action = bot_submission(state, random.Random(3))
    text = NOTES[note] + action
    assert len(text.encode()) <= settings.max_move_bytes
    result = submit(repo, player, text, home=current_home())
    for line in NOTES[note].splitlines():  # the record keeps the whole note
        assert f"- {line.removeprefix('# note: ').strip()}\n" in result.report
    _, kept, received = notify((settings, repo, result))
    for name, (message, size) in kept.items():
        assert size < LIMIT, (name, size)
        for part in (plain(message), html(message)):
            assert "(cut: the whole note is in the game's record" in part
            assert f"reports/{result.number:04d}.md" in part
        # What the move did is all there: only the note is cut.
        for line in result.report.splitlines():
            if line.startswith("- ") and "note" not in line and len(line) < 200:
                assert line in plain(message)
    for message in received:
        assert len(message.as_bytes()) < LIMIT


def _tricky_texts() -> list[str]:
    """Texts whose quoted-printable encoding is longest for their size: escapes across
    the places where lines break, white space at lines' ends, long lines, CR, non-ASCII."""
    rng = random.Random(11)
    pieces = ["=", " ", "\t", "a", "é", "\U0001f600", '<p style="x">', "\r\n", "\n", "\r", "."]
    texts = ["", "=", " ", "a" * 75 + " ", "a" * 74 + "= ", "=" * 300, " \n" * 50]
    texts += [("x" * n) + ending for n in range(70, 80) for ending in (" ", "\t", "=", "é", "")]
    for _ in range(300):
        texts.append("".join(rng.choice(pieces) for _ in range(rng.randrange(1, 400))))
    return texts


@pytest.mark.parametrize("manager", [None, messages.TEXT], ids=["email-package", "binascii"])
def test_the_bound_of_a_quoted_printable_html_is_never_under_its_encoding(
    manager: ContentManager | None,
) -> None:
    for text in _tricky_texts():
        part = EmailMessage(policy=policy.default)
        part.set_content(text, subtype="html", cte="quoted-printable", content_manager=manager)
        encoded = part.get_payload()
        assert isinstance(encoded, str)
        assert len(encoded) <= reports.quoted_printable_at_most(text), repr(text)


def test_the_service_s_text_parts_read_as_the_email_package_s() -> None:
    """The text parts the service writes (messages.TEXT, binascii's encoder) have the
    email package's headers, and read back as the same text, for every tricky text and
    in a mail's policy."""
    for text in _tricky_texts():
        for subtype in ("plain", "html"):
            ours = EmailMessage(policy=messages.MAIL_POLICY)
            ours.set_content(
                text, subtype=subtype, cte="quoted-printable", content_manager=messages.TEXT
            )
            theirs = EmailMessage(policy=messages.MAIL_POLICY)
            theirs.set_content(text, subtype=subtype, cte="quoted-printable")
            assert ours.items() == theirs.items()
            assert ours.get_content() == theirs.get_content(), repr(text)
            again = BytesParser(policy=policy.default).parsebytes(ours.as_bytes())
            assert isinstance(again, EmailMessage)
            assert again.get_content() == theirs.get_content(), repr(text)
            # No line longer than the email package's own may be (78, RFC 5322 2.1.1).
            assert all(len(line) <= 78 for line in ours.as_bytes().splitlines())


@needs_cairo
def test_a_report_mail_is_written_as_the_email_package_writes_it(
    game: tuple[Settings, GameRepo, Adjudication],
) -> None:
    """The service's writer (messages.ServiceMessage: the picture's part written once, the
    multiparts' boundaries set without a parse) gives the bytes the email package's own
    writer gives the same message, boundaries drawn alike, under either policy."""
    settings, repo, result = game
    made = report_mails._Reports(settings, repo, result, pictures.cairo_png)
    for entry in made.game.players:
        ours = made.message(made.plan(entry, {}))
        multiparts = [part for part in ours.walk() if part.is_multipart()]
        assert len(multiparts) == 2  # the text's alternatives, the HTML and its picture
        for part in multiparts:  # written out anew, boundaries drawn anew
            part.replace_header("Content-Type", part.get_content_type())
        theirs = copy.deepcopy(ours)
        for part in theirs.walk():
            part.__class__ = EmailMessage
        for how in (None, policy.SMTP):
            random.seed(entry.name)
            written = ours.as_bytes(policy=how)
            random.seed(entry.name)
            assert written == theirs.as_bytes(policy=how)
        assert all(isinstance(part["Content-Type"], messages._BoundaryType) for part in multiparts)
        again = BytesParser(policy=policy.default).parsebytes(written)
        assert [p.get_content_type() for p in again.walk()] == [
            p.get_content_type() for p in ours.walk()
        ]


@pytest.mark.parametrize(
    "body",
    ["one\ntwo\n", "one\r\ntwo", "a\rb\r\n\nc\r", "\n", "\r\n\r\n", "no line end", ""],
)
def test_the_service_s_writer_ends_a_body_s_lines_as_the_email_package_s(body: str) -> None:
    """A body's line ends (CRLF, CR, LF, at the end or not) become the policy's, as the
    email package's writer makes them, in one substitution (`_Writer._write_lines`)."""
    for how in (None, policy.SMTP, policy.default):
        ours, theirs = messages.ServiceMessage(), EmailMessage()
        for made in (ours, theirs):
            made["Subject"] = "lines"
            made.set_payload(body)
        assert ours.as_bytes(policy=how) == theirs.as_bytes(policy=how)


@needs_cairo
def test_a_mail_whose_picture_fits_by_the_bound_is_the_one_measured_exactly(
    game: tuple[Settings, GameRepo, Adjudication], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The widest picture found to fit by the bound of the message's size (its HTML not
    yet encoded) gives the very message that measuring it exactly (the HTML encoded, the
    message written out) gives: the same bytes, but for the Date."""
    settings, repo, result = game

    def mails() -> list[bytes]:
        made = report_mails._Reports(settings, repo, result, pictures.cairo_png)
        written = []
        for entry in made.game.players:
            random.seed(entry.name)  # the same MIME boundaries both times
            message = made.message(made.plan(entry, {}))
            assert images(message), entry.name  # the picture fits either way
            del message["Date"]
            written.append(message.as_bytes())
        return written

    by_bound = mails()
    monkeypatch.setattr(reports, "_room_at_least", lambda made, html: -1)  # never enough
    assert mails() == by_bound
