"""The outbox's index of keys (outbox/keys/, docs/email.md#the-outbox): a message queued
under a key is found wherever it went, never queued twice, and an outbox written before
the index had it made from its messages. A real SMTP server takes what is sent."""

from __future__ import annotations

import os
import subprocess
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailserver import mail_server, settings_for

from adjudicator.home.faults import FAULT_EXIT
from adjudicator.home.settings import Settings
from adjudicator.mail import outbox
from adjudicator.mail.outbox.folders import KEYS, state_folder


def message(subject: str) -> EmailMessage:
    made = EmailMessage()
    made["From"] = "pamir@example.org"
    made["To"] = "alice@example.org"
    made["Subject"] = subject
    made["X-Pamir-Game"] = "kabul"
    made["X-Pamir-Player"] = "alice"
    made.set_content(subject)
    return made


def files(settings: Settings) -> list[Path]:
    return sorted(settings.outbox_dir.rglob("*.eml"))


def test_a_key_is_found_wherever_its_message_went(home: Path) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        first = outbox.queue(settings, message("one"), "kabul-0001-alice-report-abc")
        assert first.parent.name == outbox.PENDING
        assert outbox.queued(settings, "kabul-0001-alice-report-abc") == first
        assert outbox.queue(settings, message("again"), "kabul-0001-alice-report-abc") == first
        outbox.deliver(settings)
        assert len(server.messages) == 1
    sent = settings.outbox_dir / outbox.SENT / first.name
    assert outbox.queued(settings, "kabul-0001-alice-report-abc") == sent
    assert outbox.queue(settings, message("again"), "kabul-0001-alice-report-abc") == sent
    assert files(settings) == [sent]
    assert outbox.queued(settings, "kabul-0002-alice-report-abc") is None


def test_a_message_refused_for_good_may_be_queued_again(home: Path) -> None:
    settings = settings_for(home, None)
    first = outbox.queue(settings, message("one"), "kabul-0001-alice-report-abc")
    failed = state_folder(settings, outbox.FAILED) / first.name
    os.replace(first, failed)  # as delivery moves a message the server refused for good
    assert outbox.queued(settings, "kabul-0001-alice-report-abc") is None
    second = outbox.queue(settings, message("two"), "kabul-0001-alice-report-abc")
    assert second.parent.name == outbox.PENDING and second != first
    assert outbox.queued(settings, "kabul-0001-alice-report-abc") == second


def test_a_key_linked_to_no_file_is_not_queued(home: Path) -> None:
    """What a crash between the link and the message leaves (the fault point `key-linked`,
    run end to end in test_crash_safety): the key counts as not queued."""
    settings = settings_for(home, None)
    outbox.queue(settings, message("other"), "kabul-0001-bob-report-abc")
    keys = settings.outbox_dir / KEYS
    os.symlink(
        "20260101T000000000000-kabul-0001-alice-report-abc.eml",
        keys / "kabul-0001-alice-report-abc",
    )
    assert outbox.queued(settings, "kabul-0001-alice-report-abc") is None
    made = outbox.queue(settings, message("one"), "kabul-0001-alice-report-abc")
    assert outbox.queued(settings, "kabul-0001-alice-report-abc") == made


def test_an_outbox_from_before_the_index_gets_one_from_its_messages(home: Path) -> None:
    settings = settings_for(home, None)
    old = {
        outbox.SENT: "20250101T000000000000-kabul-0001-alice-report-abc.eml",
        outbox.WRITTEN: "20250101T000000000001-kabul-0001-bob-report-abc.eml",
        outbox.PENDING: "20250101T000000000002-kabul-0002-alice-report-def.eml",
    }
    for folder, name in old.items():
        state_folder(settings, folder).joinpath(name).write_bytes(message(name).as_bytes())
    unkeyed = state_folder(settings, outbox.SENT) / "20250101T0000000003-kabul-0003-alice-5f3a.eml"
    unkeyed.write_bytes(message("reminder").as_bytes())
    assert not (settings.outbox_dir / KEYS).exists()
    # Found before the index exists, by listing the folders.
    assert outbox.queued(settings, "kabul-0001-alice-report-abc") is not None

    kept = outbox.queue(settings, message("again"), "kabul-0001-alice-report-abc")
    assert kept == settings.outbox_dir / outbox.SENT / old[outbox.SENT]
    assert (settings.outbox_dir / KEYS).is_dir()
    for folder, name in old.items():
        key = name.removesuffix(".eml").partition("-")[2]
        assert outbox.queued(settings, key) == settings.outbox_dir / folder / name
        assert outbox.queue(settings, message("again"), key) == settings.outbox_dir / folder / name
    assert len(files(settings)) == 4
    assert not list(settings.outbox_dir.glob(".keys.*"))  # nothing left of the building


def test_a_key_that_could_not_be_a_file_name_is_refused(home: Path) -> None:
    settings = settings_for(home, None)
    for key in ("odd/key", "../kabul", ".hidden", "with space", ""):
        with pytest.raises(ValueError, match="not a message key"):
            outbox.queue(settings, message("odd"), key)
        with pytest.raises(ValueError, match="not a message key"):
            outbox.queued(settings, key)
    assert files(settings) == []


# -- several messages queued at once (queue_many) ------------------------------------------


def test_several_messages_queued_at_once_are_each_queued_once_in_order(home: Path) -> None:
    settings = settings_for(home, None)
    kept = outbox.queue(settings, message("earlier"), "kabul-0001-bob-report-abc")
    keys = [f"kabul-0001-{name}-report-abc" for name in ("carol", "bob", "alice", "dave")]
    paths = outbox.queue_many(
        settings,
        [
            (message("to carol"), keys[0]),
            (message("to bob again").as_bytes(), keys[1]),  # queued before: kept
            (message("to alice"), keys[2]),
            (message("to carol again"), keys[0]),  # earlier in the batch: kept
            (message("to dave").as_bytes(), keys[3]),
        ],
    )
    assert paths[1] == kept and paths[3] == paths[0]
    assert [outbox.queued(settings, key) for key in keys] == [paths[0], kept, paths[2], paths[4]]
    # Pending in the order given (names sort by their time), and one file per key.
    pending = outbox.messages_in(settings, outbox.PENDING)
    assert pending == [kept, paths[0], paths[2], paths[4]]
    assert [p.read_bytes().count(b"again") for p in pending] == [0, 0, 0, 0]
    assert len(files(settings)) == 4
    assert not list(settings.outbox_dir.rglob(".*.tmp"))
    assert outbox.queue_many(settings, [(message("x"), keys[2])]) == [paths[2]]
    assert outbox.queue_many(settings, []) == []


def test_a_batch_crashed_after_its_links_is_queued_whole_by_the_next_run(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fault point `key-linked` in queue_many: every key is linked, no message written;
    none counts as queued, and the next run queues each one once."""
    settings = settings_for(home, None)
    keys = [f"kabul-0002-{name}-report-def" for name in ("alice", "bob", "carol")]
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from email.message import EmailMessage\n"
        "from adjudicator.home.settings import Settings\n"
        "from adjudicator.mail import outbox\n"
        "m = EmailMessage(); m['To'] = 'a@example.org'; m.set_content('x')\n"
        "outbox.queue_many(Settings(home=Path(sys.argv[1])),"
        " [(m, k) for k in sys.argv[2:]])\n"
    )
    monkeypatch.setenv("PAMIR_FAULT", "key-linked")
    crashed = subprocess.run(
        [sys.executable, "-c", script, str(home), *keys], capture_output=True, check=False
    )
    assert crashed.returncode == FAULT_EXIT, crashed.stderr.decode()
    monkeypatch.delenv("PAMIR_FAULT")
    links = settings.outbox_dir / KEYS
    assert sorted(p.name for p in links.iterdir()) == keys
    assert files(settings) == []
    assert [outbox.queued(settings, key) for key in keys] == [None, None, None]
    paths = outbox.queue_many(settings, [(message(key), key) for key in keys])
    assert files(settings) == sorted(paths)
    assert [outbox.queued(settings, key) for key in keys] == paths


def test_a_batch_cut_short_among_its_messages_keeps_those_written(home: Path) -> None:
    """A crash while the messages are being renamed into place: the keys whose message is
    there are queued, the others are queued by the next run, none twice."""
    settings = settings_for(home, None)
    keys = [f"kabul-0003-{name}-report-abc" for name in ("alice", "bob", "carol")]
    first = outbox.queue_many(settings, [(message(key), key) for key in keys])
    for path in first[1:]:
        path.unlink()  # as if the crash came before these two were renamed
    again = outbox.queue_many(settings, [(message(key), key) for key in keys])
    assert again[0] == first[0] and again[1:] != first[1:]
    assert files(settings) == sorted(again)
