"""Several service nodes on one PostgreSQL database, one of them killed halfway.

    python benchmarks/cluster.py [--nodes 2] [--games 50] [--moves 2] [--players 4]
                                 [--seed 7]
    python benchmarks/cluster.py --email ...   (moves by email: benchmarks/cluster_mail.py)
    python benchmarks/cluster.py --growth [--counts 30,1000] [--json]

With --growth it measures instead how a node's costs grow with the number of registered
games (benchmarks/cluster_growth.py says what and how); the rest of this text is the run
without it.

The database is the one PAMIR_DATABASE_URL names, or (by default) a database of its own on
the machine's server (postgresql://postgres@127.0.0.1:5432), created here and dropped at
the end; the schema is made with `pamir db upgrade`. Everything else lives in a temporary
folder and on 127.0.0.1, with benchmarks/service.py's machinery: each game on a simulated
forge (a local bare repository), the players pushing to it, signed GitHub webhooks, and an
aiosmtpd server counting what each player receives.

1. One node: G games (default 50) receive M moves each (default 2) concurrently, one
   thread per game, every webhook to the one `pamir serve`: moves per second.
2. N nodes (default 2), each a `pamir serve` with the scheduler (one elected) and a
   PAMIR_HOME of its own, sharing the database: the same load, the webhooks sent
   round-robin to the nodes.
   Halfway through, the scheduler's leader is killed with SIGKILL (with its git processes)
   while it holds a game's lock. A delivery that gets no answer is delivered again, with
   the same id, to the next live node, as a forge does. The outbox is the database's table:
   a message the killed node had claimed is sent by another node once its claim's lease
   (LEASE_SECONDS, set short here) has expired.

Throughout step 2 a thread samples how many connections hold the scheduler's advisory
lock. At the end it checks the forge's history of every game (each move adjudicated once)
and the mailbox (each report exactly once to each player), and prints one JSON object as
its last line: moves_sent, moves_adjudicated, moves_lost, moves_duplicated,
mails_expected, mails_sent, mails_lost, mails_duplicated, max_active_schedulers,
moves_per_s (step 2), moves_per_s_one_node (step 1), p50_ms and p99_ms (push to the last
report of the move, step 2). Targets: nothing lost or duplicated, exactly one active
scheduler, and moves_per_s no lower than moves_per_s_one_node (two cores cannot show
scaling; docs/cluster.md says what bounds it on separate machines).

The games are set up in a home of their own (as by an operator), and registered in the
database; the nodes clone them from the forge.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql
from service import (
    HOST,
    MAIL_TIMEOUT,
    Game,
    Mailbox,
    Service,
    commit_move,
    host_game,
    isolate_git,
    mail_server,
    percentile,
    post_webhook,
    run_git,
)

import engine
from adjudicator.home import database
from adjudicator.home.advisory import held_locks
from adjudicator.home.secret_key import new_key
from adjudicator.home.settings import load_settings
from adjudicator.schedule.leader import LEADER_LOCK

LOCAL_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
SAMPLE_SECONDS = 0.1
QUIET_SECONDS = 3.0  # after the last report, for a second copy of any to arrive
KILL_LOCK_WAIT = 10.0  # seconds the kill waits for its node to hold a game's lock
LEASE_SECONDS = 10  # the nodes' outbox_lease_seconds (the local SMTP server answers at once)


@contextmanager
def benchmark_database() -> Iterator[str]:
    """PAMIR_DATABASE_URL, or a new database on the local server, dropped afterwards."""
    given = os.environ.get("PAMIR_DATABASE_URL")
    if given:
        yield given
        return
    name = f"pamir_bench_{secrets.token_hex(4)}"
    with psycopg.connect(LOCAL_SERVER, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    parts = urlsplit(LOCAL_SERVER)
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))
    finally:
        with psycopg.connect(LOCAL_SERVER, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def advisory_holders(url: str) -> list[tuple[int, str]]:
    """(key, holder's application name) of every advisory lock granted in the database."""
    with psycopg.connect(url, autocommit=True) as connection:
        return held_locks(connection)


class SchedulerWatch:
    """A thread counting, every SAMPLE_SECONDS, the holders of the scheduler's lock."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.key = database.advisory_key(LEADER_LOCK)
        self.most = 0
        self.leader: str | None = None
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as connection:  # one, not one a sample
            while not self.stopping.wait(SAMPLE_SECONDS):
                holders = [n for key, n in held_locks(connection) if key == self.key]
                self.most = max(self.most, len(holders))
                self.leader = holders[0].rsplit(" ", 1)[-1] if holders else None

    def __enter__(self) -> SchedulerWatch:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(10)


@dataclass
class Load:
    """The moves sent in one step, the push-to-mail times, and how long it took."""

    sent: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Nodes:
    """The nodes of one step, and the round-robin of webhook deliveries over the live ones."""

    def __init__(self, nodes: dict[str, Service]) -> None:
        self.nodes = nodes
        self.dead: set[str] = set()
        self.turn = 0
        self.lock = threading.Lock()

    def next(self) -> str:
        with self.lock:
            live = [name for name in self.nodes if name not in self.dead]
            self.turn += 1
            return live[self.turn % len(live)]

    def deliver(self, game: Game) -> None:
        """Deliver the push event of the game's head, again to the next live node (same
        id) for as long as a node does not answer it with 200, as a forge does."""
        delivery = str(uuid.uuid4())
        for _ in range(10 * len(self.nodes)):
            name = self.next()
            try:
                reply = post_webhook(self.nodes[name].url, game, delivery)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
                continue
            if reply.get("status") == 200:
                return
        raise RuntimeError(f"no node took the delivery for {game.game_id}")


def play(game: Game, nodes: Nodes, mailbox: Mailbox, moves: int, load: Load) -> None:
    for _ in range(moves):
        if game.finished:
            return
        try:
            seat, action, number = commit_move(game)
            started = time.perf_counter()
            run_git(game.clone, "push", "-q", "origin", "main")
            with load.lock:
                load.sent += 1
            game.number = number
            game.state = engine.apply(game.state, seat, action)
            nodes.deliver(game)
            mailed = mailbox.wait(game.game_id, number, len(game.emails), MAIL_TIMEOUT)
        except Exception as error:  # noted; the game gets no more moves
            game.failures.append(f"move {game.number}: {error}")
            return
        if mailed is None:
            game.failures.append(f"move {number}: the reports did not all arrive")
            return
        with load.lock:
            load.latencies.append(mailed - started)


def run_load(
    games: list[Game], nodes: Nodes, mailbox: Mailbox, moves: int, kill: Any = None
) -> Load:
    """Every game plays `moves` moves, concurrently; `kill(load)` runs beside them."""
    load = Load()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(games) + 1) as pool:
        if kill is not None:
            pool.submit(kill, load)
        for game in games:
            pool.submit(play, game, nodes, mailbox, moves, load)
    load.seconds = time.perf_counter() - started
    for game in games:
        load.failures.extend(f"{game.game_id} {why}" for why in game.failures)
    return load


def start_nodes(
    root: Path, count: int, smtp_port: int, env: dict[str, str], *, scheduler: bool
) -> Nodes:
    """`count` nodes, each with a PAMIR_HOME of its own."""
    nodes: dict[str, Service] = {}
    for index in range(count):
        name = f"node{index + 1}"
        home = root / name / "home"
        home.mkdir(parents=True)
        node_env = {**env, "PAMIR_NODE_NAME": name, "PAMIR_HOME": str(home)}
        nodes[name] = Service(root, smtp_port, name=name, env=node_env, scheduler=scheduler)
    return Nodes(nodes)


def stop_nodes(nodes: Nodes) -> None:
    for node in nodes.nodes.values():
        node.stop()


def host_games(
    root: Path, env: dict[str, str], prefix: str, count: int, players: int, seed: int
) -> list[Game]:
    settings = load_settings(
        {
            "home": env["PAMIR_HOME"],
            "database_url": env["PAMIR_DATABASE_URL"],
            "secret_key": env["PAMIR_SECRET_KEY"],
        }
    )
    database.require_schema(settings)  # and the secret key's check, as a node does
    return [
        host_game(settings, root, f"{prefix}{n:03d}", players, seed) for n in range(1, count + 1)
    ]


def adjudicated_moves(game: Game) -> Counter[int]:
    """How often each move number was adjudicated on the forge (its Pamir-Move trailer)."""
    log = run_git(game.origin, "log", "--format=%(trailers:key=Pamir-Move,valueonly)", "main")
    return Counter(int(n) for n in log.split() if int(n) > 0)


def prepare(root: Path, name: str, url: str, key: str) -> dict[str, str]:
    """The folder and environment of one step (the home the games are set up in)."""
    folder = root / name
    (folder / "home").mkdir(parents=True)
    return {
        "PAMIR_HOME": str(folder / "home"),
        "PAMIR_DATABASE_URL": url,
        "PAMIR_SECRET_KEY": key,
        # A message the killed node had claimed waits for its claim to expire, then for
        # the next delivery (at the latest the leader's outbox job): seconds, not minutes,
        # within the time the mailbox is watched (MAIL_TIMEOUT).
        "PAMIR_OUTBOX_LEASE_SECONDS": str(LEASE_SECONDS),
        "PAMIR_OUTBOX_RETRY_SECONDS": str(LEASE_SECONDS),
    }


def forget_games(url: str) -> None:
    """Unregister the games of step 1: step 2's nodes know only their own, as step 1's."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DELETE FROM pamir_games")


def upgrade(env: dict[str, str]) -> None:
    pamir = Path(sys.executable).parent / "pamir"
    done = subprocess.run(
        [str(pamir), "db", "upgrade"], env={**os.environ, **env}, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"pamir db upgrade failed: {done.stderr}")


def main() -> int:
    import cluster_mail  # here: it builds on this module's functions (a cycle at the top)

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2, help="nodes of step 2 (default 2)")
    parser.add_argument("--games", type=int, default=50, help="games (default 50)")
    parser.add_argument("--moves", type=int, default=2, help="moves per game in each step")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--email", action="store_true", help="moves by email to any node (cluster_mail.py)"
    )
    cluster_mail.add_arguments(parser)
    parser.add_argument(
        "--growth", action="store_true", help="the growth run (benchmarks/cluster_growth.py)"
    )
    parser.add_argument(
        "--counts", default="30,1000", help="--growth: registered games, comma-separated"
    )
    parser.add_argument("--json", action="store_true", help="--growth: only the JSON line")
    args = parser.parse_args()
    if args.growth:
        # Imported here: the growth run imports this module's database and set-up helpers.
        import cluster_growth

        try:
            counts = [int(c) for c in args.counts.split(",") if c.strip()]
        except ValueError:
            parser.error("--counts: numbers separated by commas, e.g. 30,1000")
        return cluster_growth.run(counts, args.json)
    if args.email:  # that run's own defaults for the options it shares
        parser.set_defaults(**cluster_mail.DEFAULTS)
        args = parser.parse_args()
    if args.nodes < 2:
        parser.error("--nodes must be at least 2: one of them is killed")
    began = time.perf_counter()

    with tempfile.TemporaryDirectory(prefix="pamir-cluster-bench-") as folder:
        root = Path(folder)
        isolate_git(root)
        with benchmark_database() as url:
            figures = (cluster_mail.measure if args.email else measure)(root, url, args)
    print(f"total time: {time.perf_counter() - began:.0f} s")
    print(json.dumps(figures))
    return 0


def measure(root: Path, url: str, args: argparse.Namespace) -> dict[str, Any]:
    mailbox = Mailbox()
    with mail_server(mailbox) as smtp_port:
        print(f"database {urlsplit(url).path.lstrip('/')}, SMTP at {HOST}:{smtp_port}")
        # Step 1: one node.
        key = new_key()
        solo_env = prepare(root, "one", url, key)
        upgrade(solo_env)
        solo_games = host_games(root / "one", solo_env, "one", args.games, args.players, args.seed)
        solo = start_nodes(root / "one", 1, smtp_port, solo_env, scheduler=True)
        try:
            one = run_load(solo_games, solo, mailbox, args.moves)
        finally:
            stop_nodes(solo)
        one_rate = sum(g.number for g in solo_games) / one.seconds
        forget_games(url)
        print(f"1. one node: {one.sent} moves in {one.seconds:.1f} s, {one_rate:.2f} moves/s")

        # Step 2: N nodes, the scheduler's leader killed halfway.
        env = prepare(root, "cluster", url, key)
        games = host_games(root / "cluster", env, "many", args.games, args.players, args.seed + 1)
        nodes = start_nodes(root / "cluster", args.nodes, smtp_port, env, scheduler=True)
        total = args.games * args.moves
        killed: list[str] = []

        def kill_halfway(load: Load) -> None:
            while load.sent < total // 2:
                time.sleep(0.01)
            victim = watch.leader or next(iter(nodes.nodes))
            deadline = time.monotonic() + KILL_LOCK_WAIT
            held: list[str] = []
            with psycopg.connect(url, autocommit=True) as connection:
                while not held and time.monotonic() < deadline:  # mid-adjudication
                    held = [
                        n
                        for k, n in held_locks(connection)
                        if n == f"pamir node {victim}" and k != watch.key
                    ]
                    time.sleep(0.005)
            nodes.dead.add(victim)
            nodes.nodes[victim].kill()
            killed.append(victim)
            print(
                f"   killed {victim} (SIGKILL) after {load.sent} of {total} moves were sent, "
                f"{'holding' if held else 'not holding'} a lock"
            )

        try:
            with SchedulerWatch(url) as watch:
                deadline = time.monotonic() + 30
                while watch.leader is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                cluster = run_load(games, nodes, mailbox, args.moves, kill_halfway)
                time.sleep(QUIET_SECONDS)
                leader_after = watch.leader
                # What the killed node held is released with its connections.
                leftover = [n for _, n in advisory_holders(url) if n.rsplit(" ", 1)[-1] in killed]
        finally:
            stop_nodes(nodes)
        leftover += [n for _, n in advisory_holders(url)]  # and nothing else is left

    with psycopg.connect(url) as connection:  # every message of the outbox's table sent
        found = connection.execute(
            "SELECT count(*) FILTER (WHERE state <> 'sent') FROM pamir_outbox"
        ).fetchone()
    outbox_unsent = int(str(found[0])) if found else -1
    moves_sent = one.sent + cluster.sent
    pushed = {(g.game_id, n) for g in solo_games + games for n in range(1, g.number + 1)}
    adjudicated: Counter[tuple[str, int]] = Counter()
    for game in solo_games + games:
        for number, count in adjudicated_moves(game).items():
            adjudicated[(game.game_id, number)] += count
    expected = {
        (g.game_id, n, address)
        for g in solo_games + games
        for n in range(1, g.number + 1)
        for address in g.emails.values()
    }
    received = {key: count for key, count in mailbox.recipients.items() if count}
    rate = sum(g.number for g in games) / cluster.seconds
    latencies = [s * 1000 for s in cluster.latencies]
    print(
        f"2. {args.nodes} nodes: {cluster.sent} moves in {cluster.seconds:.1f} s, "
        f"{rate:.2f} moves/s; killed {', '.join(killed) or 'none'}; "
        f"scheduler leader after: {leader_after}; advisory locks left: {leftover or 'none'}"
    )
    for problem in (one.failures + cluster.failures)[:10]:
        print(f"   failed: {problem}")
    return {
        "nodes": args.nodes,
        "games": args.games,
        "moves_sent": moves_sent,
        "moves_adjudicated": len(adjudicated),
        "moves_lost": len(pushed - set(adjudicated)),
        "moves_duplicated": sum(c - 1 for c in adjudicated.values() if c > 1),
        "mails_expected": len(expected),
        "mails_sent": sum(received.values()),
        "mails_lost": len(expected - set(received)),
        "mails_duplicated": sum(c - 1 for c in received.values() if c > 1),
        "max_active_schedulers": watch.most,
        "moves_per_s": round(rate, 2),
        "moves_per_s_one_node": round(one_rate, 2),
        "p50_ms": round(percentile(latencies, 0.5), 1) if latencies else None,
        "p99_ms": round(percentile(latencies, 0.99), 1) if latencies else None,
        "locks_left": len(leftover),
        "outbox_unsent": outbox_unsent,
    }


if __name__ == "__main__":
    raise SystemExit(main())
