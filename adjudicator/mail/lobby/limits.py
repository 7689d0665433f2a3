"""What the host allows the lobby (docs/configuration.md#the-lobby), and what the rules
allow a game: who may open one (`lobby`, `lobby_allow`), how many a day
(`lobby_per_day`), how many unanswered invitations at once (`lobby_max_pending`), how many
games an address may be in (`lobby_games_per_player`), and the players a game may have
(two to five, the creator counted; one or two beside Wakhan). Each check raises
`Unreadable` with what is wrong.
"""

from __future__ import annotations

from datetime import datetime

from adjudicator.games.registry import list_games
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.games.waiting import waiting
from adjudicator.home.settings import Settings
from adjudicator.mail.lobby import records
from adjudicator.mail.lobby.parsing import Invite, Unreadable
from adjudicator.mail.lobby.records import Pending
from adjudicator.mail.lobby.seats import service_address
from engine.rules.setup import MAX_HUMANS_WITH_WAKHAN, MAX_PLAYERS


def is_allowed(settings: Settings, address: str) -> bool:
    """Whether `lobby_allow` names the address or its domain."""
    allowed = {a.strip().lower() for a in settings.lobby_allow.split(",") if a.strip()}
    return address.lower() in allowed or address.rpartition("@")[2].lower() in allowed


def check_creator(settings: Settings, address: str, now: datetime) -> None:
    """The sender may open one more game today, and be in one more."""
    since = records.day_before(now)
    if records.count_created_since(settings, address, since) >= settings.lobby_per_day:
        raise Unreadable(
            1,
            "you have opened as many games today as this service allows (%(most)s)",
            most=str(settings.lobby_per_day),
        )
    check_games(settings, address)


def check_games(settings: Settings, address: str) -> None:
    """The address is in fewer games than `lobby_games_per_player` (the service's games
    not over, and the lobby's pending ones)."""
    count = records.count_live_games_of(settings, address) + count_playing(settings, address)
    if count >= settings.lobby_games_per_player:
        raise Unreadable(
            1,
            "%(address)s is in as many games as this service allows (%(most)s)",
            address=address,
            most=str(settings.lobby_games_per_player),
        )


def count_playing(settings: Settings, address: str) -> int:
    """The service's games, not over, that `address` plays in."""
    count = 0
    for _, repo in list_games(settings):
        try:
            snap = snapshot(repo)
            plays = any(p.email.lower() == address for p in snap.game.players)
            count += plays and waiting(repo, snap.commit) is not None
        except GameError:
            continue
        finally:
            repo.repo.close()
    return count


def check_open(settings: Settings, adding: int, line: int) -> None:
    """The unanswered invitations stay within `lobby_max_pending`."""
    if records.count_open_invitations(settings) + adding > settings.lobby_max_pending:
        raise Unreadable(line, "this service has as many open invitations as it allows: try later")


def check_invite(settings: Settings, pending: Pending, invite: Invite, line: int) -> None:
    """The invitation is to somebody new to the game, under a name nobody has in it."""
    if invite.address in (pending.creator.address, service_address(settings)):
        raise Unreadable(line, "you play in your game already: invite the others")
    here = [s for s in pending.seats if s.status not in records.GONE]
    if any(s.address == invite.address for s in here):
        raise Unreadable(line, "this address is invited already")
    if invite.name and any(s.name and s.name.lower() == invite.name.lower() for s in here):
        raise Unreadable(
            line, "another player of this game has that name: `invite ADDRESS as NAME`"
        )


def most_players(pending: Pending) -> int:
    return MAX_HUMANS_WITH_WAKHAN if pending.wakhan else MAX_PLAYERS


def check_count(pending: Pending, line: int) -> None:
    """At most five players, the creator counted (two beside Wakhan)."""
    most = most_players(pending)
    if len([s for s in pending.seats if s.status not in records.GONE]) > most:
        raise Unreadable(
            line, "a game has at most %(most)s players, you among them", most=str(most)
        )


def check_start(pending: Pending) -> None:
    """`start`: nobody left to answer, and enough players to play."""
    if any(s.status in records.OPEN for s in pending.invited):
        raise Unreadable(1, "some invitations are not answered yet: wait, or `cancel`")
    least = 1 if pending.wakhan else 2
    if len(pending.players()) < least:
        raise Unreadable(1, "not enough players have accepted: `invite ADDRESS`, or `cancel`")
