"""Growth: what PostgreSQL mode's nodes cost with few and with many registered games.

    python benchmarks/cluster.py --growth [--counts 30,1000] [--json]

For each count N (default 30 and 1,000), on a database of its own (as `benchmark_database`
makes it: a new one on the machine's server, dropped at the end), with a temporary folder
and benchmarks/service.py's simulated forge:

1. Set-up, as an operator: N - 10 idle games (2 players, 48-hour turns, nothing due) made in
   this process on the forge and registered, their first mails queued and written.
2. A new node (`pamir serve`, scheduler on, an empty PAMIR_HOME): `listen_s`, from the
   process's start until it answers HTTP (/healthz, any status). Then it is left until it
   is quiet (its CPU under 5 % over 2 s: `settled_s`, from its start).
3. On that node, `inbound_ms`: 10 emails posted one at a time to /inbound/email as the mail
   gateway posts them, each a player's command `settings notify every` (or `turns`, in
   turn) about one game; and `unknown_webhook_ms`: 10 signed push webhooks of a repository
   that is no registered game's. Medians (and the p90 of the emails).
4. A second node (scheduler on) joins and settles; 10 more games are made whose clocks
   started an hour (the shortest turn) before a deadline about a minute away, and their
   push webhooks go to the first node, the scheduler's leader, which clones them and
   stores their deadline jobs. KILL_BEFORE seconds before the deadline the leader is killed
   (SIGKILL); `failover_lateness_s` is, for each of those games, when its timeout's
   adjudication appeared on the forge minus the deadline: p50, p95 and max.

The nodes have no mail server (no smtp_host: messages are written to files), so that a
player's clock runs from the commit (schedule/turnmail.py) and nothing waits on SMTP. It
prints a table, then one JSON object as its last line: {"growth": [one object per count],
"ratios": {figure: value at the largest count / value at the smallest}}; with --json only
that line goes to stdout (the progress and the table go to stderr). Targets: listen within
3 s at 1,000 games; each per-request figure at 1,000 games within 2x of that at 30; a
failover's lateness p95 under 5 s.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any, TextIO
from unittest import mock

import psycopg
from cluster import benchmark_database, prepare, upgrade
from service import (
    HTTP_TIMEOUT,
    MAIL_DOMAIN,
    Game,
    Service,
    host_game,
    isolate_git,
    percentile,
    post_webhook,
    run_git,
    webhook_request,
)

from adjudicator.games import newgame
from adjudicator.games.clockstart import clock_started
from adjudicator.games.repo import GameRepo
from adjudicator.home import database
from adjudicator.home.advisory import held_locks
from adjudicator.home.secret_key import new_key
from adjudicator.home.settings import Settings, load_settings
from adjudicator.mail import ledger, outbox
from adjudicator.mail.tokens import reply_address
from adjudicator.schedule.leader import LEADER_LOCK
from adjudicator.schedule.scheduler import deadline_job_id

COUNTS = (30, 1000)
DEADLINE_GAMES = 10
SAMPLES = 10
PLAYERS = 2
REPLY_DOMAIN = "pamir.example"  # what Service gives its nodes (PAMIR_REPLY_DOMAIN)
LISTEN_TIMEOUT = 1800.0  # seconds for a node to answer HTTP: the code measured may be slow
SETTLE_TIMEOUT = 900.0  # seconds for a node to become quiet
QUIET_SHARE = 0.05  # a node using less than this share of a core is quiet
QUIET_WINDOW = 2.0  # seconds over which that share is measured
DEADLINE_AHEAD = 60.0  # seconds from making the deadline games to their deadline
KILL_BEFORE = 3.0  # seconds before the deadline that the leader is killed
LATENESS_TIMEOUT = 600.0  # seconds after the deadline to wait for the timeouts on the forge
TURN = timedelta(hours=1)  # the shortest turn (turn_hours is at least 1)
FIGURES = (
    "listen_s",
    "inbound_ms",
    "inbound_p90_ms",
    "unknown_webhook_ms",
    "failover_p50_s",
    "failover_p95_s",
    "failover_max_s",
)
TARGET_LISTEN_S = 3.0
TARGET_RATIO = 2.0
TARGET_LATENESS_P95_S = 5.0


def run(counts: list[int], only_json: bool) -> int:
    """Measure each count in turn; print the table, then the JSON line."""
    out = sys.stderr if only_json else sys.stdout
    if os.environ.get("PAMIR_DATABASE_URL") and len(counts) > 1:
        raise SystemExit("--growth needs an empty database per count: unset PAMIR_DATABASE_URL")
    rows: list[dict[str, Any]] = []
    for count in counts:
        if count <= DEADLINE_GAMES:
            raise SystemExit(f"--counts: each count must be above {DEADLINE_GAMES}")
        with tempfile.TemporaryDirectory(prefix="pamir-growth-bench-") as folder:
            root = Path(folder)
            isolate_git(root)
            with benchmark_database() as url:
                rows.append(measure(root, url, count, out))
    print_table(rows, out)
    print(json.dumps({"growth": rows, "ratios": ratios(rows)}))
    return 0


def say(out: TextIO, text: str) -> None:
    print(text, file=out, flush=True)


def measure(root: Path, url: str, count: int, out: TextIO) -> dict[str, Any]:
    began = time.perf_counter()
    row: dict[str, Any] = {"games": count, "notes": []}
    env = prepare(root, "setup", url, new_key())
    upgrade(env)
    settings = setup_settings(env)
    say(out, f"{count} games: database {url.rsplit('/', 1)[-1]}, folder {root}")
    games = host_idle(settings, root, count - DEADLINE_GAMES, out)
    row["setup_s"] = round(time.perf_counter() - began, 1)
    row["registered_at_listen"] = len(games)
    nodes: list[Service] = []
    try:
        first, row["listen_s"] = start_node(root, "node1", env, out, row)
        nodes.append(first)
        row["settled_s"] = settle(first, out, row)
        inbound = inbound_samples(first.url, settings, games[0], row)
        row["inbound_ms"] = median_ms(inbound)
        row["inbound_p90_ms"] = round(percentile(inbound, 0.9) * 1000, 1) if inbound else None
        row["unknown_webhook_ms"] = median_ms(unknown_samples(first.url, root, games[0], row))
        second, row["listen_s_second"] = start_node(root, "node2", env, out, row)
        nodes.append(second)
        settle(second, out, row)
        lateness = failover(settings, root, url, {"node1": first, "node2": second}, out, row)
        for name, fraction in (("p50", 0.5), ("p95", 0.95), ("max", 1.0)):
            value = percentile(lateness, fraction) if lateness else None
            row[f"failover_{name}_s"] = None if value is None else round(value, 2)
    except RuntimeError as error:  # a node that never said where it listens: noted, next count
        row["notes"].append(f"stopped: {str(error)[:300]}")
    finally:
        for node in nodes:
            node.stop()
    row["registered"] = registered(url)
    row["total_s"] = round(time.perf_counter() - began, 1)
    return row


def setup_settings(env: dict[str, str]) -> Settings:
    settings = load_settings(
        {
            "home": env["PAMIR_HOME"],
            "database_url": env["PAMIR_DATABASE_URL"],
            "secret_key": env["PAMIR_SECRET_KEY"],
            "reply_domain": REPLY_DOMAIN,
        }
    )
    database.require_schema(settings)  # and the secret key's check, as a node does
    return settings


def host_idle(settings: Settings, root: Path, count: int, out: TextIO) -> list[Game]:
    """`count` games made in this process straight onto the forge (no players' clone),
    then their first mails queued and written, as a running service had done long ago."""
    games: list[Game] = []
    started = time.perf_counter()
    for n in range(1, count + 1):
        games.append(host_game(settings, root, f"idle{n:04d}", PLAYERS, n, clone=False))
        if n % 100 == 0 or n == count:
            say(out, f"  set up {n} of {count} idle games ({time.perf_counter() - started:.0f} s)")
    queued = ledger.reconcile_all(settings)
    outbox.deliver(settings, force=True)
    took = time.perf_counter() - started
    say(out, f"  their first {queued} mails queued and written ({took:.0f} s)")
    return games


def start_node(
    root: Path, name: str, env: dict[str, str], out: TextIO, row: dict[str, Any]
) -> tuple[Service, float | None]:
    """A new node with an empty PAMIR_HOME, and the seconds from its start until it
    answered HTTP (None, noted, if it did not within LISTEN_TIMEOUT)."""
    home = root / name / "home"
    home.mkdir(parents=True)
    node_env = {**env, "PAMIR_NODE_NAME": name, "PAMIR_HOME": str(home)}
    node = Service(
        root / name, None, name=name, env=node_env, scheduler=True, start_timeout=LISTEN_TIMEOUT
    )
    started = node.started
    deadline = started + LISTEN_TIMEOUT
    while time.perf_counter() < deadline:
        if answers(node.url):
            listen = time.perf_counter() - started
            say(out, f"  {name} answers HTTP {listen:.2f} s after its start")
            return node, round(listen, 2)
        time.sleep(0.01)
    row["notes"].append(f"{name} did not answer HTTP within {LISTEN_TIMEOUT:.0f} s")
    return node, None


def answers(url: str) -> bool:
    """Whether the node answers /healthz at all (any status)."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=5):
            return True
    except urllib.error.HTTPError:
        return True
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def settle(node: Service, out: TextIO, row: dict[str, Any]) -> float | None:
    """Wait until the node is quiet; the seconds from its start (None, noted, if never)."""
    started = node.started
    deadline = time.perf_counter() + SETTLE_TIMEOUT
    last = cpu(node)
    while time.perf_counter() < deadline:
        time.sleep(QUIET_WINDOW)
        now = cpu(node)
        if (now - last) / QUIET_WINDOW < QUIET_SHARE:
            settled = time.perf_counter() - started
            say(out, f"  {node.log.stem} quiet {settled:.1f} s after its start")
            return round(settled, 1)
        last = now
    row["notes"].append(f"{node.log.stem} not quiet within {SETTLE_TIMEOUT:.0f} s")
    return None


def cpu(node: Service) -> float:
    seconds = node.cpu_seconds()
    return 0.0 if seconds is None else seconds[0] + seconds[1]


def median_ms(values: list[float]) -> float | None:
    return round(statistics.median(values) * 1000, 1) if values else None


def inbound_samples(url: str, settings: Settings, game: Game, row: dict[str, Any]) -> list[float]:
    """SAMPLES emails from one player of `game`, each a self-service command, posted one at
    a time; their answer times in seconds."""
    player = next(iter(game.emails))
    times: list[float] = []
    for n in range(SAMPLES):
        message = EmailMessage()
        message["From"] = game.emails[player]
        message["To"] = reply_address(settings, game.game_id, player)
        message["Subject"] = f"Re: Pax Pamir game {game.game_id}"
        message["Date"] = formatdate()
        message["Message-ID"] = make_msgid(domain=MAIL_DOMAIN)
        message.set_content(f"settings notify {('every', 'turns')[n % 2]}\n")
        request = urllib.request.Request(
            f"{url}/inbound/email", message.as_bytes(), {"Content-Type": "message/rfc822"}
        )
        took, status, body = timed(request)
        if status != 200 or "notif" not in body.lower():
            row["notes"].append(f"inbound email {n + 1}: {status} {body[:200]}")
            continue
        times.append(took)
    return times


def unknown_samples(url: str, root: Path, like: Game, row: dict[str, Any]) -> list[float]:
    """SAMPLES signed pushes of a forge repository no game is registered at; seconds."""
    origin = root / "forge" / "strangers" / "unknown.git"
    origin.parent.mkdir(parents=True)
    run_git(root, "clone", "-q", "--bare", str(like.origin), str(origin))
    stranger = Game("unknown", origin, origin, {}, like.state, random.Random(0))
    times: list[float] = []
    for n in range(SAMPLES):
        took, status, body = timed(webhook_request(url, stranger))
        row.setdefault("unknown_webhook_answer", f"{status} {body.strip()[:100]}")
        if status >= 500:
            row["notes"].append(f"unknown webhook {n + 1}: {status} {body[:200]}")
            continue
        times.append(took)
    return times


def timed(request: urllib.request.Request) -> tuple[float, int, str]:
    """Send it: seconds to the whole answer, its status and its text."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            body, status = response.read(), response.status
    except urllib.error.HTTPError as error:
        body, status = error.read(), error.code
    return time.perf_counter() - started, status, body.decode(errors="replace")


@contextmanager
def clocks_started_at(when: datetime) -> Iterator[None]:
    """New games' first commits dated `when`: their first deadline is `when` + their turn
    (an hour at the shortest), so a deadline a minute away needs a clock started in the past."""
    with mock.patch.object(newgame, "now", return_value=when):
        yield


def failover(
    settings: Settings,
    root: Path,
    url: str,
    nodes: dict[str, Service],
    out: TextIO,
    row: dict[str, Any],
) -> list[float]:
    """Deadline games known to the leader, the leader killed just before their deadline:
    each one's seconds from the deadline to its timeout's adjudication on the forge."""
    due = int(time.time() + DEADLINE_AHEAD)
    with clocks_started_at(datetime.fromtimestamp(due, UTC) - TURN):
        games = [
            host_game(settings, root, f"due{n:02d}", PLAYERS, n, clone=False, turn_hours=1)
            for n in range(1, DEADLINE_GAMES + 1)
        ]
    check_clocks(settings, games, due, row)
    leader = wait_for(lambda: leader_of(url), 30.0)
    if leader is None or leader not in nodes:
        row["notes"].append(f"no scheduler leader among the nodes ({leader})")
        return []
    for game in games:  # as the forge tells the service of a new game's push
        post_webhook(nodes[leader].url, game)
    stored = wait_for(
        lambda: (len(deadline_jobs(url, games)) == len(games)) or None,
        due - KILL_BEFORE - time.time(),
    )
    row["deadline_jobs_stored"] = len(deadline_jobs(url, games))
    if stored is None:
        row["notes"].append(
            f"{row['deadline_jobs_stored']} of {len(games)} deadline jobs stored at the kill"
        )
    time.sleep(max(0.0, due - KILL_BEFORE - time.time()))
    heads = {game.game_id: head(game.origin) for game in games}
    nodes[leader].kill()
    say(out, f"  killed the leader {leader} {due - time.time():.1f} s before the deadlines")
    seen: dict[str, float] = {}
    while len(seen) < len(games) and time.time() < due + LATENESS_TIMEOUT:
        for game in games:
            if game.game_id not in seen and head(game.origin) != heads[game.game_id]:
                seen[game.game_id] = time.time()
        time.sleep(0.05)
    if len(seen) < len(games):
        row["notes"].append(
            f"{len(games) - len(seen)} of {len(games)} timeouts not on the forge "
            f"{LATENESS_TIMEOUT:.0f} s after the deadline"
        )
    row["new_leader"] = leader_of(url)
    for game in games:  # what appeared is the timeout's adjudication of move 1
        moves = run_git(game.origin, "log", "--format=%(trailers:key=Pamir-Move,valueonly)")
        if game.game_id in seen and "1" not in moves.split():
            row["notes"].append(f"{game.game_id}: the forge's new commit is no adjudication")
    lateness = sorted(when - due for when in seen.values())
    say(out, f"  timeouts on the forge: {', '.join(f'{s:.1f}' for s in lateness)} s late")
    return lateness


def check_clocks(settings: Settings, games: list[Game], due: int, row: dict[str, Any]) -> None:
    """Note a game whose clock does not end at `due` (the dating of its first commit)."""
    for game in games:
        repo = GameRepo(settings.games_dir / game.game_id)
        try:
            ends = clock_started(repo) + TURN
        finally:
            repo.repo.close()
        if ends.timestamp() != due:
            row["notes"].append(f"{game.game_id}: its deadline is {ends}, not at {due}")


def wait_for(probe: Callable[[], Any], seconds: float) -> Any:
    """What `probe` gives once it gives something, within `seconds`; else None."""
    deadline = time.monotonic() + seconds
    while True:
        found = probe()
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(0.1)


def leader_of(url: str) -> str | None:
    """The name of the node holding the scheduler's lock, if one does."""
    key = database.advisory_key(LEADER_LOCK)
    with psycopg.connect(url, autocommit=True) as connection:
        holders = [name for k, name in held_locks(connection) if k == key]
    return holders[0].rsplit(" ", 1)[-1] if holders else None


def deadline_jobs(url: str, games: list[Game]) -> list[str]:
    """The deadline jobs of `games` in the scheduler's job store."""
    wanted = [deadline_job_id(game.game_id) for game in games]
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT id FROM pamir_scheduler_jobs WHERE id = ANY(%s)", (wanted,)
        ).fetchall()
    return [str(r[0]) for r in rows]


def registered(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as connection:
        found = connection.execute("SELECT count(*) FROM pamir_games").fetchone()
    return int(str(found[0])) if found else 0


def head(origin: Path) -> str:
    """The forge's main branch, read from its ref file (no process started: polled)."""
    ref = origin / "refs" / "heads" / "main"
    try:
        return ref.read_text().strip()
    except FileNotFoundError:  # packed meanwhile
        return run_git(origin, "rev-parse", "main").strip()


def ratios(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """Each figure at the largest count over the same figure at the smallest."""
    if len(rows) < 2:
        return {}
    small, large = min(rows, key=lambda r: r["games"]), max(rows, key=lambda r: r["games"])
    found: dict[str, float | None] = {}
    for name in FIGURES:
        a, b = small.get(name), large.get(name)
        found[name] = round(b / a, 2) if a and b is not None else None
    return found


def print_table(rows: list[dict[str, Any]], out: TextIO) -> None:
    def cell(value: Any) -> str:
        return "timed out" if value is None else str(value)

    names = ("registered", "setup_s", "listen_s", "settled_s", *FIGURES[1:])
    say(out, f"{'figure':<20}" + "".join(f"{r['games']:>12}" for r in rows))
    for name in names:
        say(out, f"{name:<20}" + "".join(f"{cell(r.get(name)):>12}" for r in rows))
    for r in rows:
        for note in r["notes"]:
            say(out, f"note ({r['games']} games): {note}")
    large = max(rows, key=lambda r: r["games"])
    listen = large.get("listen_s")
    met = listen is not None and listen <= TARGET_LISTEN_S
    say(
        out,
        f"target: listen within {TARGET_LISTEN_S:.0f} s at {large['games']} games: "
        f"{'met' if met else 'NOT met'}",
    )
    for name, value in ratios(rows).items():
        if name.startswith(("inbound", "unknown")):
            met = value is not None and value <= TARGET_RATIO
            say(out, f"target: {name} within {TARGET_RATIO:.0f}x: {'met' if met else 'NOT met'}")
    p95 = large.get("failover_p95_s")
    met = p95 is not None and p95 < TARGET_LATENESS_P95_S
    say(
        out,
        f"target: failover lateness p95 under {TARGET_LATENESS_P95_S:.0f} s at "
        f"{large['games']} games: {'met' if met else 'NOT met'}",
    )
