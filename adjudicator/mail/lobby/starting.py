"""The lobby's games made, and its pending games kept moving: `finish` makes a game whose
invitees have all accepted, exactly as `pamir new` does (games/newgame.py: commit-reveal
secret, signed first commit, all or nothing) and queues its first turn mail to each
player (report_mails.notify); `run_pending`, from the scheduler and `pamir scheduler
--once`, expires the invitations left unanswered and finishes what a crash left.

A crash cannot make a game twice: the record says `creating` before the game is made, a
game whose repository exists is never made again, and the first mails are keyed by their
commit and player, so mailing them again sends nothing new. A secret with no repository
is what a process killed inside `create_game` leaves (its undoing never ran): it is the
lobby's own, since the record holds the name, and is removed before the game is made.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.registry import game_path
from adjudicator.games.repo import GameRepo
from adjudicator.games.seeds import has_secret, secret_name
from adjudicator.games.snapshot import snapshot
from adjudicator.home import store
from adjudicator.home.faults import fault
from adjudicator.home.paths import private_folder
from adjudicator.home.settings import Settings
from adjudicator.home.translations import words_for
from adjudicator.mail import report_mails
from adjudicator.mail.lobby import answers, records
from adjudicator.mail.lobby.records import Pending

log = logging.getLogger(__name__)


def finish(settings: Settings, pending: Pending, now: datetime) -> Pending:
    """Make the game of a ready record (the lobby's lock is held) and mail its first turn."""
    if pending.status == "pending":
        pending.status = "creating"
        records.write(settings, pending)
    repo = _made(settings, pending) or _make(settings, pending)
    fault("lobby-made")
    try:
        head = repo.head()
        assert head is not None
        report = repo.read("reports/0000.md", head) or ""
        report_mails.notify(settings, repo, [Adjudication(0, head, report)], deliver_now=False)
    finally:
        repo.repo.close()
    pending.status = "created"
    pending.note(pending.creator.address, "game created", now)
    records.write(settings, pending)
    log.info("lobby: game %s created for %s", pending.name, players_of(pending))
    return pending


def players_of(pending: Pending) -> list[tuple[str, str]]:
    return [(s.name or "", s.address) for s in pending.players()]


def _made(settings: Settings, pending: Pending) -> GameRepo | None:
    """The game's repository if an earlier pass made it."""
    path = game_path(settings, pending.name)
    if path is None or not has_secret(settings.home, pending.name):
        return None
    repo = GameRepo(path)
    if repo.head() is None:
        repo.repo.close()
        return None
    # The host may have made a game of that name meanwhile (`pamir new` knows nothing of
    # the lobby): that one is not ours to mail about, nor to take for ours.
    emails = sorted(p.email.lower() for p in snapshot(repo).game.players)
    if emails != sorted(address for _, address in players_of(pending)):
        repo.repo.close()
        raise FileExistsError(f"a game {pending.name!r} that is not the lobby's exists")
    return repo


def _make(settings: Settings, pending: Pending) -> GameRepo:
    records_ = store.of(settings)
    if has_secret(settings.home, pending.name):  # left by a process killed while making it
        records_.delete(secret_name(pending.name))
        records_.delete_folder(private_folder(pending.name))
    return create_game(
        settings.games_dir / pending.name,
        players_of(pending),
        home=settings.home,
        game_id=pending.name,
        turn_hours=pending.turn_hours,
        wakhan=pending.wakhan,
        languages={s.name or "": s.language for s in pending.players()},
    )


def expire(settings: Settings, pending: Pending, now: datetime) -> bool:
    """Mark the invitations older than `lobby_expiry_hours` expired and tell the creator;
    whether any was."""
    limit = timedelta(hours=settings.lobby_expiry_hours)
    late = [
        s
        for s in pending.invited
        if s.status == "invited" and records.parse_time(s.since) + limit <= now
    ]
    for seat in late:
        seat.status, seat.since = "expired", records.stamp(now)
        pending.note(seat.address, "invitation expired", now)
    if late:
        records.write(settings, pending)
    for seat in late:
        words = words_for(pending.creator.language)
        said = words(
            "%(address)s did not answer the invitation in %(hours)s hours.",
            address=seat.address,
            hours=settings.lobby_expiry_hours,
        )
        answers.tell_creator(settings, pending, said, ref=f"expired-{seat.id}")
    return bool(late)


def run_pending(settings: Settings, now: datetime | None = None) -> list[str]:
    """One pass over the live pending games: invitations queued (again: keyed, so sent
    once), expired, and the ready games made. Returns the names of the games made."""
    if not any(records.is_live(p) for p in records.every(settings)):
        return []  # the lock and its folder are not needed
    moment = now or datetime.now(UTC)
    made: list[str] = []
    with records.lobby_lock(settings):
        for pending in records.every(settings):
            if not records.is_live(pending):
                continue
            try:
                for seat in pending.invited:
                    if seat.status == "invited":
                        answers.invite(settings, pending, seat)
                expire(settings, pending, moment)
                if pending.is_ready():
                    made.append(finish(settings, pending, moment).name)
            except Exception as error:  # logged; the other games go on
                log.warning("lobby: game %s: %s", pending.name, error)
    return made
