"""A player's reply address and private page link can be revoked, in one game.

They are HMACs over the game, the player and a generation the service keeps
(adjudicator/home/credentials.py); the host's `pamir email` and `pamir revoke` move a
player to the next one. After that the old page link gives 410 Gone and a message to the
old reply address plays nothing, whoever sends it, while the player gets the new ones by
mail. Real HTTP, a real SMTP server, real Git, the real `pamir` command, and PostgreSQL
where it runs.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import hmac
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from gitgame import TWO, create, decider, full_state, head, isolate, opened, pamir, pamir_ok
from liveserver import fetch, serving
from mailserver import email_of, plain, reply_to
from pgserver import SECRET_KEY, scratch_database
from test_mail_in import Table, mail_table, options
from test_private_page import form_fields, post, private_path

from adjudicator.games.host import change_email
from adjudicator.games.registry import game_lock
from adjudicator.home import credentials, database, store
from adjudicator.home.logs import redact
from adjudicator.home.settings import Settings, load_settings
from adjudicator.mail import outbox, tokens
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.links import page_links
from adjudicator.mail.renewal import renew
from adjudicator.web import create_app

ROOT = Path(__file__).resolve().parents[2]
REPLACED_PAGE = "This link to your own page was replaced by a new one"


def outbox_mails(home: Path) -> list[EmailMessage]:
    """Every message the service wrote (no SMTP server configured), oldest first."""
    found: list[EmailMessage] = []
    for path in sorted((home / "outbox").rglob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        found.append(message)
    return found


# -- the tokens ------------------------------------------------------------------------------


def test_generation_zero_keeps_the_tokens_mailed_before_generations(tmp_path: Path) -> None:
    """Upgrading changes no link or reply address already mailed: a player with no recorded
    generation has exactly the tokens of the versions before generations."""
    settings = load_settings({"home": tmp_path})
    key = tokens.service_key(settings)
    before_reply = hmac.new(key, b"g1\0bob", hashlib.sha256).hexdigest()[: tokens.TOKEN_LENGTH]
    before_page = hmac.new(key, b"page\0g1\0bob", hashlib.sha256).hexdigest()[:32]
    assert tokens.token(settings, "g1", "Bob") == before_reply
    assert tokens.page_token(settings, "g1", "bob") == before_page
    assert tokens.generation(settings, "g1", "bob") == 0

    assert credentials.revoke(store.of(settings), "g1", "Bob") == 1
    reply, page = tokens.token(settings, "g1", "bob"), tokens.page_token(settings, "g1", "bob")
    assert (reply, page) != (before_reply, before_page)
    assert (
        tokens.token(settings, "g1", "alice")
        == hmac.new(key, b"g1\0alice", hashlib.sha256).hexdigest()[: tokens.TOKEN_LENGTH]
    )  # one player's change leaves the others alone
    assert re.fullmatch(r"[0-9a-f]{20}", reply) and re.fullmatch(r"[0-9a-f]{32}", page)
    stale = f"play+g1.bob.{before_reply}@pamir.example"
    fresh = tokens.reply_address(settings, "g1", "bob")
    assert tokens.read_address(settings, stale) is None
    assert tokens.read_address(settings, fresh) == ("g1", "bob")
    assert tokens.address_standing(settings, stale) == ("g1", "bob", tokens.Standing.REPLACED)
    wrong = f"play+g1.bob.{'0' * 20}@pamir.example"
    assert tokens.address_standing(settings, wrong) == ("g1", "bob", tokens.Standing.UNKNOWN)
    assert tokens.page_standing(settings, "g1", "bob", before_page) is tokens.Standing.REPLACED
    assert tokens.page_standing(settings, "g1", "bob", page) is tokens.Standing.CURRENT
    assert tokens.page_standing(settings, "g1", "alice", page) is tokens.Standing.UNKNOWN
    # A new token is one segment of hex, as the log's redaction takes it out.
    line = f"GET {page_links(settings, 'g1', 'bob').private} from {fresh}"
    assert page not in redact(line) and reply not in redact(line)


def test_a_service_key_replaced_while_the_service_runs_makes_the_tokens_after_it(
    tmp_path: Path,
) -> None:
    """The embedded mode keeps the key it read until the file is another: the tokens made
    after a host replaced `secrets/service.key` are made with the new key."""
    settings = load_settings({"home": tmp_path})
    first = tokens.token(settings, "g1", "bob")
    assert tokens.token(settings, "g1", "bob") == first
    new_key = bytes(range(32))
    store.of(settings).write(tokens.SERVICE_KEY, (new_key.hex() + "\n").encode("ascii"))
    assert tokens.service_key(settings) == new_key
    made = hmac.new(new_key, b"g1\0bob", hashlib.sha256).hexdigest()[: tokens.TOKEN_LENGTH]
    assert tokens.token(settings, "g1", "bob") == made != first
    # Written again in place, with the same length: read again all the same.
    newer = bytes(range(1, 33))
    (tmp_path / tokens.SERVICE_KEY).write_text(newer.hex() + "\n", encoding="ascii")
    assert tokens.service_key(settings) == newer


# -- the page --------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    root = isolate(tmp_path, monkeypatch)
    create(root / "games" / "g1", TWO)
    with serving(create_app({"home": root})) as url:
        yield root, url


def test_after_pamir_email_the_old_page_link_is_gone_and_moves_nothing(
    served: tuple[Path, str],
) -> None:
    """The attack: the host gives bob's seat a new address, and bob's old page still showed
    his hand and played moves, committed in the new address's name."""
    root, site = served
    path = root / "games" / "g1"
    player, moves = decider(full_state(path))
    old = f"{site}{private_path(root, 'g1', player)}"
    fields = form_fields(fetch(old).text)
    before = head(path)

    out = pamir_ok("email", path, "--as", player, "robert@example.net")

    assert "their reply address and page link are new" in out
    changed = head(path)
    for reply in (fetch(old), post(old, {**fields, "move": moves[0]})):
        assert reply.status == 410
        assert REPLACED_PAGE in reply.text
        assert "Your legal actions" not in reply.text and "<form" not in reply.text
        assert reply.headers["Cache-Control"] == "no-store"
        assert reply.headers["Referrer-Policy"] == "no-referrer"
    assert head(path) == changed != before  # the address's commit only: no move
    new = f"{site}{private_path(root, 'g1', player)}"
    assert new != old
    page = fetch(new)
    assert page.status == 200 and "Your legal actions" in page.text
    done = post(new, {**form_fields(page.text), "move": moves[0]})
    assert done.status == 200 and "Move 1 adjudicated." in done.text
    with opened(path) as repo:
        assert repo.repo.commit("main").author.email == "robert@example.net"

    # The new address was sent the new link and reply address at once, and nothing else.
    settings = load_settings({"home": root})
    notices = [m for m in outbox_mails(root) if "are new" in str(m["Subject"])]
    assert len(notices) == 1
    (notice,) = notices
    assert str(notice["To"]).endswith("<robert@example.net>")
    assert str(notice["Reply-To"]) == tokens.reply_address(settings, "g1", player)
    text = plain(notice)
    assert page_links(settings, "g1", player).private in text
    assert old.rsplit("/", 1)[1] not in text


def test_a_wrong_token_is_still_404_and_a_replaced_one_410_for_that_player_only(
    served: tuple[Path, str],
) -> None:
    root, site = served
    settings = load_settings({"home": root})
    old = tokens.page_token(settings, "g1", "bob")
    credentials.revoke(store.of(settings), "g1", "bob")
    assert fetch(f"{site}/play/g1/bob/{old}").status == 410
    assert fetch(f"{site}/play/g1/alice/{old}").status == 404  # not alice's, ever
    assert fetch(f"{site}/play/g1/bob/{'0' * 32}").status == 404
    current = tokens.page_token(settings, "g1", "bob")
    assert fetch(f"{site}/play/g1/bob/{current}").status == 200


# -- mail ------------------------------------------------------------------------------------


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    with mail_table(tmp_path, monkeypatch) as made:
        yield made


def replace_address(table: Table, player: str, address: str) -> None:
    """What `pamir email` does, in this process (whose settings name the SMTP server)."""
    with game_lock(table.settings, "g1"):
        change_email(table.repo, player, address)
        renew(table.settings, table.repo, player)
    outbox.deliver(table.settings)


def test_mail_to_a_replaced_reply_address_plays_nothing_whoever_sends_it(table: Table) -> None:
    """The old reply address with the new address as its sender (a `From` anyone can
    write, with `mail_auth = "token"`) was played before; now nothing is read. Only the
    address the game has now is told, once a day; the old address gets nothing at all."""
    player, report = table.deciding()
    move = options(report)[0] + "\n"
    replace_address(table, player, "robert@players.example")
    count, before = len(table.server.messages), table.head()

    forged = handle_message(table.settings, reply_to(report, move, sender="robert@players.example"))

    assert forged.status == "refused", forged.reason
    assert table.head() == before
    (notice,) = table.server.messages[count:]
    assert str(notice["To"]).endswith("<robert@players.example>")
    assert "replaced reply address" in str(notice["Subject"])
    assert move.strip() not in plain(notice)  # nothing the message said is repeated
    assert str(notice["Reply-To"]) == tokens.reply_address(table.settings, "g1", player)

    again = handle_message(table.settings, reply_to(report, move, sender="robert@players.example"))
    old_holder = handle_message(table.settings, reply_to(report, move))  # from the old address
    assert again.status == "refused" and old_holder.status == "ignored"
    assert len(table.server.messages) == count + 1  # one notice a day; none to the old one
    assert table.head() == before

    # The newest mail carries the new address: a reply to it plays, in the new name.
    renewed = [m for m in table.server.messages if "are new" in str(m["Subject"])]
    assert len(renewed) == 1 and str(renewed[0]["To"]).endswith("<robert@players.example>")
    done = handle_message(
        table.settings, reply_to(renewed[0], move, sender="robert@players.example")
    )
    assert done.status == "accepted", done.reason
    assert table.repo.repo.commit("main").author.email == "robert@players.example"
    # Every report since carries the new reply address and page link.
    reports = [
        m
        for m in table.server.messages
        if m["X-Pamir-Kind"] == "report" and str(m["X-Pamir-Move"]) == str(done.number)
    ]
    mine = [m for m in reports if str(m["X-Pamir-Player"]) == player]
    assert len(mine) == 1
    assert str(mine[0]["Reply-To"]) == tokens.reply_address(table.settings, "g1", player)
    assert page_links(table.settings, "g1", player).private in plain(mine[0])
    assert str(report["Reply-To"]) not in plain(mine[0])


def test_a_replaced_reply_address_with_a_wrong_sender_or_an_auto_reply_is_ignored(
    table: Table,
) -> None:
    _, report = table.deciding()
    other = "alice" if str(report["X-Pamir-Player"]) == "bob" else "bob"
    player = str(report["X-Pamir-Player"])
    with game_lock(table.settings, "g1"):
        credentials.revoke(store.of(table.settings), "g1", player)
    count = len(table.server.messages)
    strangers = [
        reply_to(report, "pass\n", sender=email_of(other)),
        reply_to(report, "pass\n", extra_headers={"Auto-Submitted": "auto-replied"}),
    ]
    for raw in strangers:
        result = handle_message(table.settings, raw)
        assert result.status == "ignored" and "not answered" in result.reason, result
    assert len(table.server.messages) == count


# -- the command line ------------------------------------------------------------------------


def test_pamir_revoke_replaces_a_players_credentials_and_mails_the_new_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = isolate(tmp_path, monkeypatch)
    path = create(root / "games" / "g1", TWO)
    settings = load_settings({"home": root})
    old_page = tokens.page_token(settings, "g1", "bob")
    old_reply = tokens.reply_address(settings, "g1", "bob")
    alice = tokens.reply_address(settings, "g1", "alice")
    before = head(path)

    out = pamir_ok("revoke", path, "--as", "Bob")

    assert out == (
        "g1: bob's reply address and page link are replaced (generation 1): the old ones "
        "are refused, and the new ones are sent to bob@example.org\n"
    )
    assert head(path) == before  # nothing committed
    assert tokens.page_standing(settings, "g1", "bob", old_page) is tokens.Standing.REPLACED
    assert tokens.read_address(settings, old_reply) is None
    assert tokens.read_address(settings, alice) == ("g1", "alice")
    (notice,) = outbox_mails(root)
    assert str(notice["To"]).endswith("<bob@example.org>")
    assert str(notice["Reply-To"]) == tokens.reply_address(settings, "g1", "bob")
    assert page_links(settings, "g1", "bob").private in plain(notice)
    assert "generation 2" in pamir_ok("revoke", path, "--as", "bob")

    refused = pamir("revoke", path, "--as", "zoe")
    assert refused.returncode == 2 and "no player is called 'zoe'" in refused.stderr


def test_the_usage_of_pamir_revoke_is_the_one_documented() -> None:
    shown = pamir("revoke", "--help").stdout
    usage = shown.split("\n\n", 1)[0].strip()
    documented = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert f"## pamir revoke\n\n```text\n{usage}\n```" in documented


# -- PostgreSQL mode -------------------------------------------------------------------------


@pytest.fixture
def database_url() -> Iterator[str]:
    with scratch_database() as url:
        yield url


def node(home: Path, database_url: str) -> Settings:
    settings = load_settings({"home": home, "database_url": database_url, "secret_key": SECRET_KEY})
    database.upgrade(settings)
    return settings


def test_every_node_refuses_what_one_node_revoked(tmp_path: Path, database_url: str) -> None:
    a, b = node(tmp_path / "a", database_url), node(tmp_path / "b", database_url)
    old = tokens.reply_address(a, "g1", "bob")
    assert tokens.read_address(b, old) == ("g1", "bob")
    credentials.revoke(store.of(a), "g1", "bob")
    assert tokens.read_address(b, old) is None
    assert tokens.read_address(b, tokens.reply_address(a, "g1", "bob")) == ("g1", "bob")
    assert not (tmp_path / "a" / "credentials").exists()  # in the database, not the home


def test_import_home_copies_the_generations(tmp_path: Path, database_url: str) -> None:
    embedded = tmp_path / "embedded"
    settings = load_settings({"home": embedded})
    credentials.revoke(store.of(settings), "g1", "bob")
    env = {"PAMIR_DATABASE_URL": database_url, "PAMIR_SECRET_KEY": SECRET_KEY}
    assert pamir("db", "upgrade", env=env).returncode == 0
    done = pamir("db", "import-home", str(embedded), env=env)
    assert done.returncode == 0, done.stderr
    assert credentials.generation(store.of(node(tmp_path / "n", database_url)), "g1", "bob") == 1


def test_the_record_holds_generations_only(tmp_path: Path) -> None:
    """Numbers by player, in lower case: nothing secret, nothing of when or why."""
    settings = load_settings({"home": tmp_path})
    credentials.revoke(store.of(settings), "g1", "Bob")
    credentials.revoke(store.of(settings), "g1", "bob")
    text = (tmp_path / "credentials" / "g1.json").read_text(encoding="utf-8")
    assert text == '{\n  "bob": 2\n}\n'
