"""The web service end to end: from a player's `git push` to the report in every mailbox.

    python benchmarks/service.py [--games 50] [--moves N] [--latency-moves L]
                                 [--hosted-moves H] [--players P] [--seed S]
                                 [--gunicorn] [--json]

Everything lives in a temporary folder (removed afterwards) and on 127.0.0.1. Each game is
hosted on a simulated forge, a local bare repository that is the `origin` of the service's
clone in PAMIR_HOME/games/<id>; the players share one clone of it. The service is
`pamir serve --no-scheduler` in a subprocess, with PAMIR_HOME and PAMIR_SMTP_* pointing at
an aiosmtpd server in this process (smtp_security none). One move is: a player pulls,
commits a legal move file (one random legal action) and pushes it to the forge; this
script posts the signed GitHub push webhook to the service over HTTP; the service fetches,
adjudicates, pushes back and mails the report to every player (`PAMIR_NOTIFY=every`) before
it answers. The clock
starts when the player's `git push` starts and stops when the SMTP server has accepted
the report of that move for every player.

1. Latency: L moves (default 120), one at a time, to the only game the service hosts.
2. The same, H moves (default 20), once the G games of step 3 are hosted too.
3. Throughput: G games (default 50) receive N moves each (default 2) concurrently, one
   thread per game: moves adjudicated and emailed per second, and the latency under load.

At the end it checks that every game verifies (`adjudicator.games.verify.verify`) and that every
move reached every player exactly once. Timings are printed, never asserted.

With `--json` the last line is one JSON object: step 1's `moves`, `push_to_email_p50_ms`,
`push_to_email_p99_ms` and `service_cpu_ms_per_move` (the CPU, user and system, of the
service's own process per move, its `git` children left out), of which
`service_kernel_ms_per_move` in the kernel, and `service_git_cpu_ms_per_move` (its `git`
children); the same figures of step 2 with the prefix `hosted_` and of step 3 with
`loaded_`, step 3's `moves_per_s`; then the checks (`all_moves`, `lost`, `repeated`,
`failed`, `unverified`) and `total_s`. The CPU keys are absent under `--gunicorn`.
Targets, on a quiet machine: a p50 push-to-email latency under 120 ms (step 1), and at least
23.4 moves a second with 50 games receiving at once (step 3).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine
from adjudicator.forge import newgames, remote
from adjudicator.games.pipeline import position
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings, load_settings
from adjudicator.web.webhooks import signature
from engine.game import legal_seat_actions
from engine.playout import NAMES

if TYPE_CHECKING:  # aiosmtpd is imported where it is needed, with a hint if it is missing
    from aiosmtpd.smtp import SMTP, Envelope, Session

WEBHOOK_SECRET = "benchmark-webhook-secret"
HOST = "127.0.0.1"
MAIL_DOMAIN = "players.example"
HTTP_TIMEOUT = 600.0  # seconds for one webhook delivery, however loaded the service is
MAIL_TIMEOUT = 60.0  # seconds for the reports once the service has answered
START_TIMEOUT = 60.0  # seconds for `pamir serve` to say where it listens
# On a quiet machine: step 1's p50 push to email, and step 3's moves a second with 50 games
# receiving at once (three times the 7.8 of the first version measured).
TARGET_MS = 120.0
TARGET_MOVES_PER_S = 3 * 7.8


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def run_git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done.stdout


# -- the mail server -----------------------------------------------------------------------


class Mailbox:
    """An aiosmtpd handler: when each message was accepted, by game and move."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.arrivals: dict[tuple[str, int], list[float]] = defaultdict(list)
        self.recipients: Counter[tuple[str, int, str]] = Counter()
        self.total = 0

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        accepted = time.perf_counter()
        data = envelope.original_content or envelope.content or b""
        if isinstance(data, str):  # only if the server was asked to decode the data
            data = data.encode()
        headers = BytesHeaderParser().parsebytes(data)
        key = (str(headers.get("X-Pamir-Game", "")), int(str(headers.get("X-Pamir-Move", "-1"))))
        with self.changed:
            self.arrivals[key].append(accepted)
            for address in envelope.rcpt_tos:
                self.recipients[(*key, str(address))] += 1
            self.total += 1
            self.changed.notify_all()
        return "250 Message accepted for delivery"

    def wait(self, game_id: str, number: int, count: int, timeout: float) -> float | None:
        """When the `count`-th message about a move was accepted; None if it did not come."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while len(self.arrivals[(game_id, number)]) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.changed.wait(left)
            return sorted(self.arrivals[(game_id, number)])[count - 1]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@contextmanager
def mail_server(mailbox: Mailbox) -> Iterator[int]:
    try:
        from aiosmtpd.controller import Controller
    except ModuleNotFoundError:
        raise SystemExit("aiosmtpd is needed: pip install -e '.[dev]'") from None
    port = free_port()
    controller = Controller(mailbox, hostname=HOST, port=port, ready_timeout=10)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


# -- the service ---------------------------------------------------------------------------


class Service:
    """`pamir serve` in a subprocess, on 127.0.0.1 and a free port; or, with `gunicorn`,
    the web process of the Procfile (2 worker processes of 8 threads), as deployed."""

    def __init__(
        self,
        root: Path,
        smtp_port: int | None,
        gunicorn: bool = False,
        *,
        name: str = "serve",
        env: dict[str, str] | None = None,
        scheduler: bool = False,
        start_timeout: float = START_TIMEOUT,
    ) -> None:
        """`smtp_port` None: no mail server, the messages are written to files (no
        smtp_host). `start_timeout`: seconds for the service to say where it listens."""
        self.log = root / f"{name}.log"
        self.out = root / f"{name}.out"
        self.gunicorn = gunicorn
        pamir = Path(sys.executable).parent / "pamir"
        command = [str(pamir), "serve"]
        if not pamir.exists():  # the same command without the console script
            command = [sys.executable, "-m", "adjudicator.web.serve"]
        arguments = ["--host", HOST, "--port", "0"] + ([] if scheduler else ["--no-scheduler"])
        if gunicorn:
            self.port = free_port()
            command = [str(Path(sys.executable).parent / "gunicorn"), "--bind"]
            command += [f"{HOST}:{self.port}", "--workers", "2", "--threads", "8"]
            arguments = ["--timeout", "120", "adjudicator.web:create_app()"]
        smtp = {
            "PAMIR_SMTP_HOST": HOST,
            "PAMIR_SMTP_PORT": str(smtp_port),
            "PAMIR_SMTP_SECURITY": "none",
            "PAMIR_SMTP_TIMEOUT": "30",
        }
        env = {
            **os.environ,
            **(smtp if smtp_port is not None else {}),
            "PAMIR_MAIL_FROM": "Pax Pamir <pamir@pamir.example>",
            "PAMIR_REPLY_DOMAIN": "pamir.example",
            "PAMIR_GITHUB_SECRET": WEBHOOK_SECRET,
            # Every player is mailed every move's report, which is what the benchmarks wait
            # for and count (the default, per-turn, mails most reports only at a turn's end).
            "PAMIR_NOTIFY": "every",
            **(env or {}),
        }
        with open(self.out, "wb") as out, open(self.log, "wb") as log:
            self.started = time.perf_counter()  # the process's start (perf_counter)
            self.process = subprocess.Popen(
                [*command, *arguments],
                cwd=root,
                env=env,
                stdout=out,
                stderr=log,
                start_new_session=True,  # a process group of its own, for `kill`
            )
        self.url = self._address(start_timeout)

    def _address(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while self.gunicorn and time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((HOST, self.port), 1):
                return f"http://{HOST}:{self.port}"
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        while time.monotonic() < deadline:
            for line in self.out.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("pamir: serving "):
                    return line.split()[2].rstrip("/")
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"pamir serve did not start:\n{self.tail()}")

    def cpu_seconds(self) -> tuple[float, float, float] | None:
        """CPU time of the service process itself, and of its finished children (git), from
        /proc, then the process's own time in the kernel (fsync, fork, locks: part of the
        first); None where there is no /proc, or under gunicorn (the work is in workers)."""
        if self.gunicorn:
            return None
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        tick = os.sysconf("SC_CLK_TCK")
        own = (int(fields[11]) + int(fields[12])) / tick
        children = (int(fields[13]) + int(fields[14])) / tick
        return own, children, int(fields[12]) / tick

    def tail(self, lines: int = 20) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL to the service and the git processes it runs, as when its machine is
        lost: no cleanup of any kind."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)


# -- games on the forge --------------------------------------------------------------------


@dataclass
class Sample:
    """One move, in seconds: the player's push, the webhook's HTTP round trip, from the
    webhook and from the push to the last report accepted by the SMTP server."""

    push: float
    response: float
    webhook_to_mail: float
    push_to_mail: float


@dataclass
class Game:
    """A game on the simulated forge, the players' clone, and the position as they see it."""

    game_id: str
    origin: Path
    clone: Path
    emails: dict[str, str]
    state: engine.State
    rng: random.Random
    number: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        """The game is over, or a move went wrong: no more moves for it."""
        return self.state.phase == "over" or bool(self.failures)


def host_game(
    settings: Settings,
    root: Path,
    game_id: str,
    players: int,
    seed: int,
    *,
    clone: bool = True,
    turn_hours: int = 48,
) -> Game:
    origin = root / "forge" / "players" / f"{game_id}.git"
    origin.mkdir(parents=True)
    run_git(origin, "init", "-q", "--bare", "--initial-branch=main")
    emails = {name: f"{name}@{MAIL_DOMAIN}" for name in NAMES[:players]}
    secret = hashlib.sha256(f"service benchmark {seed} {game_id}".encode()).hexdigest()
    repo = newgames.create_remote_game(
        settings,
        str(origin),
        list(emails.items()),
        game_id=game_id,
        secret=secret,
        turn_hours=turn_hours,
    )
    try:
        state = position(snapshot(repo), settings.home)
    finally:
        repo.repo.close()
    players_clone = root / "players" / game_id
    if clone:
        run_git(root, "clone", "-q", str(origin), str(players_clone))
    rng = random.Random(f"{seed} {game_id}")
    return Game(game_id, origin, players_clone, emails, state, rng)


def post_webhook(url: str, game: Game, delivery: str | None = None) -> dict[str, Any]:
    """The push event GitHub would send for the game's repository, signed (`delivery`: its
    id, when the forge delivers an event again; a new one by default)."""
    request = webhook_request(url, game, delivery)
    with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
        reply: dict[str, Any] = json.loads(response.read())
        reply["status"] = response.status
    return reply


def webhook_request(url: str, game: Game, delivery: str | None = None) -> urllib.request.Request:
    """The signed request of `post_webhook`, not sent (for a caller that times the send)."""
    after = run_git(game.origin, "rev-parse", "main").strip()
    full_name = f"players/{game.game_id}"
    body = json.dumps(
        {
            "ref": "refs/heads/main",
            "before": "0" * 40,
            "after": after,
            "deleted": False,
            "forced": False,
            "repository": {
                "full_name": full_name,
                "name": game.game_id,
                "clone_url": str(game.origin),
                "ssh_url": f"git@forge.example:{full_name}.git",
                "html_url": f"https://forge.example/{full_name}",
                "default_branch": "main",
            },
            "pusher": {"name": "player", "email": f"player@{MAIL_DOMAIN}"},
        }
    ).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/benchmark",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": "sha256=" + signature(WEBHOOK_SECRET, body),
    }
    return urllib.request.Request(f"{url}/webhooks/github", body, headers, method="POST")


def play_move(game: Game, url: str, mailbox: Mailbox) -> Sample | None:
    """One move pushed, delivered and mailed; None (and a failure noted) if it went wrong."""
    try:
        return _play_move(game, url, mailbox)
    except Exception as error:  # noted; the game gets no more moves
        game.failures.append(f"move {game.number + 1}: {error}")
        return None


def commit_move(game: Game) -> tuple[int, engine.Action, int]:
    """A player commits the next move (a random legal action) in the players' clone, not
    yet pushed: its seat, action and number."""
    seat, action = game.rng.choice(legal_seat_actions(game.state))
    player = game.state.name(seat)
    number = game.number + 1
    run_git(game.clone, "pull", "-q", "--ff-only", "origin", "main")
    moves = game.clone / "moves"
    moves.mkdir(exist_ok=True)
    name = f"moves/{number:04d}-{player}.txt"
    (game.clone / name).write_text(engine.format_action(action) + "\n", encoding="utf-8")
    run_git(game.clone, "add", name)
    author = f"{player} <{game.emails[player]}>"
    run_git(game.clone, "commit", "-q", "--author", author, "-m", f"{player}: move {number}")
    return seat, action, number


def _play_move(game: Game, url: str, mailbox: Mailbox) -> Sample | None:
    seat, action, number = commit_move(game)
    started = time.perf_counter()
    run_git(game.clone, "push", "-q", "origin", "main")
    pushed = time.perf_counter()
    reply = post_webhook(url, game)  # an error status raises urllib's HTTPError
    answered = time.perf_counter()
    game.number = number
    game.state = engine.apply(game.state, seat, action)
    if reply.get("adjudicated") != [number] or reply.get("refused"):
        game.failures.append(f"move {number}: unexpected reply {reply}")
        return None
    mailed = mailbox.wait(game.game_id, number, len(game.emails), MAIL_TIMEOUT)
    if mailed is None:
        game.failures.append(f"move {number}: the reports did not all arrive")
        return None
    return Sample(pushed - started, answered - pushed, mailed - pushed, mailed - started)


# -- reporting -----------------------------------------------------------------------------


def line(label: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"  {label:<17} p50 {percentile(ms, 0.5):7.1f} ms   p99 {percentile(ms, 0.99):7.1f} ms"
        f"   mean {statistics.mean(ms):7.1f} ms   max {max(ms):7.1f} ms"
    )


def print_samples(samples: list[Sample]) -> None:
    if not samples:
        print("  no move completed")
        return
    print(line("push to email", [s.push_to_mail for s in samples]))
    print(line("webhook to email", [s.webhook_to_mail for s in samples]))
    print(line("webhook response", [s.response for s in samples]))
    print(line("git push", [s.push for s in samples]))


def print_cpu(
    service: Service, before: tuple[float, float, float] | None, moves: int
) -> dict[str, float]:
    """Prints the service's CPU per move since `before`, and gives it (ms: `python`, its
    `kernel` part, `git`); nothing where it cannot be read."""
    after = service.cpu_seconds()
    if before is None or after is None or not moves:
        return {}
    own = (after[0] - before[0]) / moves * 1000
    children = (after[1] - before[1]) / moves * 1000
    kernel = (after[2] - before[2]) / moves * 1000
    print(
        f"  service CPU per move: {own:.0f} ms in the Python process ({kernel:.0f} ms of it"
        f" in the kernel), {children:.0f} ms in git"
    )
    return {"python": own, "kernel": kernel, "git": children}


def players_cpu_seconds() -> tuple[float, float]:
    """CPU time of this process (the players' threads and the mail server) and of its
    finished children (the players' git)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def print_players_cpu(before: tuple[float, float], moves: int) -> None:
    """The other side's share of the same cores: on one machine, the service's moves/s is
    bounded by the cores divided by the CPU of both sides per move."""
    if not moves:
        return
    after = players_cpu_seconds()
    own = (after[0] - before[0]) / moves * 1000
    children = (after[1] - before[1]) / moves * 1000
    print(
        f"  players and mail server CPU per move (same machine): {own:.0f} ms in this"
        f" process, {children:.0f} ms in the players' git"
    )


def print_lookup(settings: Settings, game: Game) -> None:
    """How long the webhook's first step takes: finding the game that tracks the pushed
    repository (`remote.find_game`, timed here in this process, the service idle)."""
    times: list[float] = []
    for _ in range(5):
        started = time.perf_counter()
        found = remote.find_game(settings, f"players/{game.game_id}", [str(game.origin)])
        times.append(time.perf_counter() - started)
        if found != game.game_id:
            print(f"  remote.find_game found {found!r}, not {game.game_id!r}")
    hosted = sum(1 for path in settings.games_dir.iterdir() if path.is_dir())
    print(
        f"  of which finding the game among {hosted} (remote.find_game): "
        f"{statistics.median(times) * 1000:.0f} ms"
    )


def sequential(
    game_of: Callable[[], Game], url: str, mailbox: Mailbox, moves: int, service: Service
) -> tuple[list[Sample], dict[str, float]]:
    """`moves` moves one after another; `game_of()` gives a game that is not over. The
    samples, and the service's CPU per move (`print_cpu`)."""
    samples: list[Sample] = []
    before = service.cpu_seconds()
    for _ in range(moves):
        sample = play_move(game_of(), url, mailbox)
        if sample is not None:
            samples.append(sample)
    print_samples(samples)
    return samples, print_cpu(service, before, len(samples))


def summary(prefix: str, samples: list[Sample], cpu: dict[str, float]) -> dict[str, float]:
    """One step's figures for `--json`, rounded, under keys that start with `prefix`."""
    figures: dict[str, float] = {}
    if samples:
        ms = [s.push_to_mail * 1000 for s in samples]
        figures[f"{prefix}push_to_email_p50_ms"] = round(percentile(ms, 0.5), 1)
        figures[f"{prefix}push_to_email_p99_ms"] = round(percentile(ms, 0.99), 1)
    names = {"python": "service_cpu_ms_per_move", "kernel": "service_kernel_ms_per_move"}
    names["git"] = "service_git_cpu_ms_per_move"
    for part, value in cpu.items():
        figures[f"{prefix}{names[part]}"] = round(value, 1)
    return figures


def isolate_git(root: Path) -> None:
    """No user or system Git configuration for this process and its children (HOME is a
    new folder in `root`), the players' identity, and no stray Git or fault variables."""
    user = root / "user"
    user.mkdir()
    os.environ.update(
        {
            "HOME": str(user),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Benchmark Player",
            "GIT_AUTHOR_EMAIL": f"player@{MAIL_DOMAIN}",
            "GIT_COMMITTER_NAME": "Benchmark Player",
            "GIT_COMMITTER_EMAIL": f"player@{MAIL_DOMAIN}",
        }
    )
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "PAMIR_FAULT"):
        os.environ.pop(key, None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="games under load (default 50)")
    parser.add_argument("--moves", type=int, default=2, help="moves per game under load")
    parser.add_argument("--latency-moves", type=int, default=120, help="moves of step 1")
    parser.add_argument("--hosted-moves", type=int, default=20, help="moves of step 2")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--gunicorn", action="store_true", help="serve as the Procfile does: 2 workers, 8 threads"
    )
    parser.add_argument("--json", action="store_true", help="end with one line of JSON")
    args = parser.parse_args()
    # Stopped from outside (`timeout`, a test giving up): stop the service and remove the
    # folder on the way out, as at the end, rather than leave `pamir serve` running.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    games_wanted = max(1, args.games)
    began = time.perf_counter()

    with tempfile.TemporaryDirectory(prefix="pamir-service-bench-") as folder:
        root = Path(folder)
        isolate_git(root)
        os.environ["PAMIR_HOME"] = str(root / "home")
        settings = load_settings()
        mailbox = Mailbox()
        solo: list[Game] = []
        games: list[Game] = []
        throughput: float | None = None  # step 3's moves a second
        first: list[Sample] = []
        figures: dict[str, Any] = {"players": args.players, "seed": args.seed}

        def solo_game() -> Game:
            if not solo or solo[-1].finished:  # go on with a new game
                game_id = f"solo-{len(solo) + 1}"
                solo.append(host_game(settings, root, game_id, args.players, args.seed))
            return solo[-1]

        with mail_server(mailbox) as smtp_port:
            solo_game()
            service = Service(root, smtp_port, gunicorn=args.gunicorn)
            try:
                print(
                    f"pamir serve at {service.url}, SMTP at {HOST}:{smtp_port}, "
                    f"{args.players} players a game, seed {args.seed}"
                )
                print(f"1. latency, one game hosted ({args.latency_moves} moves, one at a time):")
                first, cpu = sequential(
                    solo_game, service.url, mailbox, args.latency_moves, service
                )
                figures["moves"] = len(first)
                figures.update(summary("", first, cpu))
                print_lookup(settings, solo_game())

                started = time.perf_counter()
                games = [
                    host_game(settings, root, f"g{n:02d}", args.players, args.seed)
                    for n in range(1, games_wanted + 1)
                ]
                setup = time.perf_counter() - started
                hosted = len(games) + len(solo)
                print(
                    f"2. latency, {hosted} games hosted ({args.hosted_moves} moves, one at a "
                    f"time; the {len(games)} games were set up in {setup:.1f} s):"
                )
                hosted_samples, cpu = sequential(
                    solo_game, service.url, mailbox, args.hosted_moves, service
                )
                figures["hosted_games"] = hosted
                figures.update(summary("hosted_", hosted_samples, cpu))
                print_lookup(settings, solo_game())

                print(
                    f"3. throughput, {len(games)} games receiving {args.moves} moves each "
                    "concurrently:"
                )
                loaded: list[Sample] = []
                record = threading.Lock()
                ready = threading.Barrier(len(games) + 1)

                def player(game: Game) -> None:
                    ready.wait()
                    for _ in range(args.moves):
                        if game.finished:
                            break
                        sample = play_move(game, service.url, mailbox)
                        if sample is not None:
                            with record:
                                loaded.append(sample)

                before = service.cpu_seconds()
                side_before = players_cpu_seconds()
                with ThreadPoolExecutor(max_workers=len(games)) as pool:
                    for game in games:
                        pool.submit(player, game)
                    ready.wait()
                    started = time.perf_counter()
                wall = time.perf_counter() - started
                done = sum(g.number for g in games)
                throughput = done / wall
                print(
                    f"  {done} moves adjudicated and emailed in {wall:.1f} s: "
                    f"{done / wall:.2f} moves/s, {done * args.players / wall:.1f} messages/s"
                )
                print_samples(loaded)
                cpu = print_cpu(service, before, done)
                print_players_cpu(side_before, done)
                figures["loaded_games"] = len(games)
                figures["loaded_moves"] = done
                figures["moves_per_s"] = round(throughput, 2)
                figures.update(summary("loaded_", loaded, cpu))
            finally:
                service.stop()
            if service.process.returncode not in (0, None):
                print(f"pamir serve exited with {service.process.returncode}:\n{service.tail()}")

            everything = solo + games
            moves = sum(g.number for g in everything)
            expected = moves * args.players
            lost = sum(
                1
                for g in everything
                for n in range(1, g.number + 1)
                for address in g.emails.values()
                if mailbox.recipients[(g.game_id, n, address)] == 0
            )
            repeated = sum(count - 1 for count in mailbox.recipients.values() if count > 1)
            failed = [f"{g.game_id} {why}" for g in everything for why in g.failures]
            unverified = []
            for game in everything:
                repo = GameRepo(game.origin)
                try:
                    if not verify(repo, settings.home).ok:
                        unverified.append(game.game_id)
                finally:
                    repo.repo.close()

        print(
            f"checks: {len(everything)} games, {moves} moves, {mailbox.total} messages received "
            f"for {expected} expected ({lost} lost, {repeated} repeated); "
            f"{len(everything) - len(unverified)} of {len(everything)} games verify"
        )
        for problem in failed[:10]:
            print(f"  failed: {problem}")
        for game_id in unverified:
            print(f"  does not verify: {game_id}")
        if first:
            p50 = percentile([s.push_to_mail * 1000 for s in first], 0.5)
            met = "met" if p50 < TARGET_MS else "NOT met"
            print(f"target: p50 push to email under {TARGET_MS:.0f} ms (step 1): {met}")
        if throughput is not None:
            met = "met" if throughput >= TARGET_MOVES_PER_S else "NOT met"
            print(
                f"target: at least {TARGET_MOVES_PER_S:.1f} moves/s with {len(games)} games "
                f"receiving at once (step 3): {met}"
            )
        print(f"total time: {time.perf_counter() - began:.0f} s")
        if args.json:
            figures["all_moves"] = moves
            figures.update(lost=lost, repeated=repeated, failed=len(failed))
            figures["unverified"] = len(unverified)
            figures["total_s"] = round(time.perf_counter() - began, 1)
            print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
