"""/metrics: the counters recorded by each way a move comes in, the gauges read at each
scrape, and prometheus-client's multiprocess mode, with real parts throughout.

Moves go in by the real ways: a reply by mail through POST /inbound/email (a real SMTP
server takes the service's mail), the private page's form, a push to a bare repository
with the hooks installed, a forge's webhook over real HTTP, the scheduler at a deadline.
The counters of this process are shared by every test that runs in it, so each test reads
what changed. The multiprocess mode is seen from the hooks' processes, which write their
counts to a folder of their own, and from real gunicorn workers.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from aiosmtpd.controller import Controller
from apscheduler.job import Job  # type: ignore[import-untyped, unused-ignore]
from apscheduler.schedulers.background import (  # type: ignore[import-untyped, unused-ignore]
    BackgroundScheduler,
)
from apscheduler.triggers.date import DateTrigger  # type: ignore[import-untyped, unused-ignore]
from flask.testing import FlaskClient
from gitgame import create, current_home, decider, full_state, git, run, write_move
from liveserver import fetch, serving
from mailserver import (
    DOMAIN,
    MAIL_FROM,
    MailServer,
    email_of,
    free_port,
    mail_server,
    new_game,
    reply_to,
    settings_for,
)
from pgserver import scratch_database
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families
from test_cluster import secret_key  # noqa: F401 - the fixture: the database's key
from test_private_page import form_fields
from test_webhooks import GITHUB_SECRET, deliver, host_game, push_move

from adjudicator.games.pipeline import submit
from adjudicator.home import advisory, database, nodes
from adjudicator.home.settings import Settings, load_settings
from adjudicator.hooks import receive
from adjudicator.mail import outbox, report_mails, tokens
from adjudicator.mail.links import page_links
from adjudicator.schedule import health, jobs, jobstore, leader
from adjudicator.schedule import scheduler as sched
from adjudicator.schedule.clock import waiting
from adjudicator.web import create_app, gunicorn_config

pytestmark = pytest.mark.usefixtures("home")

ROOT = Path(__file__).resolve().parents[2]
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
PAMIR_FAMILIES = {
    "pamir_moves_adjudicated": "counter",
    "pamir_moves_refused": "counter",
    "pamir_adjudication_seconds": "histogram",
    "pamir_smtp_failures": "counter",
    "pamir_inbound_refused": "counter",
    "pamir_outbox_pending_messages": "gauge",
    "pamir_outbox_failed_messages": "gauge",
    "pamir_outbox_oldest_pending_age_seconds": "gauge",
    "pamir_scheduler_lag_seconds": "gauge",
}


def samples(text: str) -> Samples:
    """Every sample of a scrape: (name, labels) -> value."""
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def scrape(client: FlaskClient) -> str:
    reply = client.get("/metrics")
    assert reply.status_code == 200
    assert reply.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return reply.get_data(as_text=True)


def changed(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def app_of(settings: Settings, **more: Any) -> Any:
    """The web application with these settings (those of the mail helpers)."""
    given = {k: v for k, v in settings.model_dump().items() if v is not None}
    return create_app({**given, **more})


def report_to(server: MailServer, player: str) -> EmailMessage:
    """The last report a player was mailed: a reply to it goes to their reply address."""
    reports = [m for m in server.to(email_of(player)) if m["X-Pamir-Kind"] == "report"]
    assert reports, player
    return reports[-1]


# -- the ways in -----------------------------------------------------------------------------


def test_moves_by_mail_and_by_the_page_are_counted_by_their_way_and_name_nobody(
    home: Path,
) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings, game_id="kabul")
        report_mails.notify(settings, repo, [created])
        client = app_of(settings).test_client()
        path = settings.games_dir / "kabul"
        before = samples(scrape(client))

        # By mail: a legal move, then an illegal one from the next player.
        player, options = decider(full_state(path))
        legal = reply_to(report_to(server, player), f"{options[0]}\n")
        answer = client.post("/inbound/email", data=legal)
        assert answer.get_json()["result"]["status"] == "accepted"
        player, options = decider(full_state(path))
        illegal = reply_to(report_to(server, player), "loyalty martians\n")
        answer = client.post("/inbound/email", data=illegal)
        assert answer.get_json()["result"]["status"] == "refused"

        # By the page: the same player's legal move, then the next one's illegal move.
        links = {}
        for move in (options[0], "loyalty martians"):
            player, _ = decider(full_state(path))
            links[player] = page_links(settings, "kabul", player).private
            page = "/" + links[player].split("/", 3)[3]
            fields = form_fields(client.get(page).get_data(as_text=True))
            answer = client.post(page, data={**fields, "move": move})
            assert answer.status_code == (200 if move == options[0] else 422)
        text = scrape(client)
        repo.repo.close()

    after = samples(text)
    for way in ("mail", "page"):
        assert changed(before, after, "pamir_moves_adjudicated_total", way=way) == 1, way
        assert changed(before, after, "pamir_moves_refused_total", way=way) == 1, way
    for way in ("push", "webhook", "deadline"):
        assert changed(before, after, "pamir_moves_adjudicated_total", way=way) == 0, way
    assert changed(before, after, "pamir_adjudication_seconds_count") == 2  # refusals: none
    assert changed(before, after, "pamir_smtp_failures_total") == 0
    assert value(after, "pamir_outbox_pending_messages") == 0  # all sent to the server
    # Every metric of the service is described and typed, whatever happened yet.
    for name, kind in PAMIR_FAMILIES.items():
        shown = f"{name}_total" if kind == "counter" else name
        assert f"# TYPE {shown} {kind}\n" in text, name
        assert re.search(rf"^# HELP {shown} \S", text, re.MULTILINE), name
    # Nothing in it names the game, a player, an address or a token.
    secrets = ["kabul", "alice", "bob", email_of("alice"), email_of("bob"), DOMAIN]
    for name in ("alice", "bob"):
        secrets.append(tokens.token(settings, "kabul", name))
        secrets.append(tokens.page_token(settings, "kabul", name))
    secrets += [link.rsplit("/", 1)[1] for link in links.values()]
    assert [s for s in secrets if s.lower() in text.lower()] == []


def totals(folder: Path) -> Samples:
    """What the processes that wrote to a multiprocess folder counted, added up."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))  # type: ignore[no-untyped-call]
    return samples(generate_latest(registry).decode())


def test_pushed_moves_are_counted_by_the_hooks_processes(tmp_path: Path) -> None:
    """The hooks run in git's processes: their counts reach /metrics through the
    multiprocess folder they are given, as the scheduler's and the workers' do."""
    bare = create(tmp_path / "game.git", bare=True)
    receive.install(bare, current_home())
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    folder = tmp_path / "prometheus"
    folder.mkdir()
    env = {"PROMETHEUS_MULTIPROC_DIR": str(folder)}  # the hooks' only: not this process's

    player, options = decider(full_state(bare))
    write_move(clone, 1, player, options[0] + "\n")
    done = run(["git", "push", "origin", "main"], clone, env=env)
    assert done.returncode == 0, done.stderr
    git(clone, "pull", "-q", "--ff-only", "origin", "main")
    player, _ = decider(full_state(bare))
    write_move(clone, 2, player, "loyalty martians\n")
    done = run(["git", "push", "origin", "main"], clone, env=env)
    assert done.returncode != 0 and "push refused" in done.stderr

    counted = totals(folder)
    assert value(counted, "pamir_moves_adjudicated_total", way="push") == 1
    assert value(counted, "pamir_moves_refused_total", way="push") == 1  # by pre-receive
    assert value(counted, "pamir_adjudication_seconds_count") == 1
    assert value(counted, "pamir_moves_adjudicated_total", way="mail") == 0


def test_moves_pushed_to_a_forge_are_counted_by_the_webhook(
    tmp_path: Path, home: Path, settings: Settings
) -> None:
    game = host_game(tmp_path, settings)
    push_move(game)
    push_move(game, "loyalty martians\n")  # refused when its turn comes: a commit says so
    with serving(create_app({"home": home, "github_secret": GITHUB_SECRET})) as site:
        before = samples(fetch(f"{site}/metrics").text)
        reply = deliver(site, game, "delivery-1")
        assert reply.status == 200 and reply.json()["adjudicated"] == [1, 2], reply.text
        again = deliver(site, game, "delivery-1")  # redelivered: answered, not counted again
        assert again.json()["duplicate"] is True
        after = samples(fetch(f"{site}/metrics").text)
    assert changed(before, after, "pamir_moves_adjudicated_total", way="webhook") == 1
    assert changed(before, after, "pamir_moves_refused_total", way="webhook") == 1
    assert changed(before, after, "pamir_adjudication_seconds_count") == 2


def test_inbound_mail_turned_away_is_counted_by_its_code(home: Path) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        repo.repo.close()
        client = app_of(settings).test_client()
        report = report_to(server, "alice")
        before = samples(scrape(client))
        forged = reply_to(report, "pass\n", sender="mallory@elsewhere.example")
        assert client.post("/inbound/email", data=forged).status_code == 200
        stray = reply_to(report, "pass\n", to=f"play@{DOMAIN}")
        assert client.post("/inbound/email", data=stray).status_code == 200
        assert client.post("/inbound/email", data=b"\r\n").status_code == 400
        after = samples(scrape(client))
    reason = "pamir_inbound_refused_total"
    assert changed(before, after, reason, reason="wrong-sender") == 1
    assert changed(before, after, reason, reason="no-reply-address") == 1
    assert changed(before, after, reason, reason="malformed") == 1
    assert changed(before, after, reason, reason="unauthenticated") == 0
    assert "mallory" not in str(after)


# -- what is read at each scrape --------------------------------------------------------------


class Refusing:
    """An SMTP server's handler that refuses every recipient for good."""

    async def handle_RCPT(
        self, server: object, session: object, envelope: object, address: str, options: object
    ) -> str:
        return "550 5.1.1 no such mailbox"


def test_the_outbox_gauges_and_smtp_failures(home: Path) -> None:
    port = free_port()
    settings = settings_for(home, port)
    client = app_of(settings).test_client()
    before = samples(scrape(client))
    repo, created = new_game(settings)
    refusing = Controller(Refusing(), hostname="127.0.0.1", port=port, ready_timeout=5)
    refusing.start()
    try:
        report_mails.notify(settings, repo, [created])  # both refused for good: failed/
    finally:
        refusing.stop()
    player, options = decider(full_state(repo.path))
    done = submit(repo, player, options[0] + "\n", home=home)
    report_mails.notify(settings, repo, [done])  # no server now: both wait in pending/
    repo.repo.close()
    time.sleep(0.05)
    after = samples(scrape(client))
    assert value(after, "pamir_outbox_pending_messages") == 2
    assert value(after, "pamir_outbox_failed_messages") == 2
    assert 0 < value(after, "pamir_outbox_oldest_pending_age_seconds") < 60
    assert changed(before, after, "pamir_smtp_failures_total") == 4


def test_the_scheduler_lag_behind_a_deadline_not_played(home: Path) -> None:
    settings = load_settings({"home": home})
    repo, _ = new_game(settings)
    client = app_of(settings).test_client()
    assert value(samples(scrape(client)), "pamir_scheduler_lag_seconds") == 0
    due = waiting(repo)
    assert due is not None
    deadline = due.clock.deadline
    assert health.lag_seconds(settings, deadline - timedelta(seconds=1)) == 0
    assert health.lag_seconds(settings, deadline + timedelta(hours=1)) == 3600
    # Played at its deadline: the next decision's clock is read anew from the repository.
    before = samples(scrape(client))
    later = deadline + timedelta(hours=2)
    played = jobs.run_deadline(settings, "g1", later, deliver=False)
    assert played
    after = samples(scrape(client))
    assert changed(before, after, "pamir_moves_adjudicated_total", way="deadline") == len(played)
    following = waiting(repo)
    assert following is not None and following.move == len(played)
    expected = max(0.0, (later - following.clock.deadline).total_seconds())
    assert health.lag_seconds(settings, later) == expected
    # The players' turn mail still in the outbox holds the clock: nothing is late yet.
    mailing = settings_for(home, free_port())
    report_mails.notify(mailing, repo, played)
    assert health.lag_seconds(mailing, later + timedelta(days=3)) == 0
    assert health.lag_seconds(settings, later + timedelta(days=3)) > 0
    repo.repo.close()


@pytest.mark.usefixtures("secret_key")
def test_postgresql_mode_reads_the_outbox_the_job_store_and_the_leader(home: Path) -> None:
    with scratch_database() as url:
        settings = load_settings({"home": home, "database_url": url, "node_name": "n1"})
        database.upgrade(settings)
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = MAIL_FROM, email_of("a"), "x"
        message.set_content("x")
        outbox.queue(settings, message, "probe")
        # A deadline job as the elected scheduler stores it, 100 seconds overdue: no
        # scheduler runs it.
        store = jobstore.job_store(settings)
        store.start(BackgroundScheduler(timezone=UTC), "default")
        overdue = datetime.now(UTC) - timedelta(seconds=100)
        store.add_job(
            Job(
                BackgroundScheduler(timezone=UTC),
                id=sched.deadline_job_id("g1"),
                func=sched.run_stored,
                args=["deadline_job", "g1"],
                kwargs={},
                trigger=DateTrigger(run_date=overdue, timezone=UTC),
                executor="default",
                name="deadline of g1",
                misfire_grace_time=None,
                coalesce=True,
                max_instances=3,
                next_run_time=overdue,
            )
        )
        store.engine.dispose()
        node_one = create_app({"home": home, "database_url": url, "node_name": "n1"})
        other = load_settings({"home": home, "database_url": url, "node_name": "n2"})
        node_two = create_app(other.model_dump())
        try:
            found = samples(scrape(node_one.test_client()))
            assert value(found, "pamir_node_scheduler_leader") == 0  # nobody leads
            assert value(found, "pamir_outbox_pending_messages") == 1
            assert value(found, "pamir_outbox_failed_messages") == 0
            assert 0 <= value(found, "pamir_outbox_oldest_pending_age_seconds") < 60
            assert 100 <= value(found, "pamir_scheduler_lag_seconds") < 160
            stop = threading.Event()
            with advisory.elected(settings, leader.LEADER_LOCK, stop, 0.1) as held:
                assert held is not None
                assert (
                    value(samples(scrape(node_one.test_client())), "pamir_node_scheduler_leader")
                    == 1
                )
                assert (
                    value(samples(scrape(node_two.test_client())), "pamir_node_scheduler_leader")
                    == 0
                )
            with psycopg.connect(url, autocommit=True) as connection:
                connection.execute(f"DELETE FROM {jobstore.JOBS_TABLE}")
            assert (
                value(samples(scrape(node_one.test_client())), "pamir_scheduler_lag_seconds") == 0
            )
        finally:
            nodes.stop_heartbeat(settings)
            nodes.stop_heartbeat(other)


def test_metrics_can_be_turned_off(home: Path) -> None:
    client = create_app({"home": home, "metrics": False}).test_client()
    assert client.get("/metrics").status_code == 404
    assert client.get("/healthz").status_code == 200


# -- several processes -------------------------------------------------------------------------


@pytest.fixture
def gunicorn(tmp_path: Path, home: Path) -> Iterator[tuple[str, Path]]:
    """gunicorn with two workers, each replaced after a few requests, counting into a
    multiprocess folder; its address and the folder."""
    folder = tmp_path / "prometheus"
    folder.mkdir()
    port = free_port()
    log = (tmp_path / "gunicorn.log").open("wb")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "python:adjudicator.web.gunicorn_config",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--max-requests",
            "4",
            "adjudicator.web:create_app()",
        ],
        cwd=ROOT,
        env={**os.environ, "PAMIR_HOME": str(home), "PROMETHEUS_MULTIPROC_DIR": str(folder)},
        stdout=log,
        stderr=log,
    )
    site = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if fetch(f"{site}/healthz").status == 200:
                    break
            except OSError:
                pass
            assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()
            assert time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.1)
        yield site, folder
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def test_gunicorn_workers_counts_add_up_in_one_scrape(gunicorn: tuple[str, Path]) -> None:
    site, folder = gunicorn
    for _ in range(10):  # each worker takes at most 4 requests: three workers or more
        assert fetch(f"{site}/inbound/email", b"\r\n").status == 400
    found = samples(fetch(f"{site}/metrics").text)
    assert value(found, "pamir_inbound_refused_total", reason="malformed") == 10
    assert len(list(folder.glob("counter_*.db"))) >= 2  # the workers' own files
    assert ("pamir_outbox_pending_messages", ()) in found  # read at the scrape
    assert not any(name.startswith("process_") for name, _ in found)  # no one process's


def test_child_exit_forgets_the_live_gauges_of_a_worker_that_exited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "prometheus"
    folder.mkdir()
    (folder / "gauge_livesum_4242.db").write_bytes(b"")
    (folder / "counter_4242.db").write_bytes(b"")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(folder))
    gunicorn_config.child_exit(None, SimpleNamespace(pid=4242))
    assert sorted(p.name for p in folder.iterdir()) == ["counter_4242.db"]  # counts stay
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    gunicorn_config.child_exit(None, SimpleNamespace(pid=4242))  # not in that mode: nothing
