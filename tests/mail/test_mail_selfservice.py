"""Commands by mail: a player pauses the clock, resigns, sets their mail and lists their
games by replying with one command line. Through a real SMTP server, real Git and the
real inbound path (`handle_message`), as tests/mail/test_mail_in.py plays moves.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailserver import email_of, new_game, plain, reply_to
from test_mail_in import Table, mail_table, options, parsed

from adjudicator.games.gamefile import GAME_FILE, dump_game_file
from adjudicator.games.repo import ADJUDICATOR
from adjudicator.games.snapshot import REVEAL_FILE, snapshot
from adjudicator.games.verify import verify
from adjudicator.games.waiting import read_deadlines, waiting
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.preferences import notify_preference


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    with mail_table(tmp_path, monkeypatch) as made:
        yield made


def last_to(table: Table, player: str) -> EmailMessage:
    return [m for m in table.server.messages if str(m["X-Pamir-Player"]) == player][-1]


def answer_to(table: Table, raw: bytes) -> EmailMessage:
    """The service's answer to a player's message: in reply to it."""
    own = str(parsed(raw)["Message-ID"])
    (found,) = [m for m in table.server.messages if str(m["In-Reply-To"]) == own]
    return found


def test_pause_by_mail_commits_the_pause_and_moves_the_deadline(table: Table) -> None:
    before = waiting(table.repo)
    assert before is not None
    raw = reply_to(last_to(table, "bob"), "Pause 48h Holiday in the mountains\n")

    result = handle_message(table.settings, raw)

    assert (result.status, result.player) == ("accepted", "bob"), result.reason
    (pause,) = read_deadlines(table.repo).pause
    assert (pause.player, pause.hours, pause.reason) == ("bob", 48, "Holiday in the mountains")
    message = table.repo.repo.head.commit.message
    assert "Pamir-Pause: 48" in message and table.repo.repo.head.commit.author.name == "bob"
    after = waiting(table.repo)
    assert after is not None and after.clock.deadline == before.clock.deadline + timedelta(hours=48)
    answer = answer_to(table, raw)
    assert "clock paused" in plain(answer) and str(answer["To"]).endswith(f"<{email_of('bob')}>")
    notice = last_to(table, "alice")
    assert "The clock is paused" in str(notice["Subject"]) and "bob" in plain(notice)

    # The same message delivered again changes nothing and is not answered twice.
    count, head = len(table.server.messages), table.head()
    assert handle_message(table.settings, raw).status == "accepted"
    assert (len(table.server.messages), table.head()) == (count, head)


def test_a_pause_beyond_the_hosts_limit_for_mail_is_refused_by_mail(table: Table) -> None:
    first = reply_to(last_to(table, "alice"), "pause 72h wedding\n")
    assert handle_message(table.settings, first).status == "accepted"
    head = table.head()
    again = reply_to(last_to(table, "alice"), "pause 1h one more hour\n")

    result = handle_message(table.settings, again)

    assert result.status == "refused" and result.reason.startswith("mail-pause-limit")
    assert table.head() == head
    text = plain(answer_to(table, again))
    assert "pause refused" in text and "mail_pause_hours" in text and "0 are left" in text


def test_resigning_hands_the_seat_to_the_standin_and_every_player_is_told(table: Table) -> None:
    player, report = table.deciding()
    other = "bob" if player == "alice" else "alice"
    raw = reply_to(report, "RESIGN\n")

    result = handle_message(table.settings, raw)

    assert result.status == "accepted", result.reason
    game = snapshot(table.repo).game
    assert game.player(player).resigned and not game.player(other).resigned
    assert "resigned = true" in (table.repo.read(GAME_FILE) or "")
    # The resigned seat had to decide: the stand-in played it at once, and said so.
    move = table.repo.read(f"moves/0001-{player}.txt") or ""
    assert move.startswith(f"# note: {player} resigned: the stand-in plays for them")
    told = [m for m in table.server.messages if f"{player} resigns" in str(m["Subject"])]
    assert sorted(str(m["X-Pamir-Player"]) for m in told) == ["alice", "bob"]
    reports = [m for m in table.server.messages if str(m["X-Pamir-Move"]) == "1"]
    assert any(f"{player} resigned: the stand-in plays for them" in plain(m) for m in reports)
    assert "you have resigned" in plain(answer_to(table, raw))

    # The other player moves by mail; whenever the resigned seat must decide next, the
    # stand-in plays it straight away.
    following, next_report = table.deciding()
    assert following == other
    handle_message(table.settings, reply_to(next_report, options(next_report)[0] + "\n"))
    names = table.repo.names("moves")
    assert names[:2] == [f"0001-{player}.txt", f"0002-{other}.txt"]
    pending = waiting(table.repo)
    assert pending is not None and pending.players != (player,)
    again = reply_to(last_to(table, player), "resign\n")
    assert handle_message(table.settings, again).reason.startswith("resigned:")


def test_a_game_that_ends_on_resignation_ends_scored_as_it_stands(table: Table) -> None:
    """`on_resign = "end"`: the host's outcome, scored by the rulebook's end of game
    (Game End and Victory, p. 9) on the position as it stands; the resigned player cannot
    win. Every player is mailed the last report, and `pamir verify` replays the end."""
    snap = snapshot(table.repo)
    game = snap.game.model_copy(update={"on_resign": "end"})
    table.repo.commit(
        {GAME_FILE: dump_game_file(game).encode()}, "on_resign: end", parent=snap.commit
    )
    raw = reply_to(last_to(table, "alice"), "resign\n")

    result = handle_message(table.settings, raw)

    assert result.status == "accepted", result.reason
    head = table.repo.repo.head.commit
    assert head.author.name == ADJUDICATOR.name and "Pamir-Move: 1" in head.message
    move = table.repo.read("moves/0001-alice.txt") or ""
    assert move.splitlines()[-1] == "resign"
    state = json.loads(table.repo.read("state.json") or "{}")
    assert state["view"]["phase"] == "over" and state["view"]["winners"] == ["bob"]
    assert table.repo.read(REVEAL_FILE) is not None  # the end reveals the secret
    assert verify(table.repo, table.settings.home).ok
    over = [m for m in table.server.messages if "The game is over" in str(m["Subject"])]
    assert sorted(str(m["X-Pamir-Player"]) for m in over) == ["alice", "bob"]
    assert "alice resigned: the game ends as it stands" in plain(over[0])
    assert "the game ends" in plain(answer_to(table, raw))
    # Nothing more can be played, and the resignation is not taken twice.
    again = reply_to(last_to(table, "bob"), "resign\n")
    assert handle_message(table.settings, again).status == "refused"


def test_a_resign_line_in_a_players_own_move_is_no_action(table: Table) -> None:
    """Only the service writes the line that ends a game, for a player who resigned."""
    snap = snapshot(table.repo)
    game = snap.game.model_copy(update={"on_resign": "end"})
    table.repo.commit(
        {GAME_FILE: dump_game_file(game).encode()}, "on_resign: end", parent=snap.commit
    )
    _, report = table.deciding()
    head = table.head()
    raw = reply_to(report, options(report)[0] + "\nresign\n")

    result = handle_message(table.settings, raw)

    assert result.status == "refused" and "unknown-verb" in result.reason
    assert table.head() == head


def test_settings_notify_is_kept_outside_the_repository_and_confirmed(table: Table) -> None:
    head = table.head()
    assert notify_preference(table.settings, "g1", "bob") == "every"
    raw = reply_to(last_to(table, "bob"), "settings notify turns\n")

    assert handle_message(table.settings, raw).status == "accepted"

    assert notify_preference(table.settings, "g1", "bob") == "turns"
    assert notify_preference(table.settings, "g1", "alice") == "every"
    assert table.head() == head
    assert "notify turns" in plain(answer_to(table, raw))
    wrong = reply_to(last_to(table, "bob"), "settings notify never\n")
    assert handle_message(table.settings, wrong).status == "refused"
    assert notify_preference(table.settings, "g1", "bob") == "turns"
    # `all`, the first name of `every`, still says it.
    again = reply_to(last_to(table, "bob"), "settings notify all\n")
    assert handle_message(table.settings, again).status == "accepted"
    assert notify_preference(table.settings, "g1", "bob") == "every"


def test_my_games_lists_the_games_of_the_address(table: Table) -> None:
    second, _ = new_game(table.settings, ("carol", "alice"), game_id="g2")
    third, _ = new_game(table.settings, ("carol", "dave"), game_id="g3")
    for repo in (second, third):
        repo.repo.close()
    raw = reply_to(last_to(table, "alice"), "my games\n")

    assert handle_message(table.settings, raw).status == "accepted"

    text = plain(answer_to(table, raw))
    assert "| g1 |" in text and "| g2 |" in text and "| g3 |" not in text
    assert "alice, your decision" in text or "alice, waiting" in text


def test_anything_else_is_still_a_move(table: Table) -> None:
    _, report = table.deciding()
    raw = reply_to(report, "pause\n")  # not a command: read as a move, and refused

    result = handle_message(table.settings, raw)

    assert result.status == "refused" and read_deadlines(table.repo).pause == ()
