"""What an adjudication writes: `state.json`, `board.svg`, reports, private sections, commit
trailers.

Shared by the pipeline and by rollbacks, so that both write the same formats.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.games import reports
from adjudicator.games.choices import choices
from adjudicator.games.clockstart import clock_started
from adjudicator.games.deadlines import (
    DEADLINES_FILE,
    DeadlineError,
    Pause,
    clock,
    local_text,
    parse_deadlines_file,
    zone,
)
from adjudicator.games.hints import policy_hints
from adjudicator.games.snapshot import GameError, Snapshot
from adjudicator.home.paths import private_folder
from adjudicator.home.store import store_for
from adjudicator.home.translations import SOURCE, Words, phrase_data, phrase_from
from engine.errors import said_refusal
from engine.phrases import P, Phrase
from engine.state import as_said
from engine.view_types import PublicView

# Words of a report that the adjudicator (not the engine's log) writes: a title, a line.
Said = str | Phrase


class Refusal(Exception):
    """A submission the pipeline refuses; nothing was committed. `code` is stable.

    `phrase` is `str(refusal)` in a form said in a reader's language (its English is the
    same text): mails and pages say it so, records keep it beside the English."""

    def __init__(
        self,
        code: str,
        message: Phrase | str,
        *,
        text: str | None = None,
        said: Phrase | None = None,
    ) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = str(message)
        self.text = text  # the full text when it already names the code (engine errors)
        reason = message if isinstance(message, Phrase) else as_said(message)
        self.phrase = said if said is not None else said_refusal(code, reason)

    @classmethod
    def of(cls, error: engine.MoveError) -> Refusal:
        """The refusal of a move the engine refused, in the engine's words."""
        return cls(error.code, error.describe_phrase(), text=str(error), said=error.said())

    def __str__(self) -> str:
        return self.text or f"{self.code}: {self.message}"


@dataclass
class Adjudication:
    number: int
    commit: str
    report: str
    refused: bool = False  # the commit records a pushed move's refusal (`record_refusal`)
    # The stand-in's moves for resigned seats, played at once after this one by the
    # pipeline (games/resign.py): their commits come next, in this order.
    followed: list[Adjudication] = field(default_factory=list)


def and_followers(results: Iterable[Adjudication]) -> list[Adjudication]:
    """`results` with the stand-in's moves that followed each, in the order of their
    commits: what a caller that mails the adjudications itself must mail."""
    return [every for result in results for every in (result, *and_followers(result.followed))]


def state_document(
    game_id: str,
    number: int,
    last: dict[str, Any] | None,
    state: engine.State,
    said: Sequence[Said] | None = None,
    refused: Phrase | None = None,
) -> str:
    """The text of `state.json`: the public view after move `number`, and `phrases`: the
    pending decision's prompt and the last move's log lines (`said`) as translatable data,
    for pages in another language (docs/game-repository.md); for a refused pushed move,
    its refusal (`refused`: `last.refused` as a phrase)."""
    data = {"game": game_id, "move": number, "last": last, "view": engine.view(state)}
    phrases = state_phrases(state, said)
    if refused is not None:
        phrases["refused"] = phrase_data(refused)
    data["phrases"] = phrases
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def state_phrases(state: engine.State, said: Sequence[Said] | None) -> dict[str, Any]:
    """state.json's `phrases` for `state` after a move that said `said` (None: a commit
    that plays no move)."""
    prompt = engine.pending_phrase(state)
    phrases: dict[str, Any] = {"prompt": None if prompt is None else phrase_data(prompt)}
    if said is not None:
        phrases["log"] = [phrase_data(line) for line in said]
    return phrases


def refused_phrase(document: Any) -> Phrase | None:
    """The phrase of the refusal a state.json records (`phrases.refused`), when it says
    `last.refused` in English; None for a record made before refusals were kept so (or any
    other), which is then shown in English."""
    if not isinstance(document, dict):
        return None
    last, phrases = document.get("last"), document.get("phrases")
    if not isinstance(last, dict) or not isinstance(phrases, dict):
        return None
    return phrase_said(phrases.get("refused"), last.get("refused"))


def phrase_said(data: Any, english: Any) -> Phrase | None:
    """The phrase `data` (phrase_data's) when its English is `english`, else None: also for
    anything that is not a phrase as phrase_data makes them (`phrase_from` refuses it)."""
    if data is None or not isinstance(english, str):
        return None
    try:
        phrase = phrase_from(data)
        if not isinstance(phrase, Phrase):
            return None
        return phrase if str(phrase) == english else None
    except (ValueError, KeyError, TypeError, RecursionError, MemoryError):
        return None  # not a phrase as phrase_data makes them, or parameters that do not fit


BOARD_FILE = "board.svg"


def board_document(state: engine.State, language: str = SOURCE) -> str:
    """The text of `board.svg`: the public view drawn, in the game's `language` (the public
    record's), which each report shows by a relative link (`../board.svg`). Written with
    `state.json` by every adjudicator commit, so the board at any commit is that commit's
    position."""
    return board_svg(engine.view(state), Words(language))


def sha256_text(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def report_for(
    snap: Snapshot,
    number: int,
    title: Said,
    state: engine.State,
    happened: Sequence[Said],
    when: datetime,
    *,
    restarts: bool = True,
    view: PublicView | None = None,
    language: str | None = None,
) -> str:
    """The public report of the commit made at `when` on top of `snap`, in `language` (by
    default the game's: the text committed). `restarts` is False for a commit that changes
    neither the position nor a rollback proposal (a refused pushed move): the clock then
    keeps running from its earlier start. `view` is the state's public view when the
    caller has it already."""
    words = Words(language or snap.game.language)
    view = engine.view(state) if view is None else view
    deadline = None
    if view["pending"] is not None:
        due = enforced_deadline(snap, when, restarts=restarts)
        if words.language == SOURCE:
            deadline = local_text(due, _zone(snap))  # the canonical text of English reports
        else:
            deadline = words.datetime(due, _zone(snap))
    # In English, the engine's own lines (a phrase's English is the line it logged).
    lines = [str(line) if words.language == SOURCE else words.said(line) for line in happened]
    if words.language != SOURCE:
        view = reports.translated_view(view, engine.pending_phrase(state), words)
    return reports.public_report(
        snap.game.id, words.said(title), view, lines, deadline, words.language
    )


NEW_GAME_TITLE = P("a new game")


def move_title(number: int, player: str) -> Phrase:
    """The title of the report of an adjudicated move, in every language."""
    return P("move %(number)s by %(player)s", number=number, player=player)


def reader_languages(snap: Snapshot) -> set[str]:
    """The languages the players read that are not the game's own (the committed one)."""
    return {p.language for p in snap.game.players} - {snap.game.language}


def translated_report_name(game_id: str, number: int, language: str) -> str:
    """The record (adjudicator/home/store.py) of the report of move `number` in another
    language than the game's."""
    return f"{private_folder(game_id)}/reports/{number:04d}.{language}.md"


def translated_report_path(home: Path, game_id: str, number: int, language: str) -> Path:
    """Where the embedded mode keeps `translated_report_name`."""
    return home / translated_report_name(game_id, number, language)


def private_section_name(game_id: str, number: int, player: str) -> str:
    """The record of `player`'s private section after move `number`."""
    return f"{private_folder(game_id)}/{number:04d}-{player}.md"


def write_translated_reports(
    home: Path,
    snap: Snapshot,
    number: int,
    title: Said,
    state: engine.State,
    happened: Sequence[Said],
    when: datetime,
    *,
    restarts: bool = True,
) -> None:
    """The public report in each language a player reads besides the game's, kept in the
    service's data folder for their mail (the repository holds the game's language)."""
    for language in sorted(reader_languages(snap)):
        text = report_for(
            snap, number, title, state, happened, when, restarts=restarts, language=language
        )
        name = translated_report_name(snap.game.id, number, language)
        store_for(home).write(name, text.encode("utf-8"))


def _zone(snap: Snapshot) -> ZoneInfo:
    return zone(snap.game.deadlines.timezone)


def enforced_deadline(snap: Snapshot, when: datetime, *, restarts: bool = True) -> datetime:
    """The deadline the scheduler will enforce after a commit made at `when` on `snap`
    (schedule/clock.py `waiting`), pauses included, so that a report written during a
    pause gives the same time as the reminders. Later pauses still move it."""
    started = when
    if not restarts and snap.commit is not None:
        started = clock_started(snap.repo, snap.commit)
    return clock(started, snap.game.deadlines, _pauses(snap)).deadline


def _pauses(snap: Snapshot) -> tuple[Pause, ...]:
    if snap.commit is None:
        return ()
    try:
        return parse_deadlines_file(snap.repo.read(DEADLINES_FILE, snap.commit)).pause
    except (DeadlineError, GameError):
        return ()  # a bad file stops the scheduler too, which logs why (docs/scheduler.md)


def write_private_sections(
    home: Path,
    snap: Snapshot,
    number: int,
    state: engine.State,
    notes: Mapping[str, Phrase] | None = None,
) -> None:
    """Each player's own section, kept in the service's data folder `home` (never in the
    repository); `notes` are said to one player each (by name, lower case)."""
    records = store_for(home)
    upcoming = max(number + 1, snap.next_number)  # pushed files may have taken numbers
    for entry in snap.game.players:
        name = entry.name
        view = engine.view(state, name)
        asked = engine.follow_ups(state, name) if view["options"] else []
        described = choices(state, state.seat(name)) if view["options"] else []
        section = reports.private_section(
            view,
            upcoming,
            entry.plays_by,
            asked,
            language=entry.language,
            notes=_notes(state, name, (notes or {}).get(name.lower())),
            choices=described,
        )
        records.write(private_section_name(snap.game.id, number, name), section.encode("utf-8"))


def _notes(state: engine.State, player: str, note: Phrase | None) -> list[Phrase]:
    """What a player's own section says besides their view: `note`, and the standing
    policy that would spare them a round trip now (games/hints.py)."""
    return [*([] if note is None else [note]), *policy_hints(state, state.seat(player))]


INBOUND_TRAILER = "Pamir-Inbound"


def trailers(number: int, state_text: str, *, inbound: str | None = None) -> str:
    """The trailers of an adjudicator commit. `inbound` names the email the move came in
    (a hash of its Message-ID): a crash between the commit and the answer then still
    finds, from the commit alone, which message was accepted (docs/email.md)."""
    lines = f"\n\nPamir-Move: {number}\nPamir-State: {sha256_text(state_text)}\n"
    if inbound is not None:
        lines += f"{INBOUND_TRAILER}: {inbound}\n"
    return lines


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
