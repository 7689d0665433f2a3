"""The report mails of each adjudication, one per player, queued together (`notify`); and
the same mails composed ahead (`prepare`) while the forge takes the push of their
commits, so that queuing them then costs nothing more.

Each mail is keyed by its commit and player (`message_key`): an adjudication notified
twice is queued once. A player who chose a daily digest (adjudicator/mail/delivery.py)
has the report held for it instead.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from adjudicator.games.gamefile import PlayerEntry
from adjudicator.games.outputs import (
    Adjudication,
)
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import REPORTS_DIR, game_at
from adjudicator.home.settings import Settings
from adjudicator.home.translations import SOURCE, words_for
from adjudicator.mail.compose.messages import mail_html, make_message_id, message_key
from adjudicator.mail.compose.reports import (
    Illustrations,
    is_over,
    recorded_view,
    report_in,
    report_message,
    report_subject,
    state_document,
    waiting_for,
)
from adjudicator.mail.cuts import cut_notes
from adjudicator.mail.delivery import (
    held_for_turn,
    hold,
    hold_for_turn,
    mailed_at_once,
    release_turn,
)
from adjudicator.mail.outbox import deliver, queue_many, queued
from adjudicator.mail.pictures import Rasterize, cairo_png
from adjudicator.mail.preferences import notify_preference
from adjudicator.mail.threads import locked_threads, read_threads
from engine.view_types import PublicView


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
    earlier: tuple[tuple[int, str], ...]  # the reports held for this mail (`per-turn`)
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
        self.document = state_document(repo, result.commit)
        view = recorded_view(self.document)
        self.waiting, self.over = waiting_for(view), is_over(view)
        self.ends_turn = _ends_turn(repo, result, view)
        # A later move is adjudicated already (a continuation, the stand-in played at
        # once): its mail asks whoever decides then, and takes this report along.
        head = repo.head()
        later = state_document(repo, head) if head and head != result.commit else {}
        self.superseded = int(later.get("move", result.number)) > result.number
        self.repo = repo
        report = cut_notes(result.report, result.number, words_for(self.game.language))
        self.report_html = mail_html(report.rstrip("\n"))
        self.illustrations = Illustrations(settings, repo, result, view, rasterize)

    def key(self, player: str) -> str:
        return message_key(self.game.id, self.result.number, player, "report", self.result.commit)

    def plan(self, entry: PlayerEntry, thread: dict[str, str]) -> _ReportMail:
        """The mail of `entry`, the next in the player's `thread`, with the reports held
        for it."""
        player, result = entry.name.lower(), self.result
        earlier = held_for_turn(self.settings, self.game.id, player, result.number)
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
            tuple(earlier),
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
            earlier=[self._earlier(number, commit, mail.player) for number, commit in mail.earlier],
            report_html=self.report_html if mail.shared_report else None,
            illustrations=self.illustrations,
            thread_root=mail.thread_root,
            in_reply_to=mail.in_reply_to,
            number=mail.number,
            message_id=mail.message_id,
            to=mail.to,
        )

    def _earlier(self, number: int, commit: str, player: str) -> str:
        """An earlier report of the turn, as the player reads it (their language)."""
        report = self.repo.read(f"{REPORTS_DIR}/{number:04d}.md", commit) or ""
        language = self.game.player(player).language
        text = report_in(self.settings, self.game, Adjudication(number, commit, report), language)
        return cut_notes(text, number, words_for(language)).rstrip("\n")


def _ends_turn(repo: GameRepo, result: Adjudication, view: PublicView | None) -> bool:
    """Whether the adjudication ended a turn: the turn it leaves the game in is not the
    one before it (or the game is over, or it is the game's first report)."""
    parents = repo.parents(result.commit)
    if result.number == 0 or not parents or view is None or is_over(view):
        return True
    before = recorded_view(state_document(repo, parents[0]))
    return before is None or before.get("turn") != view.get("turn")


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
        with locked_threads(settings, reports.game.id) as threads:
            batch: list[tuple[EmailMessage | bytes, str]] = []
            slots: list[int] = []  # where each of the batch goes among the files returned
            released: list[str] = []  # the players whose held reports went in the batch
            for entry in reports.game.players:
                key = entry.name.lower()
                name = reports.key(key)
                done = queued(settings, name)
                if done is not None:
                    written.append(done)
                    continue
                if not _mailed_now(settings, repo, reports, key):
                    continue
                mail = reports.plan(entry, threads.get(key, {}))
                message = _PREPARED.take(mail, settings, rasterize) or reports.message(mail)
                slots.append(len(written) + len(batch))
                batch.append((message, name))
                if mail.earlier:
                    released.append(key)
                threads[key] = {"root": mail.thread_root, "last": mail.message_id}
            # Queued together, before the threads are saved (a crash before leaves them as
            # they were, so the messages are made again the same).
            for slot, path in zip(slots, queue_many(settings, batch), strict=True):
                written.insert(slot, path)
            for key in released:  # taken along: a crash before this sends them again
                release_turn(settings, reports.game.id, key, result.number)
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
            threads = read_threads(settings, reports.game.id)
        for entry in reports.game.players:
            key = entry.name.lower()
            if queued(settings, reports.key(key)) is not None:
                continue
            if not _mailed_at_once(settings, reports, key):
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


def _mailed_at_once(settings: Settings, reports: _Reports, player: str) -> bool:
    """Whether the player chose to get this report now (adjudicator.mail.delivery) rather
    than with the end of the turn or in their daily digest. A new game's first report
    always goes."""
    document, result = reports.document, reports.result
    view = recorded_view(document)
    last: dict[str, Any] = document.get("last") or {}
    preference = notify_preference(settings, reports.game.id, player)
    decides = player in waiting_for(view)
    if preference == "per-turn" and reports.superseded:
        decides = False  # they decide by the later report, which this one goes with
    return result.number == 0 or mailed_at_once(
        preference,
        decides=decides,
        over=is_over(view),
        rollback="rollback" in last,
        own=str(last.get("player", "")).lower() == player,
        refused=bool(last.get("refused")),
        ends_turn=reports.ends_turn,
    )


def _mailed_now(settings: Settings, repo: GameRepo, reports: _Reports, player: str) -> bool:
    """Whether the player gets this report now (`_mailed_at_once`); when not, it is held
    for the mail that ends the turn (`per-turn`) or for their daily digest."""
    if _mailed_at_once(settings, reports, player):
        return True
    game_id, result = reports.game.id, reports.result
    if notify_preference(settings, game_id, player) == "per-turn":
        hold_for_turn(settings, game_id, player, result.number, result.commit)
        return False
    made = repo.repo.commit(result.commit).committed_datetime.isoformat()
    hold(settings, game_id, player, result.number, result.commit, made)
    return False
