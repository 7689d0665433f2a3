"""The web pages: the list of games, a game's position and history, one move's report.

Everything shown comes from what the game repository publishes: `state.json` (the public
view), `reports/`, `game.toml` (players' names only, never their addresses) and the
commit history. The secret, the deck and the players' private sections live elsewhere
in PAMIR_HOME and are never read here.

A player whose mail the server refused for good (outbox/failed/, docs/email.md) is named
on the game's page with the server's reason, their address taken out of it.

A game that cannot be read is marked as needing its host (`adjudicator.games.needs_host`):
its pages say so and why (503), and the index lists it with a mark among the others.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from typing import Any, cast

from flask import Blueprint, Response, abort, jsonify, render_template, request
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from adjudicator.drawing.cards import ATTRIBUTION, LICENSE_URL, all_cards, card_face, card_text
from adjudicator.games import needs_host
from adjudicator.games.deadlines import DeadlineError, local_text, zone
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.history import Entry, history
from adjudicator.games.press import public_press
from adjudicator.games.registry import (
    folder_id,
    game_ids,
    game_path,
    mark_needs_host,
    survey_of,
)
from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.reports import without_board_image
from adjudicator.games.snapshot import (
    REPORTS_DIR,
    STATE_FILE,
    GameError,
    Snapshot,
    read_state,
    snapshot,
)
from adjudicator.mail.lobby.answers import refusal
from adjudicator.mail.lobby.forms import compose, mailto
from adjudicator.mail.lobby.joining import open_games
from adjudicator.mail.lobby.seats import service_address
from adjudicator.mail.outbox import undeliverable
from adjudicator.schedule.clock import read_deadlines, waiting
from adjudicator.schedule.turnmail import enforced_deadline
from adjudicator.web.context import current_settings
from adjudicator.web.freshness import freshen
from adjudicator.web.languages import page_words
from adjudicator.web.rendering import FILTERS, report_html
from engine.view_types import PublicView

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
REPORT_NAME = re.compile(r"^\d{4}\.md$")
HISTORY_PAGE_SIZE = 20
INDEX_PAGE_SIZE = 50  # games on a page of the list of games
MAX_PAGE = 10_000  # a bigger number is no page, not a request for a huge slice

bp = Blueprint("pages", __name__)
log = logging.getLogger(__name__)


@bp.record_once
def _install_filters(state: Any) -> None:
    state.app.jinja_env.filters.update(FILTERS)


@dataclass
class Position:
    """A game as its page shows it: the public view after the last adjudicated move."""

    id: str
    players: list[str]
    move: int
    view: PublicView
    last: dict[str, Any] | None
    deadline: str | None  # when the awaited players must have decided (the game's zone)
    waiting: int  # pushed moves not adjudicated yet
    turn_hours: int
    # state.json's `phrases` (the prompt, the last move's log), for other languages.
    phrases: dict[str, Any] | None = None

    @property
    def awaited(self) -> list[str]:
        pending = self.view.get("pending")
        return list(pending["players"]) if pending else []


@dataclass(frozen=True)
class Broken:
    """A game that cannot be read, as the index and its page show it."""

    id: str
    problem: str
    since: str | None = None  # when the reason was first seen


@dataclass(frozen=True)
class PauseShown:
    """A pause of the game's clock that has not ended, as the game's page shows it."""

    player: str
    start: str  # in the game's time zone
    end: str
    reason: str
    now: bool  # in force now (else queued after another)


@dataclass(frozen=True)
class HistoryPage:
    """One page of a game's history, newest first: `number` counts from 1."""

    number: int
    count: int  # how many pages there are
    turns: list[Turn]


@dataclass
class Turn:
    """One adjudicated move (or the new game, number 0) with its report."""

    number: int
    entry: Entry | None
    report: str
    html: Any = field(default=None, repr=False)


def deadline_text(repo: GameRepo, snap: Snapshot) -> str | None:
    """When the awaited players must have decided, as the scheduler enforces it (the game's
    time zone, pauses included): counted from when their turn mail reached the mail
    server, when that was after the commit (docs/scheduler.md#late-mail); None when nobody
    is awaited."""
    try:
        pending = waiting(repo, snap.commit)
        if pending is None:
            return None
        due, held = enforced_deadline(current_settings(), repo, pending, datetime.now(UTC))
        text = local_text(due, zone(pending.timezone))
        if held:
            text += " at the earliest (the turn mail waits to be sent; the clock starts then)"
        return text
    except (DeadlineError, ValueError) as error:
        log.warning("game %s: no deadline: %s", snap.game.id, error)
        return None


def read_position(repo: GameRepo, snap: Snapshot | None = None) -> Position:
    snap = snap or snapshot(repo)
    document = read_state(repo, snap.commit)
    if document is None or "view" not in document:
        raise GameError(f"{repo.path.name} has no {STATE_FILE} with a view")
    view: PublicView = document["view"]
    deadline = deadline_text(repo, snap) if view.get("pending") is not None else None
    return Position(
        id=snap.game.id,
        players=snap.game.names,
        move=int(document.get("move", 0)),
        view=view,
        last=document.get("last"),
        deadline=deadline,
        waiting=len(snap.pending()),
        turn_hours=snap.game.deadlines.turn_hours,
        phrases=document.get("phrases") if isinstance(document.get("phrases"), dict) else None,
    )


def mail_problems(snap: Snapshot) -> list[tuple[str, str]]:
    """(player, reason) for each message to a player at their present address that the
    mail server refused for good. The address is never shown: it is cut from the reason
    (servers often quote it), and a refusal at an address the host has since changed no
    longer counts."""
    problems: list[tuple[str, str]] = []
    for failed in undeliverable(current_settings(), snap.game.id):
        try:
            entry = snap.game.player(failed.player)
        except KeyError:
            continue
        if entry.email.lower() not in (r.lower() for r in failed.recipients):
            continue
        reason = re.sub(re.escape(entry.email), "the player's address", failed.reason, flags=re.I)
        problem = (entry.name, public_problem(reason))
        if problem not in problems:
            problems.append(problem)
    return problems


@contextmanager
def opened(game_id: str) -> Iterator[GameRepo]:
    """The game's repository, or a 404 for an id this service does not have."""
    if not GAME_ID.match(game_id):
        abort(404, description=f"There is no game called {game_id!r} here.")
    settings = current_settings()
    path = game_path(settings, game_id)
    if path is None:
        abort(404, description=f"There is no game called {game_id!r} here.")
    freshen(settings, game_id, path)
    try:
        repo = GameRepo(path)
    except RepoError:
        abort(404, description=f"There is no game called {game_id!r} here.")
    try:
        yield repo
    finally:
        repo.repo.close()


def history_page(repo: GameRepo, snap: Snapshot, page: int) -> HistoryPage:
    """Page `page` of the moves that have a report, newest first, HISTORY_PAGE_SIZE a
    page; only the newest move's report is read (the game's page shows it, and links the
    others), so a long game's page costs no more than a short one's. A page number past
    the last gives the last page."""
    numbers = sorted(
        (int(n[:4]) for n in repo.names(REPORTS_DIR, snap.commit) if REPORT_NAME.match(n)),
        reverse=True,
    )
    count = max(1, -(-len(numbers) // HISTORY_PAGE_SIZE))
    page = min(max(page, 1), count)
    shown = numbers[(page - 1) * HISTORY_PAGE_SIZE : page * HISTORY_PAGE_SIZE]
    entries = {e.number: e for e in history(repo) if e.number is not None}
    turns = [Turn(number, entries.get(number), "") for number in shown]
    if page == 1 and turns:
        newest = turns[0]
        newest.report = repo.read(f"{REPORTS_DIR}/{newest.number:04d}.md", snap.commit) or ""
        newest.html = report_html(without_board_image(newest.report), 2)
    return HistoryPage(page, count, turns)


def pauses_shown(repo: GameRepo, snap: Snapshot, now: datetime | None = None) -> list[PauseShown]:
    """The clock's pauses that have not ended yet (deadlines.toml), oldest first."""
    now = now or datetime.now(UTC)
    where = zone(snap.game.deadlines.timezone)
    return [
        PauseShown(
            pause.player,
            local_text(pause.start, where),
            local_text(pause.end, where),
            pause.reason,
            pause.start <= now,
        )
        for pause in read_deadlines(repo, snap.commit).pause
        if pause.end > now
    ]


def broken_game(repo: GameRepo, error: Exception) -> Broken:
    """Mark the game as needing its host; what its page and the index say about it."""
    settings = current_settings()
    game_id = folder_id(repo.path)
    if not isinstance(error, GameError | GameFileError):
        log.error("game %s cannot be shown", game_id, exc_info=error)
        error = GameError(f"the game cannot be read ({type(error).__name__}; see the log)")
    mark_needs_host(settings, game_id, repo, str(error))
    mark = needs_host.marked(settings.home, game_id)
    return Broken(game_id, public_problem(str(error)), mark.first_seen if mark else None)


def public_problem(problem: str) -> str:
    """What a public page may say of a game's problem: not where the service keeps its
    data (a reason may name a folder under PAMIR_HOME)."""
    return problem.replace(str(current_settings().home), "PAMIR_HOME")


def needs_host_page(broken: Broken) -> tuple[str, int]:
    return render_template("web/needs_host.html", broken=broken), 503


@bp.get("/")
def index() -> str:
    """The games, INDEX_PAGE_SIZE a page in the order of their ids: a page reads its own
    games only, so it costs the same however many games the service has."""
    settings = current_settings()
    page = request.args.get("page", "1")
    if not page.isdigit() or not 1 <= int(page) <= MAX_PAGE:
        abort(404, description=f"There is no page {page[:20]!r} of games.")
    ids = game_ids(settings)
    count = max(1, -(-len(ids) // INDEX_PAGE_SIZE))
    number = min(int(page), count)
    shown = ids[(number - 1) * INDEX_PAGE_SIZE : number * INDEX_PAGE_SIZE]
    rows: list[Position | Broken] = []
    for entry in survey_of(settings, shown):
        if not GAME_ID.match(entry.id):
            entry.repo.repo.close()
            continue
        try:
            if entry.problem is not None:
                mark = needs_host.marked(settings.home, entry.id)
                since = mark.first_seen if mark else None
                rows.append(Broken(entry.id, public_problem(entry.problem or ""), since))
            else:
                rows.append(read_position(entry.repo, entry.snap))
        except Exception as error:  # one game's failure is shown on its row, never a 500
            rows.append(broken_game(entry.repo, error))
        finally:
            entry.repo.repo.close()
    return render_template("web/index.html", positions=rows, number=number, count=count)


@bp.get("/games/<game_id>")
def game(game_id: str) -> str | tuple[str, int]:
    page = request.args.get("page", "1")
    if not page.isdigit() or not 1 <= int(page) <= MAX_PAGE:
        abort(404, description=f"There is no page {page!r} of game {game_id}'s history.")
    with opened(game_id) as repo:
        try:
            snap = snapshot(repo)
            position = read_position(repo, snap)
            moves = history_page(repo, snap, int(page))
            pauses = pauses_shown(repo, snap)
            problems = mail_problems(snap)
            press = public_press(repo, snap.commit)[::-1]
        except Exception as error:  # the game needs its host: say so, never 404 or 500
            return needs_host_page(broken_game(repo, error))
        needs_host.clear(current_settings(), game_id, unless_at=snap.commit)
    return render_template(
        "web/game.html",
        position=position,
        history=moves,
        pauses=pauses,
        mail_problems=problems,
        record_language=snap.game.language,
        head=snap.commit or "",
        press_messages=press,
    )


@bp.get("/games/<game_id>/version")
def version(game_id: str) -> Response:
    """The game's last adjudicated move and head commit, for the pages' live refresh
    (live.js): public, as the game page is; 304 when the visitor's ETag is the head's."""
    with opened(game_id) as repo:
        snap = snapshot(repo)
        head = snap.commit or ""
        if request.if_none_match.contains(head):
            answer = Response(status=304)
        else:
            answer = jsonify({"number": snap.adjudicated, "head": head})
    answer.set_etag(head)
    answer.cache_control.no_cache = True
    return answer


@bp.get("/lobby")
def lobby() -> str:
    """The lobby (docs/lobby.md#on-the-web): a form that writes the `new game` mail for the
    visitor to send, and the open games anyone may join. No such page while it is off."""
    settings = current_settings()
    if settings.lobby == "off":
        abort(404)
    address = service_address(settings)
    composed = compose(request.args)
    error = refusal(page_words(), composed.error) if composed and composed.error else None
    send = mailto(address, "new game", composed.text) if composed and not error else None
    games = [(p, mailto(address, "join", f"join {p.name}\n")) for p in open_games(settings)]
    return render_template(
        "web/lobby.html",
        address=address,
        composed=composed,
        error=error,
        send=send,
        games=games,
        fields=request.args,
    )


@bp.get("/help")
def help_page() -> str:
    """How to write a move: the notation, for players (docs/notation.md says the same)."""
    return render_template("web/help.html", max_bytes=current_settings().max_move_bytes)


@bp.get("/games/<game_id>/turns/<int:number>")
def turn(game_id: str, number: int) -> str | tuple[str, int]:
    with opened(game_id) as repo:
        try:
            snap = snapshot(repo)
            text = repo.read(f"{REPORTS_DIR}/{number:04d}.md", snap.commit)
            entries = {e.number: e for e in history(repo) if e.number is not None}
            numbers = sorted(
                int(n[:4]) for n in repo.names(REPORTS_DIR, snap.commit) if n[:4].isdigit()
            )
            # The page draws the board above the report: no caption for a file beside it.
            html = None if text is None else report_html(without_board_image(text), 1)
            view = None if text is None else _view_of_report(repo, number)
        except Exception as error:  # the game needs its host: say so, never 404 or 500
            return needs_host_page(broken_game(repo, error))
    if text is None or html is None:
        abort(404, description=f"Game {game_id} has no report for move {number}.")
    earlier = [n for n in numbers if n < number]
    later = [n for n in numbers if n > number]
    return render_template(
        "web/turn.html",
        game_id=snap.game.id,
        players=snap.game.names,
        turn=Turn(number, entries.get(number), text, html),
        previous=earlier[-1] if earlier else None,
        following=later[0] if later else None,
        view=view,
        record_language=snap.game.language,
    )


def _view_of_report(repo: GameRepo, number: int) -> PublicView | None:
    """The public view committed with a report: state.json at the commit that wrote it
    (reports never change afterwards, so that is the first commit touching it)."""
    commits = repo.log(f"{REPORTS_DIR}/{number:04d}.md")
    if not commits:
        return None
    document = read_state(repo, commits[0].hexsha)
    view = None if document is None else document.get("view")
    return cast(PublicView, view) if isinstance(view, dict) else None


@bp.get("/cards")
def cards() -> str:
    """Every card, with a link to its page."""
    return render_template("web/cards.html", cards=all_cards(), attribution=ATTRIBUTION)


@bp.get("/cards/<int:number>")
def card(number: int) -> str:
    """One card's full text and face."""
    text = card_text(number)
    if text is None:
        abort(
            404,
            description=f"There is no card {number}: court cards are 1 to 100, events 101 to 116.",
        )
    return render_template(
        "web/card.html",
        card=text,
        face=Markup(card_face(number, link=None, words=page_words())),
        attribution=ATTRIBUTION,
        license_url=LICENSE_URL,
    )


@lru_cache(maxsize=1)
def _stylesheet() -> str:
    return resources.files("pamir_templates").joinpath("web/style.css").read_text("utf-8")


@lru_cache(maxsize=1)
def _live_script() -> str:
    return resources.files("pamir_templates").joinpath("web/live.js").read_text("utf-8")


@bp.get("/live.js")
def live_script() -> Response:
    """The pages' one script, from this site: the Content-Security-Policy allows no inline
    script (docs/web.md#live-pages)."""
    response = Response(_live_script(), mimetype="text/javascript")
    response.cache_control.public = True
    response.cache_control.max_age = 3600
    return response


@bp.get("/style.css")
def stylesheet() -> Response:
    """The pages' styles, in a file of their own: the Content-Security-Policy allows no
    inline style (docs/web.md)."""
    response = Response(_stylesheet(), mimetype="text/css")
    response.cache_control.public = True
    response.cache_control.max_age = 3600
    return response


@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
@bp.app_errorhandler(413)
def error_page(error: HTTPException) -> tuple[str, int]:
    return render_template("web/error.html", error=error), error.code or 500
