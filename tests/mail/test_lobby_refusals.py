"""The lobby's bad input, limits and crash safety (docs/lobby.md#bad-input): each mistake
gets its clear answer and changes nothing else; a crash between the last `accept` and
the game, or inside its making, is finished by the next pass, with one game and one
first mail each. Real mail through a real SMTP server, real `pamir` processes.
"""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

import pytest
from gitgame import PAMIR, SECRET
from mailserver import MailServer, mail_server, plain, settings_for

from adjudicator.games.newgame import create_game
from adjudicator.games.registry import list_games
from adjudicator.home.faults import FAULT_EXIT, FAULT_VARIABLE
from adjudicator.home.settings import Settings, SettingsError, load_settings
from adjudicator.mail import outbox
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.lobby import records, starting
from adjudicator.mail.outcomes import InboundResult

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
SERVICE = "pamir@localhost"
AUTHSERV = "mx.example.org"


def lobby_settings(home: Path, server: MailServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"lobby": "open", "reply_local": "pamir", "reply_domain": "localhost"}
    return settings_for(home, server.port, **(values | overrides))


def message(sender: str, to: str, body: str, *headers: tuple[str, str]) -> bytes:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, to, "lobby"
    mail["Date"] = formatdate()
    mail["Message-ID"] = make_msgid(domain="example.org")
    for name, value in headers:
        mail[name] = value
    mail.set_content(body)
    return mail.as_bytes()


def opened(settings: Settings, body: str, sender: str = ALICE) -> InboundResult:
    return handle_message(settings, message(sender, SERVICE, body))


def seat_of(server: MailServer, address: str) -> str:
    """The Reply-To of the newest lobby mail to `address`: its seat's address."""
    found = [
        m for m in server.messages if address in str(m["To"]) and "lobby-" in str(m["Reply-To"])
    ]
    return str(found[-1]["Reply-To"])


def answer_to(server: MailServer, address: str) -> str:
    return plain([m for m in server.messages if address in str(m["To"])][-1])


HERAT = f"new game herat\ninvite {BOB}\ninvite {CAROL} as carol\n"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("new game herat\ninvite bob@example.org\nplay well\n", "line 3: this line is not one"),
        ("new game herat\ninvite bob\n", "line 2: this is not an email address"),
        ("new game herat\ninvite <b>@example.org\n", "line 2: this is not an email address"),
        (
            f"new game herat\ninvite {BOB}\ninvite {BOB.upper()}\n",
            "line 3: this address is invited",
        ),
        (f"new game herat\ninvite {BOB} as bo\ninvite {CAROL} as BO\n", "line 3: another player"),
        (f"new game herat\ninvite {BOB} as alice\n", "line 2: another player"),
        (f"new game herat\ninvite {ALICE}\n", "line 2: you play in your game already"),
        (f"new game herat\ninvite {SERVICE}\n", "line 2: you play in your game already"),
        (
            "new game herat\n" + "".join(f"invite p{n}@example.org\n" for n in range(5)),
            "line 6: a game has at most 5 players",
        ),
        (
            f"new game herat\nwakhan\ninvite {BOB}\ninvite {CAROL}\n",
            "line 4: a game has at most 2 players",
        ),
        (f"new game herat\ninvite {BOB} as <script>x</script>\n", "line 2: a player's name is"),
        (f"new game herat\ninvite {BOB} as {'b' * 40}\n", "line 2: a player's name is"),
        (f"new game herat\ninvite {BOB} as pass\n", "line 2: a player's name is"),
        (f"new game herat\ninvite {BOB} as b\x07ob\n", "line 2: a player's name is"),
        (f"new game <b>herat</b>\ninvite {BOB}\n", "line 1: a game's name is"),
        (f"new game {'h' * 65}\ninvite {BOB}\n", "line 1: a game's name is"),
        ("new game herat\n", "line 1: invite at least one player"),
        (f"new game herat\ninvite {BOB}\ndeadline 9999h\n", "line 3: a deadline is 1 to 720"),
        (f"new game herat\ninvite {BOB}\nlanguage xx\n", "line 3: the languages are en, pl"),
    ],
)
def test_a_bad_new_game_mail_is_answered_and_makes_nothing(
    home: Path, body: str, said: str
) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        result = opened(settings, body)
        sent = server.messages
    assert result.status == "refused", result
    assert [str(m["To"]) for m in sent] == [ALICE]  # the answer, no invitation
    text = plain(sent[0])
    assert f"Nothing was changed: {said}" in text, text
    assert "<script>" not in text and "<b>" not in text and "\x07" not in text
    assert records.every(settings) == []
    assert not settings.games_dir.exists() or list(settings.games_dir.iterdir()) == []


def test_a_name_taken_by_a_game_or_a_pending_game_is_refused(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        create_game(
            settings.games_dir / "kabul",
            [("x", "x@e.org"), ("y", "y@e.org")],
            home=home,
            secret=SECRET,
        )
        taken = opened(settings, f"new game kabul\ninvite {BOB}\n")
        assert "line 1: this service has a game of that name already" in answer_to(server, ALICE)
        assert opened(settings, HERAT).status == "accepted"
        again = opened(settings, f"new game herat\ninvite {ALICE}\n", sender="dave@example.org")
        assert "this service has a game of that name already" in answer_to(server, "dave@")
    assert (taken.status, again.status) == ("refused", "refused")
    assert [p.creator.address for p in records.every(settings)] == [ALICE]


def test_with_the_lobby_off_nothing_is_made_and_one_line_answers(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server, lobby="off")
        result = opened(settings, HERAT)
        lines = [line for line in plain(server.messages[0]).splitlines() if line]
    assert result.status == "refused" and len(server.messages) == 1
    assert lines == ["Nothing was made: this service does not take new games by mail."]
    assert records.every(settings) == []


def test_invite_mode_takes_the_allowed_senders_only(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(
            home, server, lobby="invite", lobby_allow="club.example, alice@example.org"
        )
        stranger = opened(settings, HERAT.replace("herat", "kabul"), sender="eve@example.org")
        member = opened(settings, f"new game kabul\ninvite {BOB}\n", sender="zoe@club.example")
        allowed = opened(settings, HERAT)
        assert "from the addresses its host allows only" in answer_to(server, "eve@")
    assert (stranger.status, member.status, allowed.status) == ("refused", "accepted", "accepted")


@pytest.mark.parametrize(
    ("limit", "said"),
    [
        ({"lobby_per_day": 1}, "as many games today as this service allows (1)"),
        (
            {"lobby_games_per_player": 1},
            "alice@example.org is in as many games as this service allows (1)",
        ),
        ({"lobby_max_pending": 3}, "as many open invitations as it allows"),
    ],
)
def test_the_host_s_limits_hold(home: Path, limit: dict[str, int], said: str) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server, **limit)
        first = opened(settings, HERAT)
        second = opened(settings, f"new game kabul\ninvite {BOB}\ninvite {CAROL}\n")
        text = answer_to(server, ALICE)
    assert (first.status, second.status) == ("accepted", "refused")
    assert said in text, text
    assert [p.name for p in records.every(settings)] == ["herat"]


def test_an_unauthenticated_lobby_mail_is_ignored_unanswered(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server, mail_auth="authres", mail_authserv_id=AUTHSERV)
        forged = opened(settings, HERAT)
        assert server.messages == []
        proven = handle_message(
            settings,
            message(
                ALICE,
                SERVICE,
                HERAT,
                ("Authentication-Results", f"{AUTHSERV}; dmarc=pass header.from=example.org"),
            ),
        )
    assert forged.status == "ignored" and "not authenticated" in forged.reason
    assert proven.status == "accepted"


def test_only_the_invited_address_with_its_token_is_heard(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        opened(settings, HERAT)
        seat = seat_of(server, BOB)
        forged = handle_message(settings, message("mallory@example.org", seat, "accept\n"))
        assert "only the invited address can answer" in answer_to(server, "mallory@")
        local, _, domain = seat.partition("@")
        other = "1" if local.endswith("0") else "0"  # the token with its last digit changed
        wrong = handle_message(settings, message(BOB, f"{local[:-1]}{other}@{domain}", "accept\n"))
        elsewhere = handle_message(
            settings, message(CAROL, seat, "accept\n")
        )  # carol is invited too
        sent = len(server.messages)
    assert (forged.status, wrong.status, elsewhere.status) == ("refused", "ignored", "refused")
    assert sent == 5  # two invitations, alice's answer, mallory's and carol's answers
    pending = records.read(settings, "herat")
    assert pending is not None and [s.status for s in pending.invited] == ["invited", "invited"]


def test_a_replayed_accept_changes_nothing_and_a_second_one_is_told(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        opened(settings, HERAT)
        accept = message(BOB, seat_of(server, BOB), "accept\n")
        assert handle_message(settings, accept).status == "accepted"
        count = len(server.messages)
        again = handle_message(settings, accept)
        assert len(server.messages) == count  # the same message: its answer is not sent again
        another = handle_message(settings, message(BOB, seat_of(server, BOB), "accept\n"))
        assert "this invitation is no longer open" in answer_to(server, BOB)
    assert (again.status, another.status) == ("accepted", "refused"), (again, another)
    pending = records.read(settings, "herat")
    assert pending is not None and [e.did for e in pending.log].count("accepted as bob") == 1


def test_a_decline_then_start_makes_the_game_with_those_who_accepted(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        opened(settings, HERAT + "as ali\nlanguage pl\ndeadline 72h\n")
        handle_message(
            settings, message(BOB, seat_of(server, BOB), "accept as bobby\nlanguage pl\n")
        )
        handle_message(settings, message(CAROL, seat_of(server, CAROL), "decline\n"))
        told = answer_to(server, ALICE)
        assert "carol@example.org odrzucił zaproszenie." in told, told  # alice's language
        creator_seat = seat_of(server, ALICE)
        start = handle_message(settings, message(ALICE, creator_seat, "start\n"))
        late = handle_message(settings, message(CAROL, seat_of(server, CAROL), "accept\n"))
        assert "is made already" in answer_to(server, CAROL)
    assert (start.status, late.status) == ("accepted", "refused")
    games = list_games(settings)
    for _, repo in games:
        repo.repo.close()
    assert [game_id for game_id, _ in games] == ["herat"]
    pending = records.read(settings, "herat")
    assert pending is not None and pending.status == "created"
    assert [(s.name, s.language) for s in pending.players()] == [("ali", "pl"), ("bobby", "pl")]


def test_a_cancelled_game_tells_its_invitees_and_refuses_later_answers(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        opened(settings, HERAT)
        bob_seat = seat_of(server, BOB)
        by_bob = handle_message(settings, message(BOB, bob_seat, "cancel\n"))
        assert "only the game's creator invites" in answer_to(server, BOB)
        cancel = handle_message(settings, message(ALICE, seat_of(server, ALICE), "cancel\n"))
        assert "The game herat was cancelled." in answer_to(server, CAROL)
        late = handle_message(settings, message(BOB, bob_seat, "accept\n"))
        assert "was cancelled" in answer_to(server, BOB)
    assert (by_bob.status, cancel.status, late.status) == ("refused", "accepted", "refused")
    assert not settings.games_dir.exists() or list(settings.games_dir.iterdir()) == []


def test_an_unanswered_invitation_expires_and_the_creator_is_told_once(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        opened(settings, HERAT)
        later = datetime.now(UTC) + timedelta(days=7, minutes=1)
        before = len(server.messages)
        assert starting.run_pending(settings, later) == []
        starting.run_pending(settings, later)
        outbox.deliver(settings)  # the pass queues; delivery is the scheduler's
        new = server.messages[before:]
    assert [str(m["To"]) for m in new] == [ALICE, ALICE]  # bob's and carol's, once each
    assert "did not answer the invitation in 168 hours" in plain(new[0])
    pending = records.read(settings, "herat")
    assert pending is not None and [s.status for s in pending.invited] == ["expired", "expired"]


def run(
    env: dict[str, str], *words: str, raw: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(PAMIR), *words],
        input=raw,
        env={**os.environ, **env},
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("point", ["lobby-accepted", "lobby-made"])
def test_a_crash_before_the_game_is_made_is_finished_once_by_the_next_pass(
    home: Path, point: str
) -> None:
    with mail_server() as server:
        env = {
            "PAMIR_HOME": str(home),
            "PAMIR_LOBBY": "open",
            "PAMIR_SMTP_HOST": "127.0.0.1",
            "PAMIR_SMTP_PORT": str(server.port),
            "PAMIR_SMTP_SECURITY": "none",
        }
        assert run(env, "inbound-email", raw=message(ALICE, SERVICE, HERAT)).returncode == 0
        assert (
            run(env, "inbound-email", raw=message(BOB, seat_of(server, BOB), "accept\n")).returncode
            == 0
        )
        last = message(CAROL, seat_of(server, CAROL), "accept\n")
        crashed = run({**env, FAULT_VARIABLE: point}, "inbound-email", raw=last)
        assert crashed.returncode == FAULT_EXIT, crashed.stderr
        finished = run(env, "scheduler", "--once")
        assert b"herat: made by the lobby" in finished.stdout, finished
        again = run(env, "inbound-email", raw=last)  # the mail server delivers it again
        assert again.returncode == 0, again.stderr
        assert b"herat: made" not in run(env, "scheduler", "--once").stdout
        firsts = [m for m in server.messages if m["X-Pamir-Game"] == "herat"]
    assert sorted(str(m["To"]).rpartition("<")[2].rstrip(">") for m in firsts) == [
        ALICE,
        BOB,
        CAROL,
    ]
    assert [p.name for p in (home / "games").iterdir()] == ["herat"]


def test_a_game_the_host_made_under_the_pending_name_is_not_taken_for_the_lobby_s(
    home: Path,
) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        opened(settings, f"new game herat\ninvite {BOB}\n")
        hosts = [("x", "x@example.net"), ("y", "y@example.net")]
        create_game(settings.games_dir / "herat", hosts, home=home, secret=SECRET)
        handle_message(settings, message(BOB, seat_of(server, BOB), "accept\n"))
        assert starting.run_pending(settings) == []
        firsts = [m for m in server.messages if m["X-Pamir-Game"] == "herat"]
    assert firsts == []
    pending = records.read(settings, "herat")
    assert pending is not None and pending.status == "creating"


def test_the_lobby_is_refused_in_postgresql_mode(home: Path) -> None:
    """Its games would be made on one node's disk: the settings say so at start."""
    url = "postgresql://postgres@127.0.0.1:5432/pamir"
    with pytest.raises(SettingsError, match="leave lobby off there"):
        load_settings({"home": home, "lobby": "open", "database_url": url}, remember=False)
    assert load_settings({"home": home, "database_url": url}, remember=False).lobby == "off"
