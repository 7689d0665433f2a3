"""PostgreSQL mode on a real server: the schema, the locks, the one scheduler, and two
`pamir serve` nodes taking pushes for the same games, one of them killed mid-adjudication.

The nodes share one database (docs/cluster.md), each with a PAMIR_HOME of its own; the
games live on a forge simulated by local bare repositories, as in test_webhooks.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import psycopg
import pytest
from gitgame import decider, git, head, opened, pamir, push, show
from liveserver import Reply
from mailserver import mail_server, new_game, plain, reply_address, reply_to, settings_for
from pgserver import (
    SECRET_KEY,
    SERVER_URL,
    Node,
    advisory_locks,
    holders,
    scratch_database,
    wait_for,
)
from psycopg import sql
from test_mail_in import OPTION
from test_signatures import make_key, public
from test_webhooks import (
    GITHUB_SECRET,
    Hosted,
    deliver,
    host_game,
    player_clone,
    push_move,
    state_after_pushes,
)

from adjudicator.forge import remote, transport
from adjudicator.games import hosting
from adjudicator.home import backend, database, locks, nodes
from adjudicator.home.settings import Settings, SettingsError, load_settings
from adjudicator.mail import ledger, report_mails
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.outcomes import ForgeUnavailable, InboundResult
from adjudicator.schedule.leader import LEADER_LOCK
from adjudicator.web import create_app

pytestmark = pytest.mark.usefixtures("home", "secret_key")


@pytest.fixture
def secret_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The key the database's secrets are sealed with, for this process and its nodes."""
    monkeypatch.setenv("PAMIR_SECRET_KEY", SECRET_KEY)
    return SECRET_KEY


@pytest.fixture
def database_url() -> Iterator[str]:
    with scratch_database() as url:
        yield url


@pytest.fixture
def clustered(home: Path, database_url: str) -> Settings:
    """The settings of a node on the scratch database, its schema made."""
    settings = load_settings({"home": home, "database_url": database_url})
    database.upgrade(settings)
    return settings


def test_the_database_url_must_be_a_postgresql_one(home: Path) -> None:
    with pytest.raises(SettingsError, match="database_url"):
        load_settings({"home": home, "database_url": "sqlite:///pamir.db"})
    assert load_settings({"home": home}).database_url is None  # the embedded default


def test_db_upgrade_makes_the_schema_once(home: Path, database_url: str) -> None:
    env = {"PAMIR_DATABASE_URL": database_url}
    first = pamir("db", "upgrade", env=env)
    assert first.returncode == 0, first.stderr
    assert "applied schema version 1: nodes and webhook deliveries" in first.stdout
    again = pamir("db", "upgrade", env=env)
    assert again.returncode == 0, again.stderr
    assert "applied" not in again.stdout
    assert f"at version {database.SCHEMA_VERSION}" in again.stdout
    with psycopg.connect(database_url) as connection:
        rows = connection.execute("SELECT version FROM pamir_schema").fetchall()
    assert rows == [(step.version,) for step in database.MIGRATIONS]


def test_db_upgrade_without_a_database_is_refused(home: Path) -> None:
    done = pamir("db", "upgrade")
    assert done.returncode == 2
    assert "PAMIR_DATABASE_URL" in done.stderr


def test_a_node_refuses_a_database_without_its_schema(home: Path, database_url: str) -> None:
    with pytest.raises(database.DatabaseError, match="pamir db upgrade"):
        create_app({"home": home, "database_url": database_url})
    done = pamir("serve", "--port", "0", env={"PAMIR_DATABASE_URL": database_url})
    assert done.returncode == 2
    assert "run `pamir db upgrade`" in done.stderr


def test_healthz_reports_the_forge_as_the_node_last_reached_it(
    tmp_path: Path, clustered: Settings
) -> None:
    game = host_game(tmp_path, clustered)
    client = create_app({"home": clustered.home, "database_url": clustered.database_url})
    with opened(game.service) as repo:
        remote.update(repo, clustered.home)
        assert client.test_client().get("/healthz").get_json()["forge"]["status"] == "ok"
        game.origin.rename(game.origin.with_name("moved.git"))  # the forge is gone
        with pytest.raises(transport.RemoteError):
            remote.update(repo, clustered.home)
    reply = client.test_client().get("/healthz")
    assert reply.status_code == 200  # the forge's trouble is every node's: stay in service
    forge = reply.get_json()["forge"]
    assert forge["status"] == "unreachable" and forge["game"] == game.game_id
    assert "cannot fetch" in forge["error"] and forge["last_ok"] is not None
    nodes.stop_heartbeat(clustered)


def test_a_node_refuses_a_schema_newer_than_its_code(clustered: Settings) -> None:
    with psycopg.connect(str(clustered.database_url), autocommit=True) as connection:
        connection.execute("INSERT INTO pamir_schema (version, description) VALUES (99, 'x')")
    with pytest.raises(database.DatabaseError, match="newer than this pamir"):
        database.require_schema(clustered)
    done = pamir("db", "upgrade", env={"PAMIR_DATABASE_URL": str(clustered.database_url)})
    assert done.returncode == 2 and "upgrade pamir on this node" in done.stderr


def test_nodes_without_a_database_is_refused(home: Path) -> None:
    done = pamir("nodes")
    assert done.returncode == 2
    assert "no database is configured" in done.stderr


def test_healthz_reports_the_database_and_fails_without_it(
    clustered: Settings, database_url: str
) -> None:
    app = create_app({"home": clustered.home, "database_url": database_url, "node_name": "n1"})
    client = app.test_client()
    ok = client.get("/healthz")
    assert ok.status_code == 200
    shown = ok.get_json()
    assert (shown["status"], shown["node"], shown["database"]) == ("ok", "n1", "ok")
    assert "status" in shown["forge"]  # as this process last fetched (tested below)
    with psycopg.connect(SERVER_URL, autocommit=True) as admin:  # the database goes away
        name = database_url.rsplit("/", 1)[-1]
        admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
    gone = client.get("/healthz")
    assert gone.status_code == 503
    assert gone.get_json()["status"] == "unavailable"
    assert gone.get_json()["database"] != "ok"
    nodes.stop_heartbeat(
        load_settings({"home": clustered.home, "database_url": database_url, "node_name": "n1"})
    )


def test_every_request_is_answered_503_while_the_database_is_away(
    tmp_path: Path, database_url: str
) -> None:
    """A node that loses its database fails each request whole and says so as temporary
    (503, Retry-After), to the mail gateway as to a reader, and soon, never after the
    pool's minute: the gateway delivers again, a load balancer sends players elsewhere."""
    with mail_server() as server:
        settings = settings_for(
            tmp_path / "node", server.port, database_url=database_url, secret_key=SECRET_KEY
        )
        database.upgrade(settings)
        backend.of(settings).check()
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        game_id = repo.path.name
        repo.repo.close()
        report = next(m for m in server.messages if "It is your decision." in plain(m))
        raw = reply_to(report, OPTION.findall(plain(report))[0])
        client = create_app({"home": settings.home, "database_url": database_url}).test_client()
        assert client.get(f"/games/{game_id}").status_code == 200
        with psycopg.connect(SERVER_URL, autocommit=True) as admin:  # the database goes away
            name = database_url.rsplit("/", 1)[-1]
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
        mailed = client.post("/inbound/email", data=raw)
        assert mailed.status_code == 503, mailed.data
        assert mailed.headers["Retry-After"] and "try again later" in mailed.get_json()["error"]
        for path in ("/", f"/games/{game_id}", "/"):  # the pool's connections lost by now
            started = time.monotonic()
            page = client.get(path)
            assert page.status_code == 503 and page.headers["Retry-After"], path
            assert b"503" in page.data
            assert time.monotonic() - started < 15, path
    nodes.stop_heartbeat(settings)
    database.close_pools()


def test_a_node_refuses_a_database_it_cannot_reach(home: Path) -> None:
    unreachable = "postgresql://postgres@127.0.0.1:1/pamir?connect_timeout=2"
    settings = load_settings({"home": home, "database_url": unreachable})
    with (
        pytest.raises(database.DatabaseError, match="cannot connect"),
        locks.exclusive(settings, "game:g1", home / "locks" / "g1.lock"),
    ):
        pass  # never falls back to the file lock
    assert not (home / "locks" / "g1.lock").exists()
    database.close_pools()


def test_the_embedded_mode_never_loads_the_database_client(home: Path) -> None:
    probe = (
        "import sys\n"
        "import adjudicator.cli.service, adjudicator.hooks.receive, adjudicator.mail.incoming\n"
        "import adjudicator.web.serve\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0].startswith('psycopg')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def test_an_email_taken_by_two_nodes_at_once_is_played_once(
    tmp_path: Path, database_url: str
) -> None:
    with mail_server() as server:
        settings = settings_for(
            tmp_path / "shared-home", server.port, database_url=database_url, secret_key=SECRET_KEY
        )
        database.upgrade(settings)
        backend.of(settings).check()  # as a node does when it starts
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        report = next(m for m in server.messages if "It is your decision." in plain(m))
        found = OPTION.findall(plain(report))
        raw = reply_to(report, found[0])
        start = threading.Barrier(2)
        results: list[InboundResult] = []

        def node() -> None:  # each thread stands for a node taking the same message
            start.wait()
            results.append(handle_message(settings, raw))

        threads = [threading.Thread(target=node) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        repo.repo.close()
        assert sorted(r.status for r in results) == ["accepted", "accepted"]
        assert sorted(r.duplicate for r in results) == [False, True]
        sent = [str(m["Message-ID"]) for m in server.messages]
        assert len(sent) > 2 and len(set(sent)) == len(sent)  # the move's mails, once each
    with psycopg.connect(database_url) as connection:
        rows = connection.execute("SELECT record FROM pamir_inbound_messages").fetchall()
    assert [r[0]["status"] for r in rows] == ["accepted"]
    assert not (settings.home / "mail" / "inbound").exists()  # not in files


HOLD = """
import sys, time
from adjudicator.games.registry import game_lock
from adjudicator.home.settings import load_settings
settings = load_settings({"home": sys.argv[1], "database_url": sys.argv[2]})
with game_lock(settings, "g1"):
    print("held", flush=True)
    time.sleep(600)
"""


def test_a_game_lock_excludes_other_processes_and_dies_with_its_holder(
    clustered: Settings, database_url: str
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(clustered.home), database_url],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        taken = threading.Event()

        def take() -> None:
            with locks.exclusive(clustered, "game:g1", clustered.home / "unused.lock"):
                taken.set()

        waiter = threading.Thread(target=take)
        waiter.start()
        assert not taken.wait(1.0)  # the other process holds it
        assert len(holders(database_url, "game:g1")) == 1
        holder.kill()  # SIGKILL: no unlock, no cleanup; the server releases the lock
        assert taken.wait(10.0)
        waiter.join(10)
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert holders(database_url, "game:g1") == []
    assert not (clustered.home / "locks").exists()  # the files are not used at all


def test_one_thread_holds_its_nested_locks_on_one_connection(clustered: Settings) -> None:
    path = clustered.home / "unused.lock"
    with locks.exclusive(clustered, "game:a", path), locks.exclusive(clustered, "ledger:a", path):
        names = [name for _, name in advisory_locks(str(clustered.database_url))]
        assert len(names) == 2 and len(set(names)) == 1
    assert advisory_locks(str(clustered.database_url)) == []


def test_a_thread_holding_a_lock_queries_on_the_same_connection(clustered: Settings) -> None:
    # A thread never waits for a second connection while it holds one: a full pool cannot
    # deadlock threads that hold game locks and record a webhook delivery meanwhile.
    path = clustered.home / "unused.lock"
    with locks.exclusive(clustered, "game:a", path), database.connection(clustered) as inner:
        row = inner.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = %s",
            (inner.info.backend_pid,),
        ).fetchone()
        assert row == (1,)


def test_the_server_finds_a_lost_machines_sessions_within_seconds(clustered: Settings) -> None:
    with database.connection(clustered) as connection:
        shown = [
            connection.execute(f"SHOW {name}").fetchone()
            for name in ("tcp_keepalives_idle", "tcp_keepalives_count", "tcp_user_timeout")
        ]
    assert shown == [("10",), ("3",), ("25000",)]  # tcp_user_timeout in milliseconds


def node_env(database_url: str, smtp_port: int) -> dict[str, str]:
    return {
        "PAMIR_DATABASE_URL": database_url,
        "PAMIR_GITHUB_SECRET": GITHUB_SECRET,
        "PAMIR_SMTP_HOST": "127.0.0.1",
        "PAMIR_SMTP_PORT": str(smtp_port),
        "PAMIR_SMTP_SECURITY": "none",
        "PAMIR_MAIL_FROM": "pamir@pamir.example",
        "PAMIR_SECRET_KEY": SECRET_KEY,
    }


def leader(database_url: str) -> str | None:
    found = holders(database_url, LEADER_LOCK)
    assert len(found) <= 1, found  # never two active schedulers
    return found[0].rsplit(" ", 1)[-1] if found else None


def test_exactly_one_scheduler_runs_and_another_node_takes_over(
    tmp_path: Path, clustered: Settings, database_url: str
) -> None:
    env = node_env(database_url, 1)
    nodes = {
        name: Node(name, node_home(tmp_path, name), env, scheduler=True) for name in ("n1", "n2")
    }
    try:
        wait_for(lambda: leader(database_url) is not None, 20, "a scheduler leader")
        first = leader(database_url)
        assert first in nodes
        listing = pamir("nodes", env={"PAMIR_DATABASE_URL": database_url})
        assert listing.returncode == 0, listing.stderr
        assert f"scheduler leader: {first}" in listing.stdout
        assert "n1" in listing.stdout and "n2" in listing.stdout

        nodes[str(first)].kill()
        other = next(name for name in nodes if name != first)
        wait_for(lambda: leader(database_url) == other, 20, f"{other} to take over")
        for _ in range(20):  # and it stays the only one
            assert leader(database_url) == other
            time.sleep(0.05)
    finally:
        for node in nodes.values():
            node.stop()


def reports(messages: list[EmailMessage]) -> Counter[tuple[str, str, str]]:
    """Report mails received, by (game, move, player)."""
    return Counter(
        (str(m["X-Pamir-Game"]), str(m["X-Pamir-Move"]), str(m["X-Pamir-Player"]))
        for m in messages
        if m["X-Pamir-Kind"] == "report"
    )


SLOW_FORGE = """#!/bin/sh
# The forge takes its time over the service's pushes while the marker file exists.
here="$(dirname "$0")/.."
if [ -e "$here/slow" ]; then touch "$here/pushing"; sleep 30; fi
exit 0
"""


def test_two_nodes_share_games_and_a_node_killed_mid_adjudication_loses_nothing(
    tmp_path: Path, clustered: Settings, database_url: str
) -> None:
    game = host_game(tmp_path, clustered)
    hook = game.origin / "hooks" / "pre-receive"
    hook.write_text(SLOW_FORGE, encoding="utf-8")
    hook.chmod(0o755)
    homes = {name: node_home(tmp_path, name) for name in ("n1", "n2")}
    with mail_server() as smtp:
        env = node_env(database_url, smtp.port)
        one, two = (Node(name, homes[name], env, scheduler=False) for name in ("n1", "n2"))
        try:
            # Move 1 through node one; the same delivery to node two is a duplicate.
            push_move(game)
            first = deliver(one.url, game, "d-1")
            assert first.status == 200 and first.json()["adjudicated"] == [1], first.text
            again = deliver(two.url, game, "d-1")
            assert again.json()["duplicate"] is True and again.json()["adjudicated"] == [1]
            # Move 2 through node two.
            push_move(game)
            assert deliver(two.url, game, "d-2").json()["adjudicated"] == [2]

            # Move 3: node one adjudicates it, and is killed while it pushes the result to
            # the (slow) forge, holding the game's lock.
            push_move(game)
            (game.origin / "slow").touch()
            replies: list[Reply | Exception] = []
            slow = threading.Thread(target=_deliver_into, args=(replies, one.url, game, "d-3"))
            slow.start()
            wait_for(lambda: _pushing(game), 30, "node one to push move 3's adjudication")
            assert len(holders(database_url, f"game:{game.game_id}")) == 1
            one.kill()
            slow.join(30)
            (game.origin / "slow").unlink()
            assert isinstance(replies[0], Exception), replies  # no answer: the forge retries
            assert holders(database_url, f"game:{game.game_id}") == []  # nothing left held
            assert _adjudicated_to(game) == 2  # it never reached the forge

            # The forge delivers again, to the node that is left.
            redelivered = deliver(two.url, game, "d-3")
            assert redelivered.status == 200, redelivered.text
            assert _adjudicated_to(game) == 3, redelivered.text
            # Once: node two's own (node one's died with its clone, never pushed or mailed).
            moves = git(game.origin, "log", "--format=%(trailers:key=Pamir-Move,valueonly)")
            assert sorted(moves.split()) == ["0", "1", "2", "3"]  # 0: the new game
            wait_for(lambda: len(reports(smtp.messages)) == 3 * 2, 30, "every report")
            time.sleep(1.0)  # a second copy would have come by now
            counted = reports(smtp.messages)
            assert sorted(counted) == [
                (game.game_id, str(n), p) for n in (1, 2, 3) for p in ("alice", "bob")
            ]
            assert set(counted.values()) == {1}, counted  # none twice
            assert advisory_locks(database_url) == []
            with psycopg.connect(database_url) as connection:
                rows = connection.execute("SELECT delivery FROM pamir_webhook_deliveries")
                assert sorted(r[0] for r in rows) == ["github:d-1", "github:d-2", "github:d-3"]
            for home in homes.values():
                assert not (home / "webhooks").exists()  # not in files
                assert not (home / "secrets").exists() and not (home / "private").exists()
        finally:
            one.stop()
            two.stop()
    assert head(homes["n2"] / "games" / game.game_id) == head(game.origin)


def node_home(tmp_path: Path, name: str) -> Path:
    """A node's own PAMIR_HOME, empty."""
    home = tmp_path / name / "home"
    home.mkdir(parents=True)
    return home


def _pushing(game: Hosted) -> bool:
    """Whether a push to the forge is held in its slow pre-receive hook."""
    return (game.origin / "pushing").exists()


def _deliver_into(replies: list[Reply | Exception], url: str, game: Hosted, key: str) -> None:
    try:
        replies.append(deliver(url, game, key))
    except Exception as error:  # the node died under the request
        replies.append(error)


def _adjudicated_to(game: Hosted) -> int:
    return int(json.loads(show(game.origin, "main", "state.json"))["move"])


def mail_settings(home: Path, database_url: str, smtp_port: int) -> dict[str, object]:
    """A node's settings on the scratch database: its own home, the test's mail server."""
    values = settings_for(home, smtp_port, database_url=database_url, secret_key=SECRET_KEY)
    return values.model_dump(include={*MAIL_SETTINGS, "home", "database_url", "secret_key"})


MAIL_SETTINGS = (
    "smtp_host",
    "smtp_port",
    "smtp_security",
    "mail_from",
    "reply_local",
    "reply_domain",
    "notify",
)


def mailed_move(settings: Settings, game: Hosted) -> bytes:
    """The email of the next move, from the player who decides, to their reply address."""
    player, options = decider(state_after_pushes(game))
    message = EmailMessage()
    message["From"] = f"{player}@example.org"
    message["To"] = reply_address(settings, game.game_id, player)
    message["Subject"] = f"Re: Pax Pamir game {game.game_id}"
    message["Message-ID"] = f"<move-{player}@example.org>"
    message.set_content(options[0] + "\n")
    return message.as_bytes()


def test_one_email_posted_to_two_nodes_is_one_move_and_two_200s(
    tmp_path: Path, clustered: Settings, database_url: str
) -> None:
    """Two MX hosts (or a mail server delivering again) hand the same message to two
    nodes; the second node's clone has not seen the move the first one pushed."""
    game = host_game(tmp_path, clustered)
    with mail_server() as smtp:
        homes = [node_home(tmp_path, name) for name in ("n1", "n2")]
        apps = [create_app(mail_settings(h, database_url, smtp.port)) for h in homes]
        for home in homes:  # each node's clone, as a node makes it when it starts
            assert hosting.clone(load_settings({"home": home, "database_url": database_url}), "g1")
        raw = mailed_move(load_settings(mail_settings(homes[0], database_url, smtp.port)), game)
        answers = [app.test_client().post("/inbound/email", data=raw) for app in apps]
        assert [a.status_code for a in answers] == [200, 200], answers[1].data
        results = [a.get_json()["result"] for a in answers]
        assert [(r["status"], r["number"], r["duplicate"]) for r in results] == [
            ("accepted", 1, False),
            ("accepted", 1, True),
        ]
        moves = git(game.origin, "log", "--format=%(trailers:key=Pamir-Move,valueonly)")
        assert sorted(moves.split()) == ["0", "1"]  # adjudicated once
        wait_for(lambda: len(reports(smtp.messages)) == 2, 30, "the move's reports")
        time.sleep(0.5)
        assert set(reports(smtp.messages).values()) == {1}
    nodes.stop_heartbeat(clustered)


REFUSING_FORGE = """#!/bin/sh
# The forge refuses every push while the marker file exists.
[ -e "$(dirname "$0")/../refuse" ] && exit 1
exit 0
"""


def test_a_commit_of_another_node_is_never_taken_for_a_players_tampering(
    tmp_path: Path, clustered: Settings, database_url: str
) -> None:
    """Node one commits an emailed move that the forge refuses (its clone keeps the commit,
    unpushed); the mail server delivers the message again to node two, which plays it and
    pushes. When node one next brings its clone up to the forge, node two's commit is the
    service's own: nothing is put back, and the move is adjudicated once."""
    game = host_game(tmp_path, clustered)
    hook = game.origin / "hooks" / "pre-receive"
    hook.write_text(REFUSING_FORGE, encoding="utf-8")
    hook.chmod(0o755)
    with mail_server() as smtp:
        one, two = (
            load_settings(mail_settings(node_home(tmp_path, name), database_url, smtp.port))
            for name in ("n1", "n2")
        )
        for node in (one, two):
            assert hosting.clone(node, game.game_id)
        raw = mailed_move(one, game)
        (game.origin / "refuse").touch()
        with pytest.raises(ForgeUnavailable):  # answered 503: the mail server tries again
            handle_message(one, raw)
        (game.origin / "refuse").unlink()
        # Later (commits made in the same second by both would be one and the same).
        time.sleep(1.1)
        again = handle_message(two, raw)  # ... through the other MX host
        assert (again.status, again.number) == ("accepted", 1), again.reason

        with opened(one.games_dir / game.game_id) as repo:  # node one meets the forge again
            update = ledger.forge_update(one, repo)
        assert update.restored == [] and update.notices == []
        assert update.refused == []  # its own copy of the move is not played, nor refused
        subjects = git(game.origin, "log", "--format=%s").splitlines()
        assert not [s for s in subjects if s.startswith("Restore")], subjects
        moves = git(game.origin, "log", "--format=%(trailers:key=Pamir-Move,valueonly)")
        assert sorted(moves.split()) == ["0", "1"]  # once
        assert head(one.games_dir / game.game_id) == head(game.origin)
        time.sleep(0.5)
        assert not [m for m in smtp.messages if "put back" in plain(m)]
    nodes.stop_heartbeat(clustered)


HELD_FORGE = """#!/bin/sh
# The forge holds the service's pushes while the marker file exists (30 s at most).
here="$(dirname "$0")/.."
touch "$here/pushing"
for _ in $(seq 300); do [ -e "$here/slow" ] || exit 0; sleep 0.1; done
exit 0
"""


def git_pushes_in(clone: Path) -> list[int]:
    """The `git push` processes working in `clone` (from /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            here = (entry / "cwd").resolve()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if command[:2] == [b"git", b"push"] and here == clone.resolve():
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_node_killed_mid_push_takes_its_git_push_with_it(
    tmp_path: Path, clustered: Settings, database_url: str
) -> None:
    """SIGKILL to the node's process alone (not its process group, as a machine's
    supervisor or the OOM killer may send it): its `git push` dies too, rather than going
    on to land on the forge after another node has taken the game over."""
    game = host_game(tmp_path, clustered)
    hook = game.origin / "hooks" / "pre-receive"
    hook.write_text(HELD_FORGE, encoding="utf-8")
    hook.chmod(0o755)
    home = node_home(tmp_path, "n1")
    with mail_server() as smtp:
        node = Node("n1", home, node_env(database_url, smtp.port), scheduler=False)
        replies: list[Reply | Exception] = []
        delivery = threading.Thread(target=_deliver_into, args=(replies, node.url, game, "d-1"))
        try:
            push_move(game)
            (game.origin / "slow").touch()
            delivery.start()
            wait_for(lambda: _pushing(game), 30, "the node to push move 1's adjudication")
            clone = home / "games" / game.game_id
            wait_for(lambda: git_pushes_in(clone), 10, "the node's git push")
            node.process.kill()  # the node's process only
            node.process.wait(timeout=30)
            wait_for(lambda: not git_pushes_in(clone), 5, "the node's git push to die with it")
        finally:
            (game.origin / "slow").unlink(missing_ok=True)
            node.stop()
            delivery.join(30)


def test_a_pushed_commit_signed_with_a_key_it_makes_the_adjudicators_is_a_players(
    tmp_path: Path, clustered: Settings
) -> None:
    """A player's commit that writes its own key into game.toml's [adjudicator], carries a
    Pamir-Move trailer and is signed with that key is no commit of the service's: its
    signature is judged by the keys of the service's last recorded push, so the commit is
    vetted as the player's, and what it changed is put back."""
    game = host_game(tmp_path, clustered)
    key = make_key(tmp_path / "keys", "alice")
    clone = player_clone(game, "alice")
    toml = (clone / "game.toml").read_text(encoding="utf-8")
    forged = re.sub(r'(\[adjudicator\][^\[]*signing_key = )"[^"]*"', rf'\1"{public(key)}"', toml)
    assert forged != toml
    (clone / "game.toml").write_text(forged, encoding="utf-8")
    git(clone, "add", "game.toml")
    signing = ["-c", "gpg.format=ssh", "-c", f"user.signingkey={key}"]
    message = "Move 1 by alice\n\nPamir-Move: 1\n"
    git(
        clone,
        *signing,
        "commit",
        "-q",
        "-S",
        "--author",
        "alice <alice@example.org>",
        "-m",
        message,
    )
    assert push(clone).returncode == 0  # the forge takes anything

    with opened(game.service) as repo:
        update = ledger.forge_update(clustered, repo)
    assert [b.commit for b in update.restored] == [head(clone)]
    assert show(game.origin, "main", "game.toml") == toml  # the service's key, put back
    nodes.stop_heartbeat(clustered)
