"""What a player reads in a report mail: the public report in their language, their own
private section (no one else's), their hand as card faces, the board's picture (when it
fits under MAIL_BUDGET), the web pages and how to reply; and the subject that says at a
glance whether they must act.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from email import quoprimime
from email.message import EmailMessage
from html import escape
from typing import Any, cast

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.drawing.cards import ATTRIBUTION, LICENSE_URL, faces_in_hand
from adjudicator.drawing.description import describe
from adjudicator.games.gamefile import GameFile
from adjudicator.games.outputs import (
    Adjudication,
    private_section_name,
    translated_report_name,
)
from adjudicator.games.pipeline import position
from adjudicator.games.repo import GameRepo
from adjudicator.games.reports import without_board_image
from adjudicator.games.snapshot import STATE_FILE, snapshot
from adjudicator.games.wording import in_words
from adjudicator.home import store
from adjudicator.home.paths import private_folder
from adjudicator.home.settings import Settings
from adjudicator.home.translations import N_, SOURCE, Words, words_for
from adjudicator.mail import tokens
from adjudicator.mail.compose.messages import (
    TEXT,
    attach_picture,
    board_line,
    board_paragraph,
    compose,
    html_page_of,
    mail_html,
    message_domain,
)
from adjudicator.mail.cuts import cut_notes
from adjudicator.mail.links import page_links
from adjudicator.mail.pictures import WIDTHS, BoardPictures, Picture, Rasterize, encoded_size
from engine.view_types import PublicView

log = logging.getLogger(__name__)


PRIVATE_NAME = re.compile(r"^(\d{4})-(.+)\.md$")


MAIL_BUDGET = 150 * 1024  # the most bytes a report may take, its picture included


PICTURE_OVERHEAD = 1024  # the picture's MIME headers and its <img> in the HTML


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


def state_document(repo: GameRepo, commit: str) -> dict[str, Any]:
    """A commit's state.json ({} when it has none)."""
    text = repo.read(STATE_FILE, commit)
    document: dict[str, Any] = json.loads(text) if text else {}
    return document


def recorded_view(document: dict[str, Any]) -> PublicView | None:
    """The public view a state.json document records (None when it records none: a
    commit from before views were recorded)."""
    view = document.get("view")
    # The document is the engine's own output (engine.view), written with the commit.
    return cast(PublicView, view) if view else None


def public_view(repo: GameRepo, commit: str) -> PublicView | None:
    """The public view a commit records in its state.json (None when it has none)."""
    return recorded_view(state_document(repo, commit))


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
    view = recorded_view(document)
    last: dict[str, Any] = document.get("last") or {}
    player = str(last.get("player"))
    if over:
        said = words("The game is over (move %(number)s)", number=number)
    elif decides:
        if prompt is None and words.language == SOURCE:
            pending = None if view is None else view.get("pending")
            found = None if pending is None else pending.get("prompt")
            prompt = str(found or words("your decision"))
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


def waiting_for(view: PublicView | None) -> list[str]:
    pending = None if view is None else view.get("pending")
    return [] if pending is None else [str(p).lower() for p in pending.get("players", [])]


def is_over(view: PublicView | None) -> bool:
    return view is not None and view.get("phase") == "over"


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
    where = board_line(words, board_page(settings, game.id, player, result.number))
    report = without_board_image(report, where)  # the mail carries no link to board.svg
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


class Illustrations:
    """What an adjudication's report mails show besides their text: the public board as a
    picture (drawn and rasterized once per language its readers read, for all of them) and
    each player's own hand as card faces."""

    def __init__(
        self,
        settings: Settings,
        repo: GameRepo,
        result: Adjudication,
        view: PublicView | None,
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
        if self.view is None or not self.view.get("players"):
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
        """The player's own hand as card faces (HTML), read from the position (their own
        view's `hand`, without making the rest of the view); "" when the hand is empty or
        the position cannot be had."""
        state = self._position()
        if state is None:
            return ""
        base = self.settings.base_url.rstrip("/").replace("{", "{{").replace("}", "}}")
        hand = state.players[state.seat(player)].hand
        faces = faces_in_hand(hand, link=base + "/cards/{}", words=words)
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


def board_page(settings: Settings, game_id: str, player: str, number: int) -> str:
    """The page that shows the board after move `number`: that move's."""
    links = page_links(settings, game_id, player, number)
    return links.turn or links.game


def _with_board(html: str, words: Words, url: str, picture: Picture | None) -> str:
    """The report's HTML with, where the committed report shows board.svg, the picture (or,
    without one, the line that says where the board is); a picture with no such place
    goes first."""
    image = BOARD_IMAGE_HTML.search(html)
    line = board_paragraph(words, url)
    if picture is None:
        return html if image is None else html[: image.start()] + line + html[image.end() :]
    img = f"<p>{picture.img()}</p>"
    if image is not None:
        return html[: image.start()] + img + html[image.end() :]
    if line in html:
        return html.replace(line, img, 1)
    return img + "\n" + html


# The board's image as the shared report's HTML has it: Markdown's image made its alt text
# (adjudicator/games/safehtml.py), alone in its paragraph, before any style is put on it.
BOARD_IMAGE_HTML = re.compile(r"<p><span>[^<]*board\.svg[^<]*</span></p>")


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
    illustrations: Illustrations,
    earlier: Sequence[str] = (),
    **headers: Any,
) -> EmailMessage:
    """A player's report mail: the text as today, the HTML with the board's picture (if it
    fits in `MAIL_BUDGET`, at the widest width that does) and the player's hand as faces.
    `earlier`: the reports of the turn's earlier moves held for this mail (Markdown, in
    the player's language), shown first. `headers` go to `compose` (thread_root,
    in_reply_to, number, message_id, to)."""
    report, *own_parts = player_message(settings, game, result, player, decides, over)
    if earlier:
        report = "\n\n".join([*earlier, report])
        report_html = None  # no longer the report every reader shares
    words = words_for(game.player(player).language)
    # Markdown blocks render alone: the shared report's HTML is reused as is.
    own_html = [mail_html(p) for p in own_parts]
    own_html.insert(len(own_html) - 1, illustrations.hand(player, words))  # before how to reply
    text = "\n\n".join([report, *own_parts]) + "\n"
    if report_html is None:
        report_html = mail_html(report)
    url = board_page(settings, game.id, player, result.number)
    shared, report_html = report_html, _with_board(report_html, words, url, None)

    def html(shown: str) -> str:
        return html_page_of([part for part in [shown, *own_html] if part])

    plain = html(report_html)  # the HTML as it is without the picture
    pictures = illustrations.pictures(words)
    widest = None if pictures is None else pictures.at(WIDTHS[0])
    if widest is not None:
        # Most often the widest picture fits, which a bound of the message's size without
        # it tells before its HTML is encoded: the HTML with the picture is then the only
        # one encoded, in the part `compose` made for it with no text yet.
        made = compose(settings, game.id, player, subject, text, html="", **headers)
        made["X-Pamir-Kind"] = "report"  # what filters (and tests) tell report mails by
        if encoded_size(widest.png) <= _room_at_least(made, plain):
            _show(made, widest, _with_board(shared, words, url, widest), html)
            return made
    made = compose(settings, game.id, player, subject, text, html=plain, **headers)
    made["X-Pamir-Kind"] = "report"
    if pictures is None:
        return made
    picture = pictures.fitting_after(lambda exact: _size(made, exact))
    if picture is not None:
        # The message measured becomes the one with the picture, as `compose` would make
        # it: composing it again (headers parsed, text encoded) cost as much as the first.
        _show(made, picture, _with_board(shared, words, url, picture), html)
    return made


def _show(made: EmailMessage, picture: Picture, shown: str, html: Callable[[str], str]) -> None:
    """The message's HTML part set to `html(shown)`, which shows `picture`, and the
    picture put beside it."""
    html_part = made.get_body(preferencelist=("html",))
    assert isinstance(html_part, EmailMessage)
    html_part.set_content(html(shown), subtype="html", cte="quoted-printable", content_manager=TEXT)
    attach_picture(made, picture)


def _room_at_least(made: EmailMessage, html: str) -> int:
    """At most the room `_size` would leave for the picture beside `made` once its HTML
    part (empty as it stands) holds `html`: the bound of `size_at_most`, with the HTML's
    quoted-printable length bounded (`quoted_printable_at_most`) instead of encoded."""
    html_part = made.get_body(preferencelist=("html",))
    assert isinstance(html_part, EmailMessage)
    empty = html_part.get_payload()
    assert isinstance(empty, str)
    size = size_at_most(made) - len(empty) + quoted_printable_at_most(html)
    return MAIL_BUDGET - size - PICTURE_OVERHEAD


# The bytes quoted-printable writes as they are (the email package's body encoding): the
# others become three characters each.
QP_AS_IS = bytes(c for c in range(256) if not quoprimime.body_check(c)) + b"\r\n"


def quoted_printable_at_most(text: str) -> int:
    """An upper bound of the length of `text` (in UTF-8) as `set_content` encodes it in
    quoted-printable: three characters for each byte that is not written as it is; at
    most two more (`=` and the line's end) for each soft line break, one each 73
    characters of a line at least; at most four more for a line's last character when
    it is white space; and some to spare."""
    data = text.encode("utf-8")
    encoded = len(data) + 2 * len(data.translate(None, QP_AS_IS))
    lines = data.count(b"\n") + data.count(b"\r") + 1
    return encoded + 2 * (encoded // 73 + lines) + 4 * lines + 16


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
