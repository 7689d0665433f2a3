"""The web pages: the list of games, a game's position and history, one move's report.

Everything shown comes from what the game repository publishes: `state.json` (the public
view), `reports/`, `game.toml` (players' names only, never their addresses) and the
commit history. The secret, the deck and the players' private sections live elsewhere
in PAMIR_HOME and are never read here.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from flask import Blueprint, Response, abort, render_template
from werkzeug.exceptions import HTTPException

from adjudicator.games.deadlines import DeadlineError, local_text, zone
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.history import Entry, history
from adjudicator.games.registry import game_path
from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.snapshot import REPORTS_DIR, STATE_FILE, GameError, Snapshot, snapshot
from adjudicator.schedule.clock import waiting
from adjudicator.web import current_settings
from adjudicator.web.rendering import FILTERS, report_html

GAME_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")

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
    view: dict[str, Any]
    last: dict[str, Any] | None
    deadline: str | None  # when the awaited players must have decided (the game's zone)
    waiting: int  # pushed moves not adjudicated yet
    turn_hours: int

    @property
    def awaited(self) -> list[str]:
        pending = self.view.get("pending")
        return list(pending["players"]) if pending else []


@dataclass
class Turn:
    """One adjudicated move (or the new game, number 0) with its report."""

    number: int
    entry: Entry | None
    report: str
    html: Any = field(default=None, repr=False)


def _deadline(repo: GameRepo, snap: Snapshot) -> str | None:
    """When the awaited players must have decided, as the reports and the scheduler say
    (the game's time zone, pauses included); None when nobody is awaited."""
    try:
        pending = waiting(repo, snap.commit)
        if pending is None:
            return None
        return local_text(pending.clock.deadline, zone(pending.timezone))
    except (DeadlineError, ValueError) as error:
        log.warning("game %s: no deadline: %s", snap.game.id, error)
        return None


def read_position(repo: GameRepo, snap: Snapshot | None = None) -> Position:
    snap = snap or snapshot(repo)
    text = repo.read(STATE_FILE, snap.commit)
    if text is None:
        raise GameError(f"{repo.path.name} has no {STATE_FILE}")
    document = json.loads(text)
    view: dict[str, Any] = document["view"]
    deadline = _deadline(repo, snap) if view.get("pending") is not None else None
    return Position(
        id=snap.game.id,
        players=snap.game.names,
        move=int(document.get("move", 0)),
        view=view,
        last=document.get("last"),
        deadline=deadline,
        waiting=len(snap.pending()),
        turn_hours=snap.game.deadlines.turn_hours,
    )


@contextmanager
def opened(game_id: str) -> Iterator[GameRepo]:
    """The game's repository, or a 404 for an id this service does not have."""
    if not GAME_ID.match(game_id):
        abort(404, description=f"There is no game called {game_id!r} here.")
    path = game_path(current_settings(), game_id)
    if path is None:
        abort(404, description=f"There is no game called {game_id!r} here.")
    try:
        repo = GameRepo(path)
    except RepoError:
        abort(404, description=f"There is no game called {game_id!r} here.")
    try:
        yield repo
    finally:
        repo.repo.close()


def _turns(repo: GameRepo, snap: Snapshot) -> list[Turn]:
    """Every report with its history entry, newest first."""
    texts = repo.texts(REPORTS_DIR, snap.commit)
    entries = {e.number: e for e in history(repo) if e.number is not None}
    turns: list[Turn] = []
    for name, text in texts.items():
        match = re.match(r"^(\d{4})\.md$", name)
        if match:
            number = int(match.group(1))
            turns.append(Turn(number, entries.get(number), text))
    turns.sort(key=lambda t: t.number, reverse=True)
    return turns


@bp.get("/")
def index() -> str:
    settings = current_settings()
    positions: list[Position] = []
    if settings.games_dir.is_dir():
        for path in sorted(settings.games_dir.iterdir()):
            if not path.is_dir() or not GAME_ID.match(path.name.removesuffix(".git")):
                continue
            try:
                repo = GameRepo(path)
            except RepoError:
                continue
            try:
                positions.append(read_position(repo))
            except (GameError, GameFileError, ValueError, KeyError) as error:
                log.warning("game %s cannot be shown: %s", path.name, error)
            finally:
                repo.repo.close()
    return render_template("web/index.html", positions=positions)


@bp.get("/games/<game_id>")
def game(game_id: str) -> str:
    with opened(game_id) as repo:
        try:
            snap = snapshot(repo)
            position = read_position(repo, snap)
            turns = _turns(repo, snap)
        except (GameError, GameFileError) as error:
            log.warning("game %s cannot be shown: %s", game_id, error)
            abort(404, description=f"There is no playable game called {game_id!r} here.")
    for turn in turns:
        turn.html = report_html(turn.report, 2)
    return render_template("web/game.html", position=position, turns=turns)


@bp.get("/games/<game_id>/turns/<int:number>")
def turn(game_id: str, number: int) -> str:
    with opened(game_id) as repo:
        try:
            snap = snapshot(repo)
            text = repo.read(f"{REPORTS_DIR}/{number:04d}.md", snap.commit)
            if text is None:
                abort(404, description=f"Game {game_id} has no report for move {number}.")
            entries = {e.number: e for e in history(repo) if e.number is not None}
            numbers = sorted(
                int(n[:4]) for n in repo.names(REPORTS_DIR, snap.commit) if n[:4].isdigit()
            )
        except (GameError, GameFileError) as error:
            log.warning("game %s cannot be shown: %s", game_id, error)
            abort(404, description=f"There is no playable game called {game_id!r} here.")
    earlier = [n for n in numbers if n < number]
    later = [n for n in numbers if n > number]
    return render_template(
        "web/turn.html",
        game_id=snap.game.id,
        players=snap.game.names,
        turn=Turn(number, entries.get(number), text, report_html(text, 1)),
        previous=earlier[-1] if earlier else None,
        following=later[0] if later else None,
    )


@lru_cache(maxsize=1)
def _stylesheet() -> str:
    return resources.files("pamir_templates").joinpath("web/style.css").read_text("utf-8")


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
