"""The service's records (adjudicator/home/store.py): files under PAMIR_HOME, or rows of
PostgreSQL mode's database, sealed where secret; and nodes with a PAMIR_HOME each, sharing
one database and one forge (adjudicator/games/hosting.py)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import psycopg
import pytest
from gitgame import SECRET, git, pamir, show
from mailserver import mail_server, plain, reply_to, settings_for
from pgserver import SECRET_KEY, Node, scratch_database, wait_for
from test_cluster import node_env, node_home
from test_mail_in import OPTION
from test_webhooks import Hosted, deliver, host_game, push_move

from adjudicator.forge import remote
from adjudicator.games import hosting
from adjudicator.games.outputs import Adjudication
from adjudicator.games.registry import game_path, open_game
from adjudicator.games.repo import GameRepo
from adjudicator.games.seeds import load_secret
from adjudicator.home import backend, database, store
from adjudicator.home.settings import Settings, SettingsError, load_settings
from adjudicator.mail import ledger, report_mails
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.outcomes import ForgeUnavailable

pytestmark = pytest.mark.usefixtures("home")

OTHER_KEY = "b3RoZXIta2V5LWZvci10aGUtcGFtaXItdGVzdHMhISE="


@pytest.fixture
def database_url() -> Iterator[str]:
    with scratch_database() as url:
        yield url


def node_settings(home: Path, database_url: str, key: str | None = SECRET_KEY) -> Settings:
    """A node's settings, its home its own, the database's schema made."""
    extra = {} if key is None else {"secret_key": key}
    settings = load_settings({"home": home, "database_url": database_url, **extra})
    database.upgrade(settings)
    backend.of(settings).check()  # as a node does when it starts
    return settings


# -- the files' store: the embedded mode's layout ---------------------------------------------


def test_the_file_store_keeps_the_embedded_layout(tmp_path: Path) -> None:
    files = store.FileStore(tmp_path)
    files.write("mail/ledger/g1.json", b"{}\n")
    assert (tmp_path / "mail" / "ledger" / "g1.json").read_bytes() == b"{}\n"
    assert files.create("secrets/g1.secret", b"one\n") == b"one\n"
    assert files.create("secrets/g1.secret", b"two\n") == b"one\n"  # the first one stays
    assert (tmp_path / "secrets" / "g1.secret").stat().st_mode & 0o777 == 0o600
    assert files.names("secrets") == ["secrets/g1.secret"]  # no temporary file left
    assert files.read("secrets/none") is None
    assert files.delete("secrets/g1.secret") and not files.delete("secrets/g1.secret")
    for bad in ("../x", "/etc/passwd", "a//b", "a/.lock", ""):
        with pytest.raises(store.StoreError):
            files.read(bad)


def test_a_secret_key_must_be_32_bytes_of_base64(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="32 bytes in base64"):
        load_settings({"home": tmp_path, "secret_key": "not a key"})
    shown = repr(load_settings({"home": tmp_path, "secret_key": SECRET_KEY}))
    assert SECRET_KEY not in shown  # never printed with the settings


# -- the database's store ---------------------------------------------------------------------


def test_the_database_store_seals_secrets_and_keeps_the_rest_plain(
    tmp_path: Path, database_url: str
) -> None:
    settings = node_settings(tmp_path / "a", database_url)
    records = store.of(settings)
    assert isinstance(records, store.DatabaseStore)
    records.write("secrets/g1.secret", b"the-deck-order-secret\n")
    records.write("private/g1/0001-alice.md", b"alice's hand\n")
    records.write("mail/ledger/g1.json", b'{"commit": "abc"}\n')
    assert records.read("secrets/g1.secret") == b"the-deck-order-secret\n"
    assert records.create("secrets/g1.secret", b"other\n") == b"the-deck-order-secret\n"
    assert records.names("private/g1") == ["private/g1/0001-alice.md"]
    assert records.names("private") == []  # only what is directly in the folder
    with psycopg.connect(database_url) as connection:
        rows: dict[str, bytes] = dict(
            connection.execute("SELECT name, data FROM pamir_store").fetchall()
        )
    assert b"the-deck-order-secret" not in rows["secrets/g1.secret"]
    assert b"alice's hand" not in rows["private/g1/0001-alice.md"]
    assert rows["mail/ledger/g1.json"] == b'{"commit": "abc"}\n'
    assert not (tmp_path / "a" / "secrets").exists()  # nothing in the node's files
    records.delete_folder("private/g1")
    assert records.read("private/g1/0001-alice.md") is None


def test_a_node_refuses_to_start_without_the_key_or_with_another(
    tmp_path: Path, database_url: str
) -> None:
    first = node_settings(tmp_path / "a", database_url)
    store.of(first).write("secrets/g1.secret", b"secret\n")
    with pytest.raises(database.DatabaseError, match="PAMIR_SECRET_KEY is not set"):
        node_settings(tmp_path / "b", database_url, key=None)
    with pytest.raises(database.DatabaseError, match="not the key the database's secrets"):
        node_settings(tmp_path / "c", database_url, key=OTHER_KEY)
    env = {"PAMIR_DATABASE_URL": database_url, "PAMIR_SECRET_KEY": OTHER_KEY}
    done = pamir("serve", "--port", "0", env=env)
    assert done.returncode == 2
    assert "not the key the database's secrets were sealed with" in done.stderr
    # Rotation: every sealed record encrypted again under a new key, in one go.
    env = {"PAMIR_DATABASE_URL": database_url, "PAMIR_SECRET_KEY": SECRET_KEY}
    rekeyed = pamir("db", "rekey", env={**env, "PAMIR_NEW_SECRET_KEY": OTHER_KEY})
    assert rekeyed.returncode == 0, rekeyed.stderr
    assert "sealed again" in rekeyed.stdout
    with pytest.raises(database.DatabaseError, match="not the key"):
        node_settings(tmp_path / "d", database_url)
    after = node_settings(tmp_path / "e", database_url, key=OTHER_KEY)
    assert store.of(after).read("secrets/g1.secret") == b"secret\n"


def test_a_push_whose_record_was_lost_is_known_as_the_services_own(
    tmp_path: Path, home: Path, database_url: str
) -> None:
    """A node pushed an adjudication and died before it wrote the forge record: another
    node's clone, behind, knows the commit as the service's by its signature, rather than
    restoring the files and adjudicating the move again."""
    a = node_settings(home, database_url)
    game = host_game(tmp_path, a)
    b = node_settings(tmp_path / "b", database_url)
    behind = game_path(b, game.game_id)  # node b's clone: the new game
    assert behind is not None
    record = f"forge/{game.game_id}.json"
    before = store.of(a).read(record)
    assert before is not None
    push_move(game)
    ahead = GameRepo(game.service)
    try:
        assert [d.number for d in remote.update(ahead, a.home).results] == [1]
    finally:
        ahead.repo.close()
    store.of(a).write(record, before)  # as if node a had died before recording its push
    push_move(game)
    clone = GameRepo(behind)
    try:
        done = remote.update(clone, b.home)
    finally:
        clone.repo.close()
    assert [d.number for d in done.results] == [2] and done.restored == []
    moves = git(game.origin, "log", "--format=%(trailers:key=Pamir-Move,valueonly)")
    assert sorted(moves.split()) == ["0", "1", "2"]


def test_a_home_kept_as_files_is_imported_into_the_database(
    tmp_path: Path, home: Path, database_url: str
) -> None:
    embedded = load_settings({"home": home})  # one machine: everything in files
    game = host_game(tmp_path, embedded)
    assert (home / "secrets" / f"{game.game_id}.secret").is_file()
    env = {"PAMIR_DATABASE_URL": database_url, "PAMIR_SECRET_KEY": SECRET_KEY}
    assert pamir("db", "upgrade", env=env).returncode == 0
    done = pamir("db", "import-home", str(home), env=env)
    assert done.returncode == 0, done.stderr
    assert "games registered" in done.stdout
    node = node_settings(tmp_path / "node", database_url)
    assert hosting.registered(node) == {game.game_id: str(game.origin)}
    assert load_secret(node.home, game.game_id) == SECRET
    key = home / "keys" / "adjudicator" / "id_ed25519"
    assert store.of(node).read("keys/adjudicator/id_ed25519") == key.read_bytes()
    forge_record = store.of(node).read(f"forge/{game.game_id}.json")
    assert forge_record == (home / "forge" / f"{game.game_id}.json").read_bytes()
    again = pamir("db", "import-home", str(home), env=env)
    assert f"left alone (the database has it already): secrets/{game.game_id}.secret" in (
        again.stdout
    )


def test_the_registry_names_every_game_and_a_node_clones_what_it_lacks(
    tmp_path: Path, database_url: str
) -> None:
    a = node_settings(tmp_path / "a", database_url)
    game = host_game(tmp_path, a)
    assert hosting.registered(a) == {game.game_id: str(game.origin)}
    b = node_settings(tmp_path / "b", database_url)
    assert not (b.games_dir / game.game_id).exists()
    found = game_path(b, game.game_id)  # asked for it: cloned from the forge
    assert found == b.games_dir / game.game_id and found.is_dir()
    assert show(found, "main", "game.toml") == show(game.origin, "main", "game.toml")
    shutil.rmtree(found)
    assert hosting.rebuild(b) == [game.game_id]  # a node that starts empty


def test_a_clone_behind_the_ledger_leaves_it_alone(
    tmp_path: Path, home: Path, database_url: str
) -> None:
    a = node_settings(home, database_url)  # the players' helpers read the game from it
    game = host_game(tmp_path, a)
    b = node_settings(tmp_path / "b", database_url)
    behind = game_path(b, game.game_id)
    assert behind is not None
    ledger_name = f"mail/ledger/{game.game_id}.json"
    # Node a adjudicates a move and pushes it; node b has not fetched since.
    push_move(game)
    ahead = GameRepo(game.service)
    try:
        ledger.reconcile(a, ahead)  # starts the ledger at the game's creation
        ledger.announce(a, ahead, remote.update(ahead, a.home))
        pushed = ahead.head()
    finally:
        ahead.repo.close()
    assert json.loads(store.of(a).read(ledger_name) or b"")["commit"] == pushed
    stale = GameRepo(behind)
    try:
        assert ledger.reconcile(b, stale) == []
    finally:
        stale.repo.close()
    assert json.loads(store.of(b).read(ledger_name) or b"")["commit"] == pushed  # not moved back


def test_a_history_the_forge_reset_is_followed_by_the_ledger(
    tmp_path: Path, home: Path, database_url: str
) -> None:
    """A ledger's commit this clone knows but that the head no longer descends from (the
    forge's history was reset) is not taken for a clone behind: the ledger goes on, as on
    one machine, rather than stopping the game's mail for good."""
    a = node_settings(home, database_url)
    game = host_game(tmp_path, a)
    push_move(game)
    ahead = GameRepo(game.service)
    try:
        ledger.reconcile(a, ahead)
        ledger.announce(a, ahead, remote.update(ahead, a.home))
        pushed = ahead.head()
        assert pushed is not None and ledger.mailed_up_to(a, game.game_id) == pushed
        [before] = ahead.parents(pushed)
        assert ledger._follows_ledger(a, ahead, game.game_id, before)
    finally:
        ahead.repo.close()


def test_nodes_with_homes_of_their_own_share_a_game_through_the_database_and_forge(
    tmp_path: Path, home: Path, database_url: str
) -> None:
    """A game set up on node a is played through node b, which starts with an empty home."""
    a = node_settings(home, database_url)
    game = host_game(tmp_path, a)
    home_b = tmp_path / "b" / "home"
    home_b.mkdir(parents=True)
    with mail_server() as smtp:
        env = {**node_env(database_url, smtp.port), "PAMIR_SECRET_KEY": SECRET_KEY}
        b = Node("b", home_b, env, scheduler=False)
        try:
            push_move(game)
            done = deliver(b.url, game, "d-1")
            assert done.status == 200 and done.json()["adjudicated"] == [1], (done.text, b.tail())
            wait_for(lambda: _reports(smtp.messages) == 2, 30, "move 1's reports")
        finally:
            b.stop()
    assert _adjudicated_to(game) == 1
    assert (home_b / "games" / game.game_id).is_dir()  # its own clone, made from the forge
    for folder in ("secrets", "private", "mail", "forge", "needs-host", "scheduler"):
        kept = [p for p in (home_b / folder).rglob("*") if p.is_file()]
        assert kept == [], folder  # all of it in the database
    with psycopg.connect(database_url) as connection:
        rows: dict[str, bytes] = dict(
            connection.execute("SELECT name, data FROM pamir_store").fetchall()
        )
    assert SECRET.encode() not in b"".join(rows.values())
    assert any(name.startswith("private/g1/0001-") for name in rows)


def test_a_node_that_died_after_its_push_has_its_mails_queued_by_the_redelivery(
    tmp_path: Path, home: Path, database_url: str
) -> None:
    """Node a pushes the adjudication, records the delivery and dies before queuing the
    mails; the forge's redelivery to node b (whose clone lacks the commit) queues them."""
    setup = node_settings(home, database_url)
    game = host_game(tmp_path, setup)
    with mail_server() as smtp:
        env = {**node_env(database_url, smtp.port), "PAMIR_SECRET_KEY": SECRET_KEY}
        homes = {name: node_home(tmp_path, name) for name in ("a", "b")}
        a = Node("a", homes["a"], {**env, "PAMIR_FAULT": "before-queue"}, scheduler=False)
        b = Node("b", homes["b"], env, scheduler=False)
        try:
            cloned = homes["b"] / "games" / game.game_id
            wait_for(cloned.is_dir, 30, "node b to clone the game as it starts")
            push_move(game)
            with pytest.raises(Exception):  # noqa: B017 - the node dies under the request
                deliver(a.url, game, "d-1")
            assert a.process.wait(30) == 70
            assert _adjudicated_to(game) == 1  # pushed, but no mail queued
            again = deliver(b.url, game, "d-1")
            assert again.status == 200 and again.json()["duplicate"] is True, again.text
            wait_for(lambda: _reports(smtp.messages) == 2, 30, "move 1's reports")
            time.sleep(1.0)
            assert _reports(smtp.messages) == 2  # once each
        finally:
            a.stop()
            b.stop()


def test_an_emailed_move_the_forge_did_not_get_is_left_to_the_mail_server(
    tmp_path: Path, home: Path, database_url: str
) -> None:
    """Nobody is told of a move that is in one node's clone only: it would die with it."""
    with mail_server() as server:
        settings = settings_for(home, server.port, database_url=database_url, secret_key=SECRET_KEY)
        database.upgrade(settings)
        backend.of(settings).check()
        hosted = host_game(tmp_path, settings)
        repo = open_game(settings, hosted.game_id)
        try:
            head = repo.head()
            assert head is not None
            report = repo.read("reports/0000.md", head) or ""
            report_mails.notify(settings, repo, [Adjudication(0, head, report)])
        finally:
            repo.repo.close()
        asked = next(m for m in server.messages if "It is your decision." in plain(m))
        raw = reply_to(asked, OPTION.findall(plain(asked))[0])
        before = len(server.messages)
        away = hosted.origin.rename(hosted.origin.with_name("away.git"))  # the forge is down
        with pytest.raises(ForgeUnavailable):
            handle_message(settings, raw)
        with pytest.raises(ForgeUnavailable):  # the mail server tries again: still down
            handle_message(settings, raw)
        time.sleep(0.5)
        assert len(server.messages) == before  # no answer, no report
        away.rename(hosted.origin)
        again = handle_message(settings, raw)  # and again, the forge back
        assert again.status == "accepted", again.reason
        assert _adjudicated_to(hosted) == 1
        wait_for(lambda: len(server.messages) > before, 30, "the move's mails")


def _reports(messages: list[EmailMessage]) -> int:
    return sum(1 for m in messages if m["X-Pamir-Kind"] == "report")


def _adjudicated_to(game: Hosted) -> int:
    return int(json.loads(show(game.origin, "main", "state.json"))["move"])
