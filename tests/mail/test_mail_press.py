"""Press by mail: table talk relayed between the players of a game, public press kept in
the repository, private press only in PAMIR_HOME, rate-limited, and refused like a move
when its sender is not proven. Through a real SMTP server, real Git and `handle_message`.
"""

from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from gitgame import git, isolate
from mailserver import email_of, mail_server, new_game, plain, reply_to, settings_for
from test_mail_auth import PLAYERS, Zone, make_key, signed
from test_mail_in import Table, options, parsed

from adjudicator.games.contract import ContractBreach, check_commit
from adjudicator.games.objects import Person
from adjudicator.games.snapshot import snapshot
from adjudicator.mail import report_mails, tokens
from adjudicator.mail.incoming import handle_message

NAMES = ("alice", "bob", "carol")


def open_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **overrides: Any
) -> Iterator[Table]:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port, **overrides)
        repo, created = new_game(settings, NAMES)
        report_mails.notify(settings, repo, [created])
        yield Table(settings, server, repo)
        repo.repo.close()


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    yield from open_table(tmp_path, monkeypatch, press_per_day=2)


def last_to(table: Table, player: str) -> EmailMessage:
    return [m for m in table.server.messages if str(m["X-Pamir-Player"]) == player][-1]


def press_to(table: Table, player: str) -> list[EmailMessage]:
    return [
        m
        for m in table.server.messages
        if str(m["X-Pamir-Player"]) == player and "Press from" in str(m["Subject"])
    ]


def answer_to(table: Table, raw: bytes) -> EmailMessage:
    own = str(parsed(raw)["Message-ID"])
    (found,) = [m for m in table.server.messages if str(m["In-Reply-To"]) == own]
    return found


def test_public_press_reaches_every_other_player_and_the_repository(table: Table) -> None:
    raw = reply_to(last_to(table, "alice"), "Press:\nBob, carol: shall we hold Kabul?\n\nA.\n")

    result = handle_message(table.settings, raw)

    assert result.status == "accepted", result.reason
    for player in ("bob", "carol"):
        (relayed,) = press_to(table, player)
        text = plain(relayed)
        assert "press from alice, to all players" in text and "shall we hold Kabul?" in text
        # In the player's thread, and with nothing of the sender's but her name.
        first = next(m for m in table.server.messages if str(m["X-Pamir-Player"]) == player)
        assert str(relayed["References"]).startswith(str(first["Message-ID"]))
        assert email_of("alice") not in relayed.as_string()
        assert str(relayed["Reply-To"]).startswith(f"play+g1.{player}.")
    assert press_to(table, "alice") == []
    document = table.repo.read("press/0001.md") or ""
    assert document.startswith("---\nnumber: 1\nfrom: alice\nto: all\nsent: ")
    assert document.endswith("---\n\nBob, carol: shall we hold Kabul?\n\nA.\n")
    assert "Pamir-Press: 1" in git(table.repo.path, "log", "-1", "--format=%B")
    assert "press relayed to every other player" in plain(answer_to(table, raw))
    assert table.repo.names("moves") == []

    # Delivered again: relayed once.
    count = len(table.server.messages)
    handle_message(table.settings, raw)
    assert len(table.server.messages) == count and table.repo.names("press") == ["0001.md"]


def test_private_press_reaches_one_player_and_stays_out_of_the_repository(table: Table) -> None:
    head = table.head()
    raw = reply_to(last_to(table, "carol"), "press to BOB: I will not tax you.\n")

    assert handle_message(table.settings, raw).status == "accepted"

    (relayed,) = press_to(table, "bob")
    assert "press from carol, to bob alone" in plain(relayed)
    assert "I will not tax you." in plain(relayed) and email_of("carol") not in relayed.as_string()
    assert press_to(table, "alice") == []
    assert table.head() == head and table.repo.names("press") == []
    kept = table.settings.home / "mail" / "press" / "g1" / "private" / "0001-carol-bob.md"
    assert "from: carol\nto: bob\n" in kept.read_text(encoding="utf-8")


def test_press_is_rate_limited_per_player_and_game(table: Table) -> None:
    for number in (1, 2):
        raw = reply_to(last_to(table, "bob"), f"press: message {number}\n")
        assert handle_message(table.settings, raw).status == "accepted"
    third = reply_to(last_to(table, "bob"), "press: message 3\n")

    result = handle_message(table.settings, third)

    assert result.status == "refused" and result.reason.startswith("press-limit")
    assert "press_per_day = 2" in plain(answer_to(table, third))
    assert table.repo.names("press") == ["0001.md", "0002.md"]
    assert [plain(m).count("message 3") for m in press_to(table, "alice")] == [0, 0]
    # Another player's allowance is their own.
    raw = reply_to(last_to(table, "alice"), "press: my turn\n")
    assert handle_message(table.settings, raw).status == "accepted"


def test_press_to_nobody_known_is_refused(table: Table) -> None:
    raw = reply_to(last_to(table, "alice"), "press to zoe: hello\n")

    result = handle_message(table.settings, raw)

    assert result.status == "refused" and result.reason.startswith("unknown-player")
    assert [press_to(table, p) for p in NAMES] == [[], [], []]


def test_a_move_above_the_press_is_played_too(table: Table) -> None:
    player, report = table.deciding()
    choice = options(report)[0]
    raw = reply_to(report, f"{choice}\n\npress: my loyalty is chosen\n")

    result = handle_message(table.settings, raw)

    assert result.status == "accepted" and result.number == 1, result.reason
    assert table.repo.names("moves") == [f"0001-{player}.txt"]
    assert table.repo.names("press") == ["0001.md"]


def test_players_cannot_push_press_files(table: Table) -> None:
    snap = snapshot(table.repo)
    written = table.repo.commit(
        {"press/0001.md": b"---\nfrom: bob\n---\n\nforged\n"},
        "press",
        parent=snap.commit,
        author=Person("bob", email_of("bob")),
    )
    # Committed by bob too (a player's push is): the path breaks the contract, not the
    # adjudicator's identity, which the service's own plumbing commits with.
    bob = {"GIT_AUTHOR_NAME": "bob", "GIT_AUTHOR_EMAIL": email_of("bob")}
    bob |= {"GIT_COMMITTER_NAME": "bob", "GIT_COMMITTER_EMAIL": email_of("bob")}
    tree = table.repo.commit_info(written).tree
    assert snap.commit is not None
    made = str(table.repo.repo.git.commit_tree(tree, "-p", snap.commit, "-m", "press", env=bob))
    with pytest.raises(ContractBreach, match="press files are the adjudicator's"):
        check_commit(table.repo, made, snap.game, snap.next_number)


def test_press_from_an_unproven_sender_is_refused_under_dkim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = make_key()
    for table in open_table(tmp_path, monkeypatch, mail_auth="dkim"):
        zone = Zone()
        zone.publish(PLAYERS, key)
        unsigned = reply_to(last_to(table, "alice"), "press: trust me\n")

        result = handle_message(table.settings, unsigned, dnsfunc=zone)

        assert result.status == "refused" and result.reason.startswith("not authenticated")
        assert [press_to(table, p) for p in NAMES] == [[], [], []]
        assert table.repo.names("press") == []
        proven = signed(reply_to(last_to(table, "alice"), "press: it is me\n"), key)
        assert handle_message(table.settings, proven, dnsfunc=zone).status == "accepted"
        assert len(press_to(table, "bob")) == 1


def test_press_addresses_relay_a_whole_message_to_all_or_to_one(table: Table) -> None:
    """`pamir+GAME.PLAYER.TOKEN+all@` and `+NAME@`: the whole text is press, authenticated
    like a move (token, sender), and never read as a move or a command."""
    settings = table.settings
    head = table.head()
    to_all = tokens.press_address(settings, "g1", "alice")
    assert to_all.startswith("play+g1.alice.") and to_all.endswith("+all@pamir.example")
    raw = reply_to(last_to(table, "alice"), "resign\n\nKabul is mine.\n", to=to_all)

    result = handle_message(settings, raw)

    assert result.status == "accepted", result.reason
    assert not snapshot(table.repo).game.player("alice").resigned  # press, not a command
    assert table.repo.read("press/0001.md") is not None and table.head() != head
    for other in ("bob", "carol"):
        (relayed,) = press_to(table, other)
        assert "Kabul is mine." in plain(relayed) and "+alice" in plain(relayed)

    private = tokens.press_address(settings, "g1", "bob", "carol")
    raw = reply_to(last_to(table, "bob"), "Just between us.\n", to=private)
    assert handle_message(settings, raw).status == "accepted"
    (alone,) = [m for m in press_to(table, "carol") if "to you alone" in str(m["Subject"])]
    assert "Just between us." in plain(alone) and press_to(table, "alice") == []
    assert table.repo.read("press/0002.md") is None

    # The same checks as a move: another sender, or a token of another player, is refused.
    forged = reply_to(last_to(table, "bob"), "Hi\n", to=private, sender=email_of("alice"))
    assert handle_message(settings, forged).status == "ignored"
    stranger = tokens.press_address(settings, "g1", "bob", "zed")
    refused = handle_message(settings, reply_to(last_to(table, "bob"), "Hi\n", to=stranger))
    assert refused.status == "refused" and "unknown-player" in refused.reason
