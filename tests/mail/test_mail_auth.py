"""Mail authentication (`mail_auth`): a reply is played only when its sender is proven.

Real parts throughout: a real SMTP server receives what the service sends, the game is a
real Git repository, and replies are DKIM-signed with dkimpy under an RSA key made by
openssl for each test session. The only stand-in is DNS: a `Zone` publishes the keys
and is handed to `handle_message` as its `dnsfunc`.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import dkim
import pytest
from gitgame import PAMIR, isolate
from mailserver import (
    DOMAIN,
    MAIL_FROM,
    email_of,
    mail_server,
    new_game,
    plain,
    reply_to,
    settings_for,
)
from test_mail_in import Table as MailTable

from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import SettingsError, load_settings
from adjudicator.mail import orgdomain, report_mails, tokens
from adjudicator.mail.authentication import is_aligned
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.outcomes import InboundResult

OPTION = re.compile(r"^- `([^`]+)`(?: — .*)?$", re.MULTILINE)
PLAYERS = "players.example"  # the domain of every player's address (mailserver.email_of)
AUTHSERV = "mx.pamir.example"
SELECTOR = "mail2026"
NOTICE = "A message in your name was refused"


@dataclass(frozen=True)
class Key:
    private_pem: bytes
    record: bytes  # the DNS TXT record that publishes its public half


def make_key() -> Key:
    openssl = shutil.which("openssl")
    assert openssl is not None, "the DKIM tests make their RSA keys with openssl"
    pem = subprocess.run([openssl, "genrsa", "2048"], capture_output=True, check=True).stdout
    der = subprocess.run(
        [openssl, "rsa", "-pubout", "-outform", "DER"], input=pem, capture_output=True, check=True
    ).stdout
    return Key(pem, b"v=DKIM1; k=rsa; p=" + base64.b64encode(der))


@pytest.fixture(scope="session")
def keys() -> dict[str, Key]:
    """The players' provider's key, and an attacker's for a domain of their own."""
    return {PLAYERS: make_key(), "attacker.example": make_key()}


@dataclass
class Zone:
    """The DNS as dkimpy sees it: TXT records by name, and every name asked for."""

    records: dict[bytes, bytes] = field(default_factory=dict)
    asked: list[bytes] = field(default_factory=list)

    def publish(self, domain: str, key: Key) -> None:
        self.records[f"{SELECTOR}._domainkey.{domain}.".encode()] = key.record

    def __call__(self, name: bytes, timeout: int = 5) -> bytes | None:
        self.asked.append(name)
        return self.records.get(name)


def signed(raw: bytes, key: Key, domain: str = PLAYERS) -> bytes:
    """The message with a DKIM-Signature by `domain`, as its provider's server adds it."""
    signature = dkim.sign(
        raw,
        SELECTOR.encode(),
        domain.encode(),
        key.private_pem,
        include_headers=[b"from", b"to", b"subject", b"date", b"message-id"],
    )
    # Mail handed to a pipe has bare newlines, like the rest of the message.
    return bytes(signature).replace(b"\r\n", b"\n") + raw


def with_headers(raw: bytes, *headers: str) -> bytes:
    """The message with header lines put on top, as mail servers prepend theirs."""
    return "".join(h + "\n" for h in headers).encode() + raw


@dataclass
class Table(MailTable):
    """A game by mail (tests/mail/test_mail_in.py), whose DNS is `zone`."""

    zone: Zone

    def handle(self, raw: bytes) -> InboundResult:
        return handle_message(self.settings, raw, dnsfunc=self.zone)

    def notices(self) -> list[EmailMessage]:
        return [m for m in self.server.messages if NOTICE in str(m["Subject"])]


def open_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **overrides: Any
) -> Iterator[Table]:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port, **overrides)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        assert len(server.messages) == 2
        yield Table(settings, server, repo, Zone())
        repo.repo.close()


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: dict[str, Key]) -> Iterator[Table]:
    """A game played under mail_auth = "dkim", the players' provider's key published."""
    for table in open_table(tmp_path, monkeypatch, mail_auth="dkim"):
        table.zone.publish(PLAYERS, keys[PLAYERS])
        yield table


@pytest.fixture
def authres_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    """A game played under mail_auth = "authres", trusting AUTHSERV's headers."""
    yield from open_table(tmp_path, monkeypatch, mail_auth="authres", mail_authserv_id=AUTHSERV)


def options(message: EmailMessage) -> list[str]:
    found = OPTION.findall(plain(message))
    assert found
    return found


def assert_refused_and_unchanged(table: Table, result: InboundResult, head: str, why: str) -> None:
    assert result.status == "refused", result.reason
    assert result.reason.startswith("not authenticated: ") and why in result.reason
    assert result.exit_status == 0  # handled: the mail server must not bounce it
    assert table.head() == head and table.repo.names("moves") == []


# -- dkim ----------------------------------------------------------------------------------


def test_a_dkim_signed_reply_is_played_and_the_reports_go_out(
    table: Table, keys: dict[str, Key]
) -> None:
    player, report = table.deciding()
    choice = options(report)[-1]

    result = table.handle(signed(reply_to(report, choice + "\n"), keys[PLAYERS]))

    assert (result.status, result.player, result.number) == ("accepted", player, 1), result.reason
    assert table.repo.read(f"moves/0001-{player}.txt") == choice + "\n"
    assert f"{SELECTOR}._domainkey.{PLAYERS}.".encode() in table.zone.asked
    assert len(table.server.messages) == 5  # two reports of move 1 and the confirmation
    assert table.notices() == []


def test_a_reply_whose_body_was_changed_after_signing_is_refused(
    table: Table, keys: dict[str, Key]
) -> None:
    player, report = table.deciding()
    first, other = options(report)[0], options(report)[-1]
    raw = signed(reply_to(report, first + "\n"), keys[PLAYERS])
    tampered = raw.replace(first.encode(), other.encode(), 1)
    assert tampered != raw
    head = table.head()

    result = table.handle(tampered)

    assert_refused_and_unchanged(table, result, head, "body hash mismatch")
    (notice,) = table.notices()
    assert str(notice["To"]) == f"{player} <{email_of(player)}>"
    assert "body hash mismatch" in plain(notice)
    assert other not in plain(notice)  # nothing the sender wrote is repeated


def test_an_unsigned_reply_is_refused(table: Table) -> None:
    _, report = table.deciding()
    head = table.head()
    result = table.handle(reply_to(report, options(report)[0] + "\n"))
    assert_refused_and_unchanged(table, result, head, "no DKIM signature")
    assert len(table.notices()) == 1


def test_a_signature_whose_key_is_not_published_is_refused(
    table: Table, keys: dict[str, Key]
) -> None:
    _, report = table.deciding()
    table.zone.records.clear()
    head = table.head()
    result = table.handle(signed(reply_to(report, options(report)[0] + "\n"), keys[PLAYERS]))
    assert_refused_and_unchanged(table, result, head, "no DKIM key is published")


def test_a_reply_signed_with_another_key_than_the_published_one_is_refused(
    table: Table, keys: dict[str, Key]
) -> None:
    _, report = table.deciding()
    head = table.head()
    raw = signed(reply_to(report, options(report)[0] + "\n"), keys["attacker.example"])
    result = table.handle(raw)  # d=players.example, but the attacker's private key
    assert_refused_and_unchanged(table, result, head, "does not verify")


def test_a_reply_signed_by_a_domain_not_aligned_with_from_is_refused(
    table: Table, keys: dict[str, Key]
) -> None:
    """The attacker signs, validly, for their own domain; From is the player's."""
    _, report = table.deciding()
    for domain in ("attacker.example", "players.example.attacker.example"):
        table.zone.publish(domain, keys["attacker.example"])
    head = table.head()
    raw = reply_to(report, options(report)[0] + "\n")
    raw = signed(raw, keys["attacker.example"], "attacker.example")
    raw = signed(raw, keys["attacker.example"], "players.example.attacker.example")

    result = table.handle(raw)

    assert_refused_and_unchanged(table, result, head, "not the domain of its From address")
    assert "DKIM-signed by players.example.attacker.example, attacker.example" in result.reason


@pytest.mark.parametrize(
    ("signer", "author", "aligned"),
    [
        ("example.org", "example.org", True),
        ("example.org", "mail.example.org", True),  # the organizational domain signs
        ("mail.example.org", "example.org", True),  # a sub-domain of the same organization
        ("a.example.co.uk", "b.example.co.uk", True),
        ("EXAMPLE.org.", "mail.example.org", True),
        ("mail.example.org", "EXAMPLE.ORG.", True),
        ("example.org", "example.com", False),
        ("ample.org", "example.org", False),
        ("example.org", "example.org.attacker.example", False),
        ("co.uk", "example.co.uk", False),  # a public suffix aligns with nothing
        ("example.co.uk", "co.uk", False),
        ("co.uk", "co.uk", False),
        ("org", "example.org", False),
        ("github.io", "alice.github.io", False),  # the list's private part counts too
        ("alice.github.io", "bob.github.io", False),
        ("xn--bcher-kva.de", "mail.bücher.de", True),  # an IDN as A-label and U-label
        ("MAIL.BÜCHER.DE", "xn--bcher-kva.de", True),
        ("example.xn--p1ai", "mail.example.рф", True),
        ("xn--p1ai", "example.рф", False),  # .рф, a public suffix
        ("fass.de", "faß.de", False),  # IDNA 2003 would map faß to fass: another domain
        ("example.notinthelist", "mail.example.notinthelist", True),  # the default rule *
        ("notinthelist", "example.notinthelist", False),
        ("a..example.org", "example.org", False),  # not domain names
        ("example.org", "exa mple.org", False),
        ("", "example.org", False),
        ("", "", False),
    ],
)
def test_relaxed_alignment(signer: str, author: str, aligned: bool) -> None:
    """RFC 7489 §3.1.1: the organizational domains, by the Public Suffix List, are one."""
    assert is_aligned(signer, author) is aligned


def test_the_public_suffix_list_is_loaded_once_a_process() -> None:
    assert orgdomain.public_suffixes() is orgdomain.public_suffixes()
    assert orgdomain.organizational_domain("a.b.example.co.uk") == "example.co.uk"


def test_a_reply_signed_by_a_sub_domain_of_its_from_domain_is_played(
    table: Table, keys: dict[str, Key]
) -> None:
    """Relaxed alignment in DKIM mode: the player's provider signs as mail.DOMAIN."""
    table.zone.publish(f"mail.{PLAYERS}", keys[PLAYERS])
    _, report = table.deciding()
    raw = signed(reply_to(report, options(report)[0] + "\n"), keys[PLAYERS], f"mail.{PLAYERS}")
    result = table.handle(raw)
    assert result.status == "accepted" and result.number == 1, result.reason


@pytest.mark.parametrize("mode", ["token", "dkim"])
def test_a_forged_from_with_a_stolen_reply_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: dict[str, Key], mode: str
) -> None:
    """Mallory learned alice's reply address (a forwarded report) and writes From alice,
    from her own server, which signs for her own domain. The token alone lets her play in
    alice's name; dkim refuses her, and alice hears of it at her own address."""
    for table in open_table(tmp_path, monkeypatch, mail_auth=mode):
        table.zone.publish(PLAYERS, keys[PLAYERS])
        table.zone.publish("attacker.example", keys["attacker.example"])
        player, report = table.deciding()
        stolen = tokens.reply_address(table.settings, "g1", player)
        forged = reply_to(
            report, options(report)[0] + "\n", sender=email_of(player), to=stolen, quote=False
        )
        head = table.head()

        result = table.handle(signed(forged, keys["attacker.example"], "attacker.example"))

        if mode == "token":
            assert result.status == "accepted" and result.player == player
            assert table.head() != head
        else:
            assert_refused_and_unchanged(table, result, head, "signed by attacker.example")
            (notice,) = table.notices()
            assert str(notice["To"]) == f"{player} <{email_of(player)}>"
            assert [r.rcpt_tos for r in table.server.received[2:]] == [[email_of(player)]]


def test_many_forged_messages_bring_the_player_one_notice_a_day(table: Table) -> None:
    _, report = table.deciding()
    head = table.head()
    for choice in options(report)[:3]:
        result = table.handle(reply_to(report, choice + "\n"))
        assert_refused_and_unchanged(table, result, head, "no DKIM signature")
    assert len(table.notices()) == 1
    assert len(table.server.messages) == 3


def test_rollback_requests_and_agreements_by_mail_need_authentication_too(
    table: Table, keys: dict[str, Key]
) -> None:
    first, report = table.deciding()
    assert table.handle(signed(reply_to(report, options(report)[0]), keys[PLAYERS])).number == 1
    second, report = table.deciding()
    head = table.head()

    unsigned = table.handle(reply_to(report, "rollback 0 I misread the board"))
    assert unsigned.status == "refused" and unsigned.reason.startswith("not authenticated")
    assert table.head() == head and snapshot(table.repo).rollbacks.proposal is None

    proposed = table.handle(
        signed(reply_to(report, "rollback 0 I misread the board"), keys[PLAYERS])
    )
    assert proposed.status == "accepted", proposed.reason
    assert snapshot(table.repo).rollbacks.proposal is not None
    head = table.head()
    first_report = [m for m in table.server.messages if str(m["X-Pamir-Player"]) == first][-1]

    agreement = table.handle(reply_to(first_report, "agree rollback"))
    assert agreement.status == "refused" and agreement.reason.startswith("not authenticated")
    assert table.head() == head and snapshot(table.repo).rollbacks.proposal is not None
    assert second != first


def test_the_inbound_email_command_reads_mail_auth_from_the_environment(table: Table) -> None:
    _, report = table.deciding()
    head = table.head()
    env = {
        **os.environ,
        "PAMIR_HOME": str(table.settings.home),
        "PAMIR_SMTP_HOST": "127.0.0.1",
        "PAMIR_SMTP_PORT": str(table.server.port),
        "PAMIR_SMTP_SECURITY": "none",
        "PAMIR_MAIL_FROM": MAIL_FROM,
        "PAMIR_REPLY_LOCAL": "play",
        "PAMIR_REPLY_DOMAIN": DOMAIN,
        "PAMIR_MAIL_AUTH": "dkim",
    }
    raw = reply_to(report, options(report)[0] + "\n")
    done = subprocess.run(
        [str(PAMIR), "inbound-email"], input=raw, env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    assert b"refused: not authenticated: the message has no DKIM signature" in done.stdout
    assert table.head() == head and len(table.notices()) == 1


# -- authres -------------------------------------------------------------------------------


def authres_reply(table: Table, *headers: str) -> tuple[InboundResult, str]:
    _, report = table.deciding()
    head = table.head()
    raw = reply_to(report, options(report)[0] + "\n")
    return table.handle(with_headers(raw, *headers)), head


@pytest.mark.parametrize(
    "header",
    [
        f"Authentication-Results: {AUTHSERV}; dmarc=pass (p=reject dis=none) header.from={PLAYERS}",
        f"Authentication-Results: {AUTHSERV.upper()};\n\tdkim=pass (2048-bit key) "
        f"header.d={PLAYERS} header.i=@{PLAYERS} header.b=abc",
        f"Authentication-Results: {AUTHSERV}; dkim=fail header.d=attacker.example;"
        f" dkim=pass header.d={PLAYERS}",
        # RFC 8601's other spellings of our authserv-id: comments, a version, quotes,
        # folding (the mail server's rule removes them all when a sender writes them).
        f"Authentication-Results: (checked) {AUTHSERV} 1 (v); dmarc=pass header.from={PLAYERS}",
        f'Authentication-Results: "{AUTHSERV.upper()}"; dkim=pass header.d=mail.{PLAYERS}',
        f"Authentication-Results:\n\t{AUTHSERV}\n\t(c); dmarc=pass\n\theader.from={PLAYERS}",
    ],
    ids=[
        *("dmarc-pass", "dkim-pass-aligned", "one-of-two-dkim-passes"),
        *("comments-and-version", "quoted", "folded"),
    ],
)
def test_our_mail_servers_pass_is_accepted(authres_table: Table, header: str) -> None:
    result, head = authres_reply(authres_table, header)
    assert result.status == "accepted" and result.number == 1, result.reason
    assert authres_table.head() != head and authres_table.notices() == []


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        (
            [f"Authentication-Results: {AUTHSERV}; dmarc=fail (p=none) header.from={PLAYERS}"],
            "dmarc=fail",
        ),
        (
            [f"Authentication-Results: {AUTHSERV}; dkim=pass header.d=attacker.example"],
            "dkim=pass for attacker.example",
        ),
        (
            [f"Authentication-Results: elsewhere.example; dmarc=pass header.from={PLAYERS}"],
            f"no Authentication-Results header from {AUTHSERV}",
        ),
        (  # a sender's forged header below ours: only the topmost dmarc result counts
            [
                f"Authentication-Results: {AUTHSERV}; dmarc=fail header.from={PLAYERS}",
                "Received: from mallory.example by mx.pamir.example",
                f"Authentication-Results: {AUTHSERV}; dmarc=pass header.from={PLAYERS}",
            ],
            "dmarc=fail",
        ),
        ([], f"no Authentication-Results header from {AUTHSERV}"),
        *[
            ([header], f"no Authentication-Results header from {AUTHSERV}")
            for header in [
                f"Authentication-Results: {AUTHSERV}.attacker.example; dmarc=pass",
                f"Authentication-Results: {AUTHSERV} 2; dmarc=pass header.from={PLAYERS}",
                'Authentication-Results: "m\\x.pamir.example"; dmarc=pass',
                # Headers the mail server does not see as ours, so its rule leaves them.
                "Authentication-Results: =?utf-8?q?mx=2Epamir=2Eexample?=; dmarc=pass",
                f"X-Note: a\rAuthentication-Results: {AUTHSERV}; dmarc=pass",
                # As deep as the inbound bounds let a field be (mail/bounds.py): deeper is
                # not read at all (the test below).
                f"Authentication-Results: {AUTHSERV}; dmarc=pass {'(' * 990}{')' * 990}",
            ]
        ],
        (
            [": a line with no field name", f"Authentication-Results: {AUTHSERV}; dmarc=pass"],
            f"no Authentication-Results header from {AUTHSERV}",
        ),
    ],
    ids=[
        *("dmarc-fail", "dkim-misaligned", "another-authserv-id", "forged-below-ours", "none"),
        *("starts-with-ours", "version-2", "quoted-pair", "encoded-word", "lone-cr"),
        *("nested-too-deep", "below-a-line-with-no-name"),
    ],
)
def test_anything_but_our_mail_servers_pass_is_refused(
    authres_table: Table, headers: list[str], why: str
) -> None:
    result, head = authres_reply(authres_table, *headers)
    assert_refused_and_unchanged(authres_table, result, head, why)
    assert len(authres_table.notices()) == 1


def test_comments_nested_past_the_bounds_are_not_read_at_all(authres_table: Table) -> None:
    deep = f"Authentication-Results: {AUTHSERV}; dmarc=pass {'(' * 5000}{')' * 5000}"
    result, head = authres_reply(authres_table, deep)
    assert result.status == "ignored" and result.reason.startswith("message too complex")
    assert authres_table.head() == head and authres_table.repo.names("moves") == []


# -- settings ------------------------------------------------------------------------------


def test_mail_auth_is_a_setting_and_authres_needs_its_server(home: Path) -> None:
    assert load_settings({"home": home}).mail_auth == "token"
    assert load_settings({"home": home}, {"PAMIR_MAIL_AUTH": "dkim"}).mail_auth == "dkim"
    with pytest.raises(SettingsError, match=r"mail_authserv_id: .*needs it"):
        load_settings({"home": home}, {"PAMIR_MAIL_AUTH": "authres"})
    with pytest.raises(SettingsError, match="mail_auth: "):
        load_settings({"home": home}, {"PAMIR_MAIL_AUTH": "spf"})
    (home / "pamir.toml").write_text(
        f'mail_auth = "authres"\nmail_authserv_id = "{AUTHSERV}"\n', encoding="utf-8"
    )
    settings = load_settings({"home": home}, {})
    assert (settings.mail_auth, settings.mail_authserv_id) == ("authres", AUTHSERV)
