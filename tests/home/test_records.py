"""The service's JSON records are read through their kinds (adjudicator/home/records.py).

For each kind: a record as the service writes it reads back and writes out to the very
same bytes (so files written before and after the models exist are the same files); and
a record cut short or edited into another shape is a StoreError that names it and says
where it is wrong, or, where the reader always took a bad record as none, is none.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from adjudicator.forge import records as forge_records
from adjudicator.forge.records import FORGE_RECORD
from adjudicator.games import needs_host
from adjudicator.games.repo import GameRepo
from adjudicator.home import credentials, store
from adjudicator.home.records import RecordKind
from adjudicator.home.settings import Settings
from adjudicator.home.store import FileStore, StoreError
from adjudicator.mail import delivery, inbound_records, ledger, outbox, preferences, press, threads
from adjudicator.mail.outbox import file_sending, folders
from adjudicator.mail.records import ACCEPTED, FAILURE, INBOUND, LEDGER, RETRY, THREADS

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def record_bytes(settings: Settings, name: str) -> bytes:
    data = store.of(settings).read(name)
    assert data is not None, name
    return data


def put(settings: Settings, name: str, text: str) -> None:
    store.of(settings).write(name, text.encode("utf-8"))


def old_form(value: Any, **options: Any) -> bytes:
    """A record as the versions before the kinds wrote it (`json.dumps`, indented)."""
    return (json.dumps(value, indent=2, **options) + "\n").encode("utf-8")


def assert_round_trip(kind: RecordKind[Any], name: str, data: bytes) -> None:
    assert kind.dump(kind.parse(name, data)) == data


# -- the helper ------------------------------------------------------------------------------


def test_a_record_that_is_not_json_is_an_error_naming_it(tmp_path: Path) -> None:
    records = FileStore(tmp_path)
    records.write("credentials/g1.json", b'{"anna": 1')
    with pytest.raises(StoreError, match=r"^the record credentials/g1\.json is not a record of "):
        credentials.GENERATIONS.read(records, "credentials/g1.json")


def test_an_absent_record_is_none(tmp_path: Path) -> None:
    assert credentials.GENERATIONS.read(FileStore(tmp_path), "credentials/g1.json") is None


def test_the_error_says_where_the_record_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as caught:
        preferences.PREFERENCES_RECORD.parse("mail/preferences/kabul.json", b'{"anna": [7]}\n')
    assert str(caught.value) == (
        "the record mail/preferences/kabul.json is not a record of mail preferences: anna: "
        "Input should be an object"
    )


def test_a_key_a_later_version_adds_is_kept() -> None:
    data = old_form({"anna": {"notify": "turns", "since": "2026-03-01"}}, sort_keys=True)
    assert_round_trip(preferences.PREFERENCES_RECORD, "mail/preferences/g1.json", data)


# -- credentials/GAME.json -------------------------------------------------------------------


def test_credential_generations_are_written_as_before(tmp_path: Path) -> None:
    records = FileStore(tmp_path)
    for player in ("Bob", "anna", "bob"):
        credentials.revoke(records, "g1", player)
    data = records.read("credentials/g1.json")
    assert data == old_form({"bob": 2, "anna": 1})
    assert_round_trip(credentials.GENERATIONS, "credentials/g1.json", data)


@pytest.mark.parametrize("text", ['{"anna": "2"}', '{"anna": -1}', '{"anna": true}', "[1]"])
def test_bad_credential_generations_are_an_error_not_generation_zero(
    tmp_path: Path, text: str
) -> None:
    """Read as none, they would put every player back at generation 0: the links and reply
    addresses replaced since would work again."""
    records = FileStore(tmp_path)
    records.write("credentials/g1.json", text.encode())
    with pytest.raises(StoreError, match=r"credentials/g1\.json is not a record of credential"):
        credentials.generation(records, "g1", "anna")


# -- mail/preferences/GAME.json --------------------------------------------------------------


def test_preferences_are_written_as_before(settings: Settings) -> None:
    name = "mail/preferences/g1.json"
    put(settings, name, '{"bob": "turns", "cy": {"timezone": "Asia/Kabul", "later": 1}}\n')
    preferences.set_notify_preference(settings, "g1", "Anna", "digest")
    preferences.set_player_timezone(settings, "g1", "anna", "Europe/Warsaw")
    data = record_bytes(settings, name)
    expected = {
        "anna": {"notify": "digest", "timezone": "Europe/Warsaw"},
        "bob": {"notify": "turns"},  # an older file's plain string, written as today
        "cy": {"timezone": "Asia/Kabul", "later": 1},
    }
    assert data == old_form(expected, sort_keys=True)
    assert_round_trip(preferences.PREFERENCES_RECORD, name, data)
    assert preferences.notify_preference(settings, "g1", "cy") == "every"


def test_bad_preferences_are_an_error_naming_the_record(settings: Settings) -> None:
    put(settings, "mail/preferences/g1.json", '{"anna": 3}\n')
    with pytest.raises(StoreError, match=r"mail/preferences/g1\.json is not a record of mail pr"):
        preferences.notify_preference(settings, "g1", "anna")


def test_a_preference_not_a_string_is_an_error(settings: Settings) -> None:
    put(settings, "mail/preferences/g1.json", '{"anna": {"notify": ["turns"]}}\n')
    with pytest.raises(StoreError, match=r"anna\.notify: Input should be a valid str"):
        preferences.notify_preference(settings, "g1", "anna")


# -- mail/press/GAME.json --------------------------------------------------------------------


def test_the_press_log_reads_back_as_written(settings: Settings) -> None:
    entries = [
        {"inbound": "k1", "from": "Anna", "to": "all", "number": 1, "sent": NOW.isoformat()},
        {"inbound": "k2", "from": "Zoë", "to": "Bob", "number": 1, "sent": NOW.isoformat()},
    ]
    data = old_form(entries, ensure_ascii=False)
    put(settings, "mail/press/g1.json", data.decode("utf-8"))
    assert [e.sender for e in press._log(settings, "g1")] == ["Anna", "Zoë"]
    press._write_log(settings, "g1", press._log(settings, "g1"))
    assert record_bytes(settings, "mail/press/g1.json") == data
    assert_round_trip(press.PRESS_LOG, "mail/press/g1.json", data)


@pytest.mark.parametrize(
    "entry",
    [
        {"inbound": "k1", "to": "all", "number": 1, "sent": "2026-03-01T12:00:00+00:00"},
        {"inbound": "k1", "from": "Anna", "to": "all", "number": 1, "sent": "yesterday"},
    ],
)
def test_a_bad_press_log_is_an_error_naming_it(settings: Settings, entry: dict[str, Any]) -> None:
    put(settings, "mail/press/g1.json", json.dumps([entry]))
    with pytest.raises(StoreError, match=r"mail/press/g1\.json is not a press log: 0\.(from|sent)"):
        press._log(settings, "g1")


# -- mail/digests/GAME.json ------------------------------------------------------------------


def test_the_digest_record_is_written_as_before(settings: Settings) -> None:
    name = "mail/digests/g1.json"
    record = {
        "anna": {
            "held": [[3, "c3", "2026-03-01T09:00:00+00:00"]],
            "last_day": "2026-02-28",
            "plan": {"day": "2026-03-01", "held": [[3, "c3", "2026-03-01T09:00:00+00:00"]]},
        },
        "bob": {"held": []},
    }
    put(settings, name, old_form(record).decode())
    delivery.hold(settings, "g1", "Cy", 4, "c4", "2026-03-01T10:00:00+00:00")
    record["cy"] = {"held": [[4, "c4", "2026-03-01T10:00:00+00:00"]]}
    data = record_bytes(settings, name)
    assert data == old_form(record)
    assert_round_trip(delivery.DIGESTS, name, data)


@pytest.mark.parametrize(
    "text",
    [
        '{"anna": []}',
        '{"anna": {"held": [["3", "c3", "2026-03-01T09:00:00+00:00"]]}}',
        '{"anna": {"held": [[3, "c3"]]}}',
        '{"anna": {"held": [], "plan": {"day": "2026-03-01"}}}',
    ],
)
def test_a_bad_digest_record_is_an_error_naming_it(settings: Settings, text: str) -> None:
    put(settings, "mail/digests/g1.json", text)
    with pytest.raises(StoreError, match=r"^the record mail/digests/g1\.json is not a digest "):
        delivery.hold(settings, "g1", "anna", 4, "c4", "2026-03-01T10:00:00+00:00")


# -- needs-host/GAME.json --------------------------------------------------------------------


def test_a_mark_is_written_as_before(settings: Settings) -> None:
    needs_host.mark(settings, "g1", "game.toml is not TOML", "c1")
    data = record_bytes(settings, "needs-host/g1.json")
    written = json.loads(data)
    assert data == old_form(
        {
            "game": "g1",
            "reason": "game.toml is not TOML",
            "first_seen": written["first_seen"],
            "commit": "c1",
            "mailed": None,
        }
    )
    assert_round_trip(needs_host.MARK, "needs-host/g1.json", data)


@pytest.mark.parametrize(
    "text",
    [
        '{"game": "g1", "reason": ["a list"], "first_seen": "2026-03-01T12:00:00+00:00"}',
        '{"game": "g1", "reason": "r", "first_seen": "2026-03-01", "extra": 1}',
        '{"game": "g1", "reason": "r"',
    ],
)
def test_a_bad_mark_is_no_mark(settings: Settings, text: str) -> None:
    """Deliberately: a mark is a note about a game broken already, and the next failure
    writes it again."""
    put(settings, "needs-host/g1.json", text)
    assert needs_host.marked(settings.home, "g1") is None
    assert needs_host.every_mark(settings.home) == []


# -- the records whose readers are to move to their kinds ------------------------------------


def test_the_ledger_kind_reads_the_ledger_as_written(settings: Settings) -> None:
    ledger._advance(settings, "g1", "0" * 40)
    data = record_bytes(settings, "mail/ledger/g1.json")
    assert LEDGER.parse("mail/ledger/g1.json", data).commit == "0" * 40
    assert_round_trip(LEDGER, "mail/ledger/g1.json", data)


def test_the_threads_kind_reads_the_threads_as_written(settings: Settings) -> None:
    with threads.locked_threads(settings, "g1") as kept:
        kept["anna"] = {"root": "<g1.0001.anna.a@x>", "last": "<g1.0002.anna.b@x>"}
        kept["bob"] = {"root": "<g1.0001.bob.c@x>", "last": "<g1.0001.bob.c@x>"}
    data = record_bytes(settings, "mail/threads/g1.json")
    assert THREADS.parse("mail/threads/g1.json", data)["anna"].last == "<g1.0002.anna.b@x>"
    assert_round_trip(THREADS, "mail/threads/g1.json", data)
    with pytest.raises(StoreError, match=r"mail/threads/g1\.json is not a record of mail thre"):
        THREADS.parse("mail/threads/g1.json", b'{"anna": "<g1.0001.anna.a@x>"}')
    put(settings, "mail/threads/g1.json", '{"anna": "<g1.0001.anna.a@x>"}')
    with pytest.raises(StoreError, match=r"mail/threads/g1\.json is not a record of mail thre"):
        threads.thread_of(settings, "g1", "anna")  # as every mail to anna reads it


def test_the_accepted_kind_reads_the_accepted_times_as_written(settings: Settings) -> None:
    keys = {"g1-0001-anna-report-c1": NOW.isoformat(), "g1-0001-bob-report-c1": NOW.isoformat()}
    folders.save_accepted(settings, {"g1": keys})
    data = record_bytes(settings, "mail/accepted/g1.json")
    assert ACCEPTED.parse("mail/accepted/g1.json", data) == keys
    assert_round_trip(ACCEPTED, "mail/accepted/g1.json", data)
    with pytest.raises(StoreError, match=r"accepted/g1\.json is not a record of accepted rep"):
        ACCEPTED.parse("mail/accepted/g1.json", b'{"g1-0001-anna-report-c1": "noon"}')


def test_the_inbound_kind_reads_the_inbound_records_as_written(settings: Settings) -> None:
    pending = {
        "status": "pending",
        "message_id": None,
        "subject": "Re: [g1] your turn «2»",
        "player": "Anna",
        "text": "pass\n",
        "head": "3" * 40,
        "signature": "b1",
    }
    ledger.write_inbound(settings, "g1", "k1", pending)
    ledger.write_inbound(settings, "g1", "k2", pending | {"status": "accepted", "number": 2})
    refused = pending | {"status": "refused", "reason": "no", "reason_phrase": {"message": "no"}}
    ledger.write_inbound(settings, "g1", "k3", refused)
    ledger.write_inbound(settings, "g1", "k4", {})
    for key in ("k1", "k2", "k3", "k4"):
        data = inbound_records.FileInboundRecords(settings).path("g1", key).read_bytes()
        assert_round_trip(INBOUND, f"mail/inbound/g1/{key}", data)
    with pytest.raises(StoreError, match=r"g1/k1 is not an inbound message's record: status"):
        INBOUND.parse("mail/inbound/g1/k1", b'{"status": "lost"}')


def test_the_retry_kind_reads_the_retry_record_as_written(settings: Settings) -> None:
    message = settings.home / "outbox" / "pending" / "m.eml"
    message.parent.mkdir(parents=True)
    message.write_bytes(b"Subject: x\n\nx\n")
    file_sending._defer(settings, message, "451 try again «later»", NOW)
    file_sending._defer(settings, message, "451 try again", NOW)
    data = message.with_name("m.eml.retry.json").read_bytes()
    assert RETRY.parse("m.eml.retry.json", data).attempts == 2
    assert_round_trip(RETRY, "m.eml.retry.json", data)
    with pytest.raises(StoreError, match=r"m\.eml\.retry\.json is not a retry record: attempts"):
        RETRY.parse("m.eml.retry.json", data.replace(b'"attempts": 2', b'"attempts": "2"'))


def test_the_failure_kind_reads_the_failure_record_as_written(settings: Settings) -> None:
    message = settings.home / "outbox" / "pending" / "m.eml"
    message.parent.mkdir(parents=True)
    message.write_bytes(b"X-Pamir-Game: g1\nX-Pamir-Player: operator\nSubject: x\n\nx\n")
    queue = outbox.of(settings)
    target = file_sending._fail(
        settings, queue, message, "550 no such user «op»", ["op@example.org"], NOW
    )
    data = target.with_name("m.eml.failed.json").read_bytes()
    assert FAILURE.parse("m.eml.failed.json", data).recipients == ["op@example.org"]
    assert_round_trip(FAILURE, "m.eml.failed.json", data)
    as_column = json.loads(data)  # in PostgreSQL mode, pamir_outbox.failure
    assert FAILURE.check("m.eml", as_column) == FAILURE.parse("m.eml.failed.json", data)
    with pytest.raises(StoreError, match=r"m\.eml\.failed\.json is not a failure record: recip"):
        FAILURE.parse(
            "m.eml.failed.json", data.replace(b'[\n    "op@', b'"op@').replace(b'g"\n  ]', b'g"')
        )


def test_the_forge_kind_reads_the_forge_record_as_written(settings: Settings) -> None:
    repo = cast(GameRepo, SimpleNamespace(path=settings.home / "games" / "g1"))
    forge_records.record(settings.home, repo, "1" * 40)
    assert forge_records.hold_is_news(settings.home, repo, "2" * 40)
    data = record_bytes(settings, "forge/g1.json")
    assert data == old_form({"adjudicated": "1" * 40, "held": "2" * 40})
    assert FORGE_RECORD.parse("forge/g1.json", data).held == "2" * 40
    assert_round_trip(FORGE_RECORD, "forge/g1.json", data)
    with pytest.raises(StoreError, match=r"forge/g1\.json is not a forge record: adjudicated"):
        FORGE_RECORD.parse("forge/g1.json", b'{"adjudicated": 1}')
