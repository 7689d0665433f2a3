"""The daily digest: once a day, at `digest_hour` on the player's own clock, the reports
held back for them (adjudicator.mail.delivery) in one message.

The day's digest of a player covers the reports held before that day's digest hour in
their time zone (`settings timezone`, else the game's `[deadlines] timezone`); one held
later waits for the next day's. No report held, no message. It carries only what the
player may see: what happened in each public report, with a link to its page, and their
own private section as it stands.

Exactly once a day, across restarts and crashes: sending is three durable steps under
the game's digest record (`PAMIR_HOME/mail/digests/GAME.json`):
1. the plan (the day and the reports it covers) is written;
2. the message is queued under a key made of the player and the day
   (`message_key`), so queuing it again is a no-op;
3. the covered reports leave the record, and the day is recorded as done.
A crash after 1 or 2 leaves the plan, and the next run carries it out from step 2.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from adjudicator.games.deadlines import zone
from adjudicator.games.outputs import Adjudication
from adjudicator.games.registry import open_game
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import REPORTS_DIR, snapshot
from adjudicator.home.faults import fault
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words, words_for
from adjudicator.mail import notices
from adjudicator.mail.compose.reports import (
    how_to_reply,
    is_over,
    private_section,
    public_view,
    report_in,
    waiting_for,
    web_pages,
)
from adjudicator.mail.delivery import digest_record, games_with_digests
from adjudicator.mail.links import page_links
from adjudicator.mail.preferences import notify_preference, player_timezone

log = logging.getLogger(__name__)


def due_day(now: datetime, tz: ZoneInfo, hour: int) -> date:
    """The day whose digest is the latest one due at `now` (the local day, or the day
    before when the digest hour has not come yet)."""
    local = now.astimezone(tz)
    return local.date() if local.hour >= hour else local.date() - timedelta(days=1)


def digest_time(day: date, tz: ZoneInfo, hour: int) -> datetime:
    """When `day`'s digest is due, in UTC."""
    return datetime(day.year, day.month, day.day, hour, tzinfo=tz).astimezone(UTC)


def send_due(settings: Settings, now: datetime | None = None) -> list[Path]:
    """Queue every digest due at `now` (default: the real time); return the files."""
    now = now or datetime.now(UTC)
    written: list[Path] = []
    for game_id in games_with_digests(settings):
        try:
            repo = open_game(settings, game_id)
        except Exception as error:  # a game removed or unreadable: the others go on
            log.warning("game %s: no digests: %s", game_id, error)
            continue
        try:
            written += _send_game(settings, repo, game_id, now)
        except Exception:
            log.exception("game %s: the digests failed", game_id)
        finally:
            repo.repo.close()
    return written


def _send_game(settings: Settings, repo: GameRepo, game_id: str, now: datetime) -> list[Path]:
    game_zone = snapshot(repo).game.deadlines.timezone
    with digest_record(settings, game_id) as record:  # step 1: the plans
        for player, entry in record.items():
            if entry.get("plan") is None:
                tz = zone(player_timezone(settings, game_id, player) or game_zone)
                if (plan := _plan(entry, now, tz, settings.digest_hour)) is not None:
                    entry["plan"] = plan
        plans = {p: dict(e["plan"]) for p, e in record.items() if e.get("plan")}
    written = [_queue(settings, repo, game_id, p, plan) for p, plan in plans.items()]
    fault("digest-queued")
    with digest_record(settings, game_id) as record:  # step 3: done
        for player, plan in plans.items():
            entry = record[player]
            covered = {item[1] for item in plan["held"]}
            entry["held"] = [item for item in entry.get("held", []) if item[1] not in covered]
            entry["last_day"] = plan["day"]
            entry.pop("plan", None)
    return written


def _plan(entry: dict[str, Any], now: datetime, tz: ZoneInfo, hour: int) -> dict[str, Any] | None:
    """The digest due for one player at `now`, or None (done today, or nothing held)."""
    day = due_day(now, tz, hour)
    if str(entry.get("last_day", "")) >= day.isoformat():
        return None
    cutoff = digest_time(day, tz, hour)
    held = [item for item in entry.get("held", []) if datetime.fromisoformat(item[2]) < cutoff]
    return {"day": day.isoformat(), "held": held} if held else None


def _queue(
    settings: Settings, repo: GameRepo, game_id: str, player: str, plan: dict[str, Any]
) -> Path:
    held = sorted(plan["held"], key=lambda item: int(item[0]))
    numbers = [int(item[0]) for item in held]
    words = words_for(snapshot(repo).game.player(player).language)
    span = (
        words("move %(number)s", number=numbers[0])
        if len(numbers) == 1
        else words("moves %(first)s to %(last)s", first=numbers[0], last=numbers[-1])
    )
    text = digest_text(settings, repo, game_id, player, held, span)
    (path,) = notices.notify_players(
        settings,
        repo,
        [player],
        f"[{game_id}] " + words("Your digest of %(day)s: %(span)s", day=plan["day"], span=span),
        text,
        kind="digest",
        ref=plan["day"].replace("-", ""),
        number=0,
    )
    return path


def digest_text(
    settings: Settings, repo: GameRepo, game_id: str, player: str, held: list[Any], span: str
) -> str:
    """The digest's Markdown, in the player's language: each held report's title and what
    happened, with its page; then the player's own section, their pages and how to reply,
    as the game stands."""
    choice = notify_preference(settings, game_id, player)
    words = words_for(snapshot(repo).game.player(player).language)
    parts = [
        f"# {game_id}: " + words("your digest, %(span)s", span=span),
        words(
            "You get this game's mail as `notify %(choice)s`: these reports were kept for this "
            "digest rather than mailed one by one. Whatever asks you to decide is mailed at "
            "once.",
            choice=choice,
        ),
    ]
    for number, commit, _ in held:
        parts.append(_summary(settings, repo, game_id, player, int(number), str(commit), words))
    snap = snapshot(repo)
    section = private_section(settings, game_id, snap.adjudicated, player)
    if section:
        parts.append(section.rstrip("\n"))
    parts.append(web_pages(settings, game_id, player, snap.adjudicated, words))
    view = public_view(repo, snap.commit) if snap.commit else None
    decides = player in waiting_for(view)
    over = is_over(view)
    plays_by = snap.game.player(player).plays_by
    reply = how_to_reply(settings, game_id, player, decides, over, plays_by, words)
    parts.append(reply.rstrip("\n"))
    return "\n\n".join(parts) + "\n"


def _summary(
    settings: Settings,
    repo: GameRepo,
    game_id: str,
    player: str,
    number: int,
    commit: str,
    words: Words,
) -> str:
    """One held report in short, in the player's language where the pipeline kept the
    report in it: its title, what happened, the link to its page."""
    committed = repo.read(f"{REPORTS_DIR}/{number:04d}.md", commit) or ""
    game = snapshot(repo, commit).game
    report = report_in(settings, game, Adjudication(number, commit, committed), words.language)
    lines = report.splitlines()
    title = lines[0].split(": ", 1)[-1] if lines else words("move %(number)s", number=number)
    happened: list[str] = []
    headings = [f"## {Words(language)('What happened')}" for language in (words.language, "en")]
    heading = next((h for h in headings if h in lines), None)
    if heading is not None:
        for line in lines[lines.index(heading) + 1 :]:
            if line.startswith("#"):
                break
            if line.strip():
                happened.append(line)
    link = page_links(settings, game_id, player, number).turn
    body = "\n".join(happened) or "- " + words("(nothing to tell)")
    whole = words("The whole report: %(link)s", link=link)
    return f"## {title[:1].upper()}{title[1:]}\n\n{body}\n\n{whole}"
