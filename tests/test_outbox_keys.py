"""The outbox's index of keys (outbox/keys/, docs/email.md#the-outbox): a message queued
under a key is found wherever it went, never queued twice, and an outbox written before
the index had it made from its messages. A real SMTP server takes what is sent."""

from __future__ import annotations

import os
from email.message import EmailMessage
from pathlib import Path

import pytest
from mailserver import mail_server, settings_for

from adjudicator.home.settings import Settings
from adjudicator.mail import outgoing


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
        first = outgoing.queue(settings, message("one"), "kabul-0001-alice-report-abc")
        assert first.parent.name == outgoing.PENDING
        assert outgoing.queued(settings, "kabul-0001-alice-report-abc") == first
        assert outgoing.queue(settings, message("again"), "kabul-0001-alice-report-abc") == first
        outgoing.deliver(settings)
        assert len(server.messages) == 1
    sent = settings.outbox_dir / outgoing.SENT / first.name
    assert outgoing.queued(settings, "kabul-0001-alice-report-abc") == sent
    assert outgoing.queue(settings, message("again"), "kabul-0001-alice-report-abc") == sent
    assert files(settings) == [sent]
    assert outgoing.queued(settings, "kabul-0002-alice-report-abc") is None


def test_a_message_refused_for_good_may_be_queued_again(home: Path) -> None:
    settings = settings_for(home, None)
    first = outgoing.queue(settings, message("one"), "kabul-0001-alice-report-abc")
    failed = outgoing.outbox(settings, outgoing.FAILED) / first.name
    os.replace(first, failed)  # as delivery moves a message the server refused for good
    assert outgoing.queued(settings, "kabul-0001-alice-report-abc") is None
    second = outgoing.queue(settings, message("two"), "kabul-0001-alice-report-abc")
    assert second.parent.name == outgoing.PENDING and second != first
    assert outgoing.queued(settings, "kabul-0001-alice-report-abc") == second


def test_a_key_linked_to_no_file_is_not_queued(home: Path) -> None:
    """What a crash between the link and the message leaves (the fault point `key-linked`,
    run end to end in test_crash_safety): the key counts as not queued."""
    settings = settings_for(home, None)
    outgoing.queue(settings, message("other"), "kabul-0001-bob-report-abc")
    keys = settings.outbox_dir / outgoing.KEYS
    os.symlink(
        "20260101T000000000000-kabul-0001-alice-report-abc.eml",
        keys / "kabul-0001-alice-report-abc",
    )
    assert outgoing.queued(settings, "kabul-0001-alice-report-abc") is None
    made = outgoing.queue(settings, message("one"), "kabul-0001-alice-report-abc")
    assert outgoing.queued(settings, "kabul-0001-alice-report-abc") == made


def test_an_outbox_from_before_the_index_gets_one_from_its_messages(home: Path) -> None:
    settings = settings_for(home, None)
    old = {
        outgoing.SENT: "20250101T000000000000-kabul-0001-alice-report-abc.eml",
        outgoing.WRITTEN: "20250101T000000000001-kabul-0001-bob-report-abc.eml",
        outgoing.PENDING: "20250101T000000000002-kabul-0002-alice-report-def.eml",
    }
    for folder, name in old.items():
        outgoing.outbox(settings, folder).joinpath(name).write_bytes(message(name).as_bytes())
    unkeyed = (
        outgoing.outbox(settings, outgoing.SENT) / "20250101T0000000003-kabul-0003-alice-5f3a.eml"
    )
    unkeyed.write_bytes(message("reminder").as_bytes())
    assert not (settings.outbox_dir / outgoing.KEYS).exists()
    # Found before the index exists, by listing the folders.
    assert outgoing.queued(settings, "kabul-0001-alice-report-abc") is not None

    kept = outgoing.queue(settings, message("again"), "kabul-0001-alice-report-abc")
    assert kept == settings.outbox_dir / outgoing.SENT / old[outgoing.SENT]
    assert (settings.outbox_dir / outgoing.KEYS).is_dir()
    for folder, name in old.items():
        key = name.removesuffix(".eml").partition("-")[2]
        assert outgoing.queued(settings, key) == settings.outbox_dir / folder / name
        assert (
            outgoing.queue(settings, message("again"), key) == settings.outbox_dir / folder / name
        )
    assert len(files(settings)) == 4
    assert not list(settings.outbox_dir.glob(".keys.*"))  # nothing left of the building


def test_a_key_that_could_not_be_a_file_name_is_refused(home: Path) -> None:
    settings = settings_for(home, None)
    for key in ("odd/key", "../kabul", ".hidden", "with space", ""):
        with pytest.raises(ValueError, match="not a message key"):
            outgoing.queue(settings, message("odd"), key)
        with pytest.raises(ValueError, match="not a message key"):
            outgoing.queued(settings, key)
    assert files(settings) == []
