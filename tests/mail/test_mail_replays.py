"""A captured, validly signed move cannot be played again (adjudicator/mail/replays.py).

Each attack starts from a real message DKIM-signed with dkimpy for the players' domain
(the key published in a test DNS zone, as in tests/mail/test_mail_auth.py), whose move is a
standing policy (`policy pay 2`): a policy may be given at any time, so a replayed one
would be played again, not refused by the rules. Every attack is refused and changes
nothing; the original is played once. The last test runs in both modes of the inbound
records, files and PostgreSQL.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import dkim
import psycopg
import pytest
from gitgame import isolate
from mailserver import mail_server, new_game, reply_to, settings_for
from pgserver import SECRET_KEY, scratch_database
from test_mail_auth import PLAYERS, SELECTOR, Key, Table, Zone, make_key, signed, with_headers

from adjudicator.home import database, store
from adjudicator.mail import report_mails
from adjudicator.mail.outcomes import InboundResult

MOVE = "policy pay 2\n"


@pytest.fixture(scope="module")
def key() -> Key:
    return make_key()


def open_game(home: Path, mode: str, **overrides: Any) -> Iterator[Table]:
    with mail_server() as server:
        settings = settings_for(home, server.port, mail_auth=mode, **overrides)
        if settings.database_url is not None:
            database.upgrade(settings)
            store.remember(settings)  # the game's secret is kept in the database
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        yield Table(settings, server, repo, Zone())
        repo.repo.close()


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: Key) -> Iterator[Table]:
    """A game played under mail_auth = "dkim", the players' provider's key published."""
    for table in open_game(isolate(tmp_path, monkeypatch), "dkim"):
        table.zone.publish(PLAYERS, key)
        yield table


def a_reply(table: Table) -> bytes:
    """alice's reply to her report, her move a standing policy, unsigned."""
    report = next(m for m in table.server.messages if str(m["X-Pamir-Player"]) == "alice")
    return reply_to(report, MOVE, quote=False)


def sign(raw: bytes, key: Key, *fields: bytes, length: bool = False) -> bytes:
    """The message signed for PLAYERS over `fields` (default: as tests/mail/test_mail_auth.py)."""
    if not fields and not length:
        return signed(raw, key)
    chosen = list(fields) or [b"from", b"to", b"subject", b"date", b"message-id"]
    signature = dkim.sign(
        raw,
        SELECTOR.encode(),
        PLAYERS.encode(),
        key.private_pem,
        include_headers=chosen,
        length=length,
    )
    return bytes(signature).replace(b"\r\n", b"\n") + raw


def moves(table: Table) -> list[str]:
    return table.repo.names("moves")


def unchanged(table: Table, result: InboundResult, head: str, status: str, why: str) -> None:
    assert result.status == status, result.reason
    assert why in result.reason, result.reason
    assert table.head() == head


def test_a_second_message_id_on_top_of_a_signed_move_does_not_play_it_again(
    table: Table, key: Key
) -> None:
    original = sign(a_reply(table), key)
    assert table.handle(original).status == "accepted"
    head, played = table.head(), moves(table)

    # DKIM verifies the bottom Message-ID, which it signed; the top one is the attacker's.
    replayed = with_headers(original, "Message-ID: <replayed.1@attacker.example>")
    result = table.handle(replayed)

    unchanged(table, result, head, "ignored", "2 Message-ID fields (RFC 5322 allows one)")
    assert moves(table) == played == ["0001-alice.txt"]


def test_the_attack_first_then_the_original_is_played_once(table: Table, key: Key) -> None:
    original = sign(a_reply(table), key)
    head = table.head()
    for name in ("Message-ID", "From", "Subject", "Date", "To"):
        extra = f"{name}: <x@attacker.example>" if name != "To" else f"To: {PLAYERS}"
        result = table.handle(with_headers(original, extra))
        unchanged(table, result, head, "ignored", f"2 {name} fields")
    assert table.handle(original).status == "accepted"
    assert table.handle(original).duplicate
    assert moves(table) == ["0001-alice.txt"]


@pytest.mark.parametrize("mode", ["token", "authres"])
def test_single_fields_given_twice_are_refused_in_every_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    extra = {"mail_authserv_id": "mx.pamir.example"} if mode == "authres" else {}
    for table in open_game(isolate(tmp_path, monkeypatch), mode, **extra):
        head = table.head()
        raw = with_headers(a_reply(table), "Message-ID: <replayed.2@attacker.example>")
        unchanged(table, table.handle(raw), head, "ignored", "2 Message-ID fields")


def test_a_signature_that_leaves_the_message_id_unsigned_does_not_count(
    table: Table, key: Key
) -> None:
    unsigned_id = sign(a_reply(table), key, b"from", b"to", b"subject", b"date")
    head = table.head()
    for raw in (
        unsigned_id,
        re.sub(rb"(?m)^Message-ID: .*$", b"Message-ID: <new.3@attacker.example>", unsigned_id),
    ):
        result = table.handle(raw)
        unchanged(table, result, head, "refused", "does not cover the Message-ID header")
    assert moves(table) == []


def test_lines_added_under_a_signature_of_part_of_the_body_are_refused(
    table: Table, key: Key
) -> None:
    original = sign(a_reply(table), key, length=True)
    assert b" l=" in original or b";l=" in original or b"\tl=" in original
    tampered = original + b"policy pay 9\n"
    head = table.head()

    result = table.handle(tampered)

    unchanged(table, result, head, "refused", "covers only the first bytes of the body (l=)")
    assert moves(table) == []


def records(table: Table) -> list[dict[str, Any]]:
    """Every inbound record of the game, from the files or from PostgreSQL."""
    if table.settings.database_url is None:
        folder = table.settings.home / "mail" / "inbound" / "g1"
        return [json.loads(p.read_text("utf-8")) for p in sorted(folder.iterdir())]
    with psycopg.connect(str(table.settings.database_url)) as connection:
        rows = connection.execute("SELECT record FROM pamir_inbound_messages").fetchall()
    return [dict(r[0]) for r in rows]


def b_value(raw: bytes) -> str:
    """The `b=` value of the message's (first) DKIM signature, without whitespace."""
    found = re.search(rb"[\s;]b=((?:[A-Za-z0-9+/=]|\n?[ \t])+)", raw.split(b"\n\n")[0])
    assert found is not None
    return b"".join(found.group(1).split()).decode()


def test_the_passing_signature_is_kept_in_the_inbound_record(table: Table, key: Key) -> None:
    original = sign(a_reply(table), key)
    assert table.handle(original).status == "accepted"
    assert [r.get("signature") for r in records(table)] == [b_value(original)]


@pytest.mark.parametrize("kept_in", ["files", "postgresql"])
def test_a_signed_message_without_a_message_id_is_known_by_its_signature(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: Key, kept_in: str
) -> None:
    """The signer signed the absence of a Message-ID: the message was known by its bytes,
    and a header put on top (as every mail server on the way does) made it new."""
    home = isolate(tmp_path, monkeypatch)
    with scratch_database() if kept_in == "postgresql" else nullcontext() as url:
        extra = {"database_url": url, "secret_key": SECRET_KEY} if url else {}
        if url:  # a node's own folder and key, as in tests/home/test_cluster.py
            home = tmp_path / "shared-home"
            monkeypatch.setenv("PAMIR_SECRET_KEY", SECRET_KEY)
        for table in open_game(home, "dkim", **extra):
            table.zone.publish(PLAYERS, key)
            original = sign(re.sub(rb"(?m)^Message-ID: .*\n", b"", a_reply(table)), key)
            first = table.handle(original)
            assert first.status == "accepted", first.reason
            head, played = table.head(), moves(table)

            again = table.handle(with_headers(original, "Received: from mx2.players.example"))

            assert (again.status, again.duplicate) == ("accepted", True)
            assert table.head() == head and moves(table) == played == ["0001-alice.txt"]
            assert [r.get("signature") for r in records(table)] == [b_value(original)]
