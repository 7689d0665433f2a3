"""A player's private page: their own view of the game, and a form to submit a move.

`/play/GAME/PLAYER/TOKEN`, where TOKEN is `tokens.page_token` (an HMAC of the game, the
player and the generation of their credentials under the service's key): the link is the
player's secret, like their reply address. Any wrong part gives the same 404. A link the
player had before (their address changed, the host revoked it) gives 410 Gone: a short
page saying that the link was replaced and the newest mail has the new one, with nothing
of the game on it. So does every link of a player who resigned: the seat is the
stand-in's (games/resign.py), and nothing of it is theirs to see or play any more.

The page shows what the player's own view holds (`engine.view(state, player)`): their hand,
the board, the decision the game waits for and the player's own legal actions. Nothing of
another player's hand is on it.

The form is adjudicated as a mailed move is (adjudicator.mail.incoming): under the game's
lock, through `pipeline.submit` with the same size limit and encoding checks, pushed to the
game's forge if it has one, and the players' mails queued from the new commit
(`ledger.reconcile`). Its hidden fields carry the head commit the page was made at, the
move number it expects and `tokens.form_token` over both the page token and that head: a
form another site made is refused (it cannot know the token), and so is one posted after
the game moved on (stale).

The page also shows the press it may (the public press, and the private press to or from
its player) and takes press by a form posted to `.../press`: checked like the move form,
relayed under the game's lock by mail/press.py's `relay`, as mailed press is, its log keyed
by a hash of the form's random nonce so that a form posted twice is relayed once.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import parse_qs

from flask import Blueprint, Response, abort, make_response, redirect, render_template, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response as WerkzeugResponse

import engine
from adjudicator.drawing.cards import hand_faces
from adjudicator.games.choices import choices, grouped, heading
from adjudicator.games.outputs import Refusal
from adjudicator.games.pipeline import position, submit
from adjudicator.games.press import PressMessage, public_press
from adjudicator.games.registry import game_lock, game_path
from adjudicator.games.repo import BranchLocked, GameRepo, RepoError
from adjudicator.games.reports import translated_view
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import metrics
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words
from adjudicator.mail import ledger, outbox, press, tokens
from adjudicator.mail.outcomes import push_to_forge
from adjudicator.web import drafts
from adjudicator.web.context import SECURITY_HEADERS, current_settings, read_body
from adjudicator.web.freshness import freshen
from adjudicator.web.languages import plain, use_language
from adjudicator.web.pages import GAME_ID, broken_game, deadline_text, needs_host_page

bp = Blueprint("play", __name__, url_prefix="/play")
log = logging.getLogger(__name__)

PLAYER = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
TOKEN = re.compile(rf"^[0-9a-f]{{{tokens.PAGE_TOKEN_LENGTH}}}$")
NOT_FOUND = "There is no such page."
# The form posts to the page itself: the one page whose forms may go anywhere ('self').
PLAY_CSP = SECURITY_HEADERS["Content-Security-Policy"].replace(
    "form-action 'none'", "form-action 'self'"
)
# A form field is percent-encoded: at most three bytes a byte of text, and the hidden
# fields besides. A longer body is refused before it is read whole (413).
FORM_OVERHEAD = 4096
NONCE = re.compile(r"^[0-9a-f]{32}$")


@dataclass(frozen=True)
class Notice:
    """What became of a submitted form, shown at the top of the page."""

    accepted: bool
    text: str
    language: str = "en"  # of the text: "" for the page's own (the engine's is English)
    number: int | None = None  # the move adjudicated


@bp.after_request
def _private(response: Response) -> Response:
    # The address is the player's secret: no cache keeps the page, no link passes it on.
    response.headers["Content-Security-Policy"] = PLAY_CSP
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@contextmanager
def _players_game(game_id: str, player: str, token: str) -> Iterator[tuple[GameRepo, str]]:
    """The game's repository and the player's name as game.toml spells it; one 404 for any
    wrong part, so that the answer never says which."""
    settings = current_settings()
    if not (GAME_ID.match(game_id) and PLAYER.match(player) and TOKEN.match(token)):
        abort(404, description=NOT_FOUND)
    standing = tokens.page_standing(settings, game_id, player, token)
    if standing is tokens.Standing.REPLACED:
        abort(_gone("replaced"))
    if standing is not tokens.Standing.CURRENT:
        abort(404, description=NOT_FOUND)
    path = game_path(settings, game_id)
    if path is not None:
        freshen(settings, game_id, path)
    try:
        repo = GameRepo(path) if path is not None else None
    except RepoError:
        repo = None
    if repo is None:
        abort(404, description=NOT_FOUND)
    try:
        try:
            entry = snapshot(repo).game.player(player)
        except KeyError:
            abort(404, description=NOT_FOUND)
        except Exception as error:  # the game needs its host: say so, never a 500
            abort(make_response(*needs_host_page(broken_game(repo, error))))
        if entry.resigned:
            abort(_gone("resigned", entry.language))
        yield repo, entry.name
    finally:
        repo.repo.close()


def _gone(why: str, language: str | None = None) -> Response:
    """410 Gone, and why: the link was replaced, or its player resigned. Nothing of the
    game is shown, and the player's own language is only known past a current token."""
    if language is not None:
        use_language(language)
    return make_response(render_template("web/gone.html", why=why), 410)


def _player_words(repo: GameRepo, player: str) -> Words:
    """The page's words: the language the visitor chose with the switch, else the player's
    own (game.toml), before their browser's."""
    return use_language(snapshot(repo).game.player(player).language)


def _page(
    repo: GameRepo,
    player: str,
    token: str,
    notice: Notice | None = None,
    text: str = "",
    press_text: str = "",
) -> str:
    """The private page as the game stands now."""
    settings = current_settings()
    snap = snapshot(repo)
    words = _player_words(repo, player)
    state = position(snap, settings.home)
    draft, discarded = drafts.load(settings, snap.game.id, player, snap.adjudicated)
    tried = drafts.attempt(state, player, draft.lines)
    if draft.notes:  # shown once
        drafts.save(
            settings, snap.game.id, player, drafts.Draft(number=draft.number, lines=draft.lines)
        )
    if tried.state is not None and draft.lines:
        state = tried.state  # the page shows the position after the draft
    view = engine.view(state, player)
    pending = view.get("pending")
    if pending is not None:
        view = translated_view(view, engine.pending_phrase(state), words)
    awaited = list(pending["players"]) if pending else []
    head = snap.commit or ""
    return render_template(
        "web/play.html",
        game_id=snap.game.id,
        player=player,
        view=view,
        # escaped by the drawing code
        hand=[Markup(face) for face in hand_faces(view, words=words)],
        awaited=awaited,
        deciding=player in awaited,
        follow_ups=engine.follow_ups(state, player) if view["options"] else [],
        groups=_choice_groups(state, player, words) if not tried.waiting else [],
        steps=[
            (
                step.line,
                step.waits,
                None if step.refusal is None else _said(words, step.refusal),
                [_said(words, line) for line in step.happened],
            )
            for step in tried.steps
        ],
        draft_waits=tried.waiting,
        draft_notes=draft.notes,
        discarded=discarded,
        deadline=deadline_text(repo, snap) if pending else None,
        notice=notice,
        text=text,
        form={
            "head": head,
            "expected": snap.next_number,
            "token": tokens.form_token(settings, token, head),
        },
        max_bytes=settings.max_move_bytes,
        page_token=token,
        press_messages=_press_shown(settings, repo, player),
        press_form={
            "others": [n for n in snap.game.names if n != player],
            "nonce": secrets.token_hex(16),
            "text": press_text,
            "max_chars": press.MAX_CHARS,
        },
    )


def _press_shown(settings: Settings, repo: GameRepo, player: str) -> list[PressMessage]:
    """The public press and the player's own private press, newest first."""
    game_id = snapshot(repo).game.id
    found = public_press(repo) + press.private_press(settings, game_id, player)
    return sorted(found, key=lambda m: (m.sent, m.to != "all", m.number), reverse=True)


def _said(words: Words, reason: str | engine.Phrase) -> str:
    return reason if isinstance(reason, str) else plain(words.said(reason))


def _choice_groups(
    state: engine.State, player: str, words: Words
) -> list[tuple[str, str, list[tuple[str, str, int | None, list[str]]]]]:
    """The player's legal actions at the draft's position, as buttons under their group's
    verb and heading: line, label, cost, warnings, in the player's words."""
    try:
        seat = state.seat(player)
    except KeyError:
        return []
    found = choices(state, seat)
    return [
        (
            verb,
            _said(words, heading(verb)),
            [
                (c.line, _said(words, c.label), c.cost, [_said(words, w) for w in c.warnings])
                for c in members
            ],
        )
        for verb, members in grouped(found)
    ]


@bp.get("/<game_id>/<player>/<token>")
def page(game_id: str, player: str, token: str) -> str | tuple[str, int]:
    with _players_game(game_id, player, token) as (repo, name):
        try:
            return _page(repo, name, token)
        except Exception as error:  # the game needs its host: say so, never a 500
            return needs_host_page(broken_game(repo, error))


@bp.post("/<game_id>/<player>/<token>")
def move(game_id: str, player: str, token: str) -> tuple[str, int]:
    settings = current_settings()
    with _players_game(game_id, player, token) as (repo, name):
        form = _read_form(settings)
        text = _move_text(form.get("move", ""))
        head = form.get("head", "")
        if not tokens.is_form_token(settings, token, head, form.get("token", "")):
            words = _player_words(repo, name)
            refused = Notice(
                False, words("This form did not come from this page: reload the page."), ""
            )
            return _page(repo, name, token, refused, text), 403
        expected = int(form["expected"]) if form.get("expected", "").isdigit() else None
        notice, status = _adjudicate(settings, repo, name, text, head, expected)
        answer = _page(repo, name, token, notice, "" if notice.accepted else text), status
    _deliver(settings)  # with the lock released: a slow mail server holds up no game
    return answer


def _read_form(settings: Settings, most: int | None = None) -> dict[str, str]:
    """The form's fields, its text decoded as strictly as a move file (not UTF-8: 400)."""
    body = read_body((most or settings.max_move_bytes) * 3 + FORM_OVERHEAD)
    if body is None:
        abort(413, description=f"A move is limited to {settings.max_move_bytes} bytes.")
    try:
        fields = parse_qs(body.decode("ascii"), errors="strict", max_num_fields=8)
    except (UnicodeDecodeError, ValueError):
        abort(400, description="The form's text is not UTF-8: send the form from its page.")
    return {key: values[0] for key, values in fields.items()}


def _move_text(field: str) -> str:
    """The textarea's text as a move file: browsers send CRLF line ends."""
    lines = field.replace("\r\n", "\n").replace("\r", "\n").rstrip().split("\n")
    return "\n".join(lines) + "\n" if any(line.strip() for line in lines) else ""


def _adjudicate(
    settings: Settings, repo: GameRepo, player: str, text: str, head: str, expected: int | None
) -> tuple[Notice, int]:
    """Submit the move as a mailed one is (the module's docstring); the notice and the
    page's status."""
    with game_lock(settings, snapshot(repo).game.id):
        # The mails of commits a process that died left unqueued come first, as for mail;
        # then a game on a forge is brought up to it, so that a move pushed there and not
        # yet seen here comes first (the page's head is then stale, and the page says so).
        ledger.reconcile(settings, repo)
        push_to_forge(settings, repo, None)
        if repo.head() != head:
            words = _player_words(repo, player)
            stale = words(
                "The game has moved on since this page was made: read it again, then move."
            )
            return Notice(False, stale, ""), 409
        try:
            done = submit(repo, player, text, home=settings.home, expected=expected)
        except BranchLocked as locked:  # a writer at work, or a lock one left when it died
            log.warning("move by %s in %s (web) not taken: %s", player, repo.path.name, locked)
            words = _player_words(repo, player)
            busy = words(
                "The game's repository is busy: another process holds its lock. Nothing was "
                "played; send your move again in a minute."
            )
            return Notice(False, busy, ""), 503
        except (Refusal, GameError) as error:
            metrics.moves("page", refused=1)
            log.info("move by %s in %s (web) refused: %s", player, repo.path.name, error)
            if isinstance(error, Refusal):  # the engine's words, in the player's language
                said = _player_words(repo, player).said(error.phrase)
                return Notice(False, plain(said), ""), 422
            return Notice(False, str(error)), 422
        update = push_to_forge(settings, repo, (player, text))
        ledger.reconcile(settings, repo)
        if update is not None and ledger.same_move_played(repo, player, text, head) is None:
            # Moves pushed to the forge meanwhile came first, and this one no longer applied.
            metrics.moves("page", refused=1)
            words = _player_words(repo, player)
            dropped = next((r for r in update.refused if r.text == text), None)
            if dropped is None:
                return Notice(False, words("moves pushed to the forge came first"), ""), 409
            if dropped.phrase is None:
                return Notice(False, dropped.reason), 409
            return Notice(False, plain(words.said(dropped.phrase)), ""), 409
    # Unless the same move, pushed to the forge meanwhile, stands instead (counted there).
    if update is None or not any(r.number is None and r.text == text for r in update.refused):
        metrics.moves("page", adjudicated=1)
    log.info("move %d by %s in %s (web) accepted", done.number, player, repo.path.name)
    words = _player_words(repo, player)
    said = words("Move %(number)s adjudicated.", number=done.number)
    return Notice(True, said, "", done.number), 200


def _deliver(settings: Settings) -> None:
    try:
        outbox.deliver(settings)
    except Exception:  # the outbox keeps the messages; the scheduler's outbox job retries
        log.exception("delivering the outbox failed")


@bp.post("/<game_id>/<player>/<token>/draft")
def draft(game_id: str, player: str, token: str) -> WerkzeugResponse | tuple[str, int]:
    """A change to the draft (add a line, undo step k, clear) or its submission as one
    move; POST-redirect-GET back to the page, as the move form's checks are made."""
    settings = current_settings()
    with _players_game(game_id, player, token) as (repo, name):
        form = _read_form(settings)
        head = form.get("head", "")
        if not tokens.is_form_token(settings, token, head, form.get("token", "")):
            words = _player_words(repo, name)
            refused = Notice(
                False, words("This form did not come from this page: reload the page."), ""
            )
            return _page(repo, name, token, refused), 403
        snap = snapshot(repo)
        kept, _ = drafts.load(settings, snap.game.id, name, snap.adjudicated)
        op = form.get("op", "")
        if op == "submit" and kept.lines:
            text = "\n".join(kept.lines) + "\n"
            expected = int(form["expected"]) if form.get("expected", "").isdigit() else None
            notice, status = _adjudicate(settings, repo, name, text, head, expected)
            if notice.accepted:
                drafts.save(settings, snap.game.id, name, drafts.Draft(number=snap.adjudicated))
            answer = _page(repo, name, token, notice), status
        else:
            if repo.head() == head:  # a form of a page the game has left changes nothing
                _change(settings, repo, name, kept, op, form)
            answer = None
    if answer is not None:
        _deliver(settings)
        return answer
    target = url_for("play.page", game_id=game_id, player=player, token=token) + "#draft"
    return redirect(target, 303)


def _change(
    settings: Settings,
    repo: GameRepo,
    player: str,
    kept: drafts.Draft,
    op: str,
    form: dict[str, str],
) -> None:
    snap = snapshot(repo)
    lines = list(kept.lines)
    notes: list[str] = []
    if op == "add" and form.get("line", "").strip():
        lines.append(form["line"].strip())
    elif op == "undo" and form.get("step", "").isdigit() and int(form["step"]) < len(lines):
        state = position(snap, settings.home)
        lines, dropped = drafts.without(state, player, lines, int(form["step"]))
        words = _player_words(repo, player)
        for step in dropped:
            reason = _said(words, step.refusal) if step.refusal is not None else ""
            notes.append(words("Dropped `%(line)s`: %(reason)s", line=step.line, reason=reason))
    elif op == "clear":
        lines = []
    drafts.save(
        settings,
        snap.game.id,
        player,
        drafts.Draft(number=snap.adjudicated, lines=lines, notes=notes),
    )


@bp.post("/<game_id>/<player>/<token>/press")
def send_press(game_id: str, player: str, token: str) -> tuple[str, int]:
    """Press from the page: relayed by the code that relays mailed press (mail/press.py),
    with its limits and its log; the page says what became of it."""
    settings = current_settings()
    with _players_game(game_id, player, token) as (repo, name):
        form = _read_form(settings, press.MAX_CHARS * 4)  # UTF-8: at most 4 bytes a character
        text = form.get("text", "").replace("\r\n", "\n").replace("\r", "\n").strip()
        words = _player_words(repo, name)
        nonce = form.get("nonce", "")
        if not (
            tokens.is_form_token(settings, token, form.get("head", ""), form.get("token", ""))
            and NONCE.match(nonce)
        ):
            said = words("This form did not come from this page: reload the page.")
            return _page(repo, name, token, Notice(False, said, ""), press_text=text), 403
        to = form.get("to", "all")
        block = press.Press(None if to == "all" else to, text)
        done = _relay(settings, repo, name, block, _press_key(game_id, name, nonce))
        notice = Notice(done.accepted, words.phrase(done.reason), "")
        status = 200 if done.accepted else 422
        answer = _page(repo, name, token, notice, press_text="" if done.accepted else text), status
    _deliver(settings)
    return answer


def _press_key(game_id: str, player: str, nonce: str) -> str:
    """The log's inbound key of a press form, as a mail's is made from its Message-ID: the
    same form posted twice is relayed once."""
    return ledger.inbound_key("\0".join(("web press", game_id, player.lower(), nonce)), b"")


def _relay(
    settings: Settings, repo: GameRepo, player: str, block: press.Press, key: str
) -> press.Relay:
    """Relay under the game's lock, as a mailed press is (adjudicator.mail.incoming)."""
    with game_lock(settings, snapshot(repo).game.id):
        ledger.reconcile(settings, repo)
        push_to_forge(settings, repo, None)  # a public press is committed on the forge's newest
        done = press.relay(settings, repo, block, player, key)
        if done.accepted:
            push_to_forge(settings, repo, None)
        ledger.reconcile(settings, repo)
    log.info("press by %s in %s (web): %s", player, repo.path.name, done.reason.message)
    return done
