"""Mail that survives a crash: every adjudication's mails are sent once, whatever dies when.

The service is run as real processes (`pamir inbound-email` reading a message on standard
input, `pamir serve` taking a forge's webhook) against a real SMTP server (aiosmtpd), and
made to die: at each `PAMIR_FAULT` point (exit status 70), or by a real `kill -9` at a
random moment. Then the sender delivers again (an MTA retries, a forge redelivers), and one
reconciler pass runs, as the scheduler's next tick would. What the SMTP server received is
counted: for each move, one report per player and one answer to its author, none lost and
none twice; and `pamir verify` still says the game is sound.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

import pytest
from gitgame import PAMIR, SECRET, decider, full_state, git, head, push
from liveserver import fetch, github_headers, push_payload, serving
from mailserver import (
    DOMAIN,
    MAIL_FROM,
    MailServer,
    mail_server,
    plain,
    reply_address,
    settings_for,
)

from adjudicator.forge import newgames
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.registry import open_game
from adjudicator.games.verify import verify
from adjudicator.home.faults import FAULT_EXIT, POINTS, SEND_POINTS
from adjudicator.home.settings import Settings
from adjudicator.mail import ledger, outbox, report_mails
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.outbox.common import PENDING, header_block
from adjudicator.mail.outbox.folders import state_folder
from adjudicator.web import create_app

GITHUB_SECRET = "crash-safety-secret"
SERVE_LINE = re.compile(r"serving http://127\.0\.0\.1:(\d+)/")

pytestmark = pytest.mark.usefixtures("home")


@dataclass
class Service:
    """A PAMIR_HOME with one game, the SMTP server its mail goes to, and how to run it."""

    settings: Settings
    server: MailServer
    game_id: str
    forge: Path | None = None  # the simulated forge's bare repository, for a hosted game

    @property
    def path(self) -> Path:
        return self.settings.games_dir / self.game_id

    def env(self, fault: str | None = None) -> dict[str, str]:
        env = {
            **os.environ,
            "PAMIR_HOME": str(self.settings.home),
            "PAMIR_SMTP_HOST": "127.0.0.1",
            "PAMIR_SMTP_PORT": str(self.server.port),
            "PAMIR_SMTP_SECURITY": "none",
            "PAMIR_MAIL_FROM": MAIL_FROM,
            "PAMIR_REPLY_LOCAL": "play",
            "PAMIR_REPLY_DOMAIN": DOMAIN,
            "PAMIR_GITHUB_SECRET": GITHUB_SECRET,
        }
        env.pop("PAMIR_FAULT", None)
        if fault is not None:
            env["PAMIR_FAULT"] = fault
        return env

    def reconciler_pass(self) -> None:
        """What the scheduler's next tick does: queue what is missing, deliver it all."""
        ledger.reconcile_all(self.settings)
        outbox.deliver(self.settings, force=True)

    def verified(self) -> bool:
        repo = open_game(self.settings, self.game_id)
        try:
            return verify(repo, self.settings.home).ok
        finally:
            repo.repo.close()


@pytest.fixture
def server() -> Iterator[MailServer]:
    with mail_server() as running:
        yield running


def by_email(home: Path, server: MailServer) -> Service:
    """A game played by email, its first reports sent (so each player has a thread)."""
    settings = settings_for(home, server.port, github_secret=GITHUB_SECRET)
    repo = create_game(
        settings.games_dir / "g1",
        [("alice", "alice@players.example"), ("bob", "bob@players.example")],
        home=home,
        secret=SECRET,
    )
    head_commit = repo.head()
    assert head_commit is not None
    first = Adjudication(0, head_commit, repo.read("reports/0000.md") or "")
    report_mails.notify(settings, repo, [first])
    repo.repo.close()
    return Service(settings, server, "g1")


def on_a_forge(tmp_path: Path, home: Path, server: MailServer) -> Service:
    """A game hosted on a forge (a local bare repository) and the service's clone."""
    settings = settings_for(home, server.port, github_secret=GITHUB_SECRET)
    origin = tmp_path / "forge" / "club" / "g1.git"
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "--bare", "--initial-branch=main")
    repo = newgames.create_remote_game(
        settings,
        str(origin),
        [("alice", "alice@players.example"), ("bob", "bob@players.example")],
        game_id="g1",
        secret=SECRET,
    )
    repo.repo.close()
    return Service(settings, server, "g1", origin)


# -- what a player writes --------------------------------------------------------------------


def next_move(service: Service) -> tuple[str, str]:
    """Who decides now and a legal move for them (on the forge, if the game is there)."""
    source = service.path
    if service.forge is not None:
        source = clone_of(service, "reader")
    player, options = decider(full_state(source))
    return player, options[0] + "\n"


def email(service: Service, player: str, text: str) -> bytes:
    message = EmailMessage()
    message["From"] = f"{player}@players.example"
    message["To"] = reply_address(service.settings, service.game_id, player)
    message["Subject"] = f"Re: Pax Pamir game {service.game_id}"
    message["Date"] = formatdate()
    message["Message-ID"] = make_msgid(domain="players.example")
    message.set_content(text)
    return message.as_bytes()


def clone_of(service: Service, name: str) -> Path:
    assert service.forge is not None
    target = service.forge.parent.parent / f"clone-{name}"
    if target.exists():
        git(target, "pull", "-q", "--ff-only", "origin", "main")
    else:
        git(service.forge.parent, "clone", "-q", str(service.forge), str(target))
    return target


def push_move(service: Service, player: str, text: str) -> int:
    """The player pushes the next move file to the forge; its number."""
    clone = clone_of(service, player)
    number = len(git(clone, "ls-tree", "--name-only", "main", "moves/").split()) + 1
    (clone / "moves").mkdir(exist_ok=True)
    (clone / "moves" / f"{number:04d}-{player}.txt").write_text(text, encoding="utf-8")
    git(clone, "add", "moves")
    author = f"{player} <{player}@players.example>"  # the contract: by its own player
    git(clone, "commit", "-q", "--author", author, "-m", f"{player}: move {number}")
    done = push(clone)
    assert done.returncode == 0, done.stderr
    return number


# -- counting what the SMTP server received --------------------------------------------------


@dataclass
class Tally:
    reports: Counter[str]  # recipient -> reports of the move
    confirmations: int
    refusals: int
    duplicate_ids: list[str]


def tally(server: MailServer, number: int, author: str) -> Tally:
    """Each distinct message counted once (by its Message-ID); those received more than
    once listed in `duplicate_ids`."""
    reports: Counter[str] = Counter()
    confirmations = refusals = 0
    ids = Counter(str(m["Message-ID"]) for m in server.messages)
    counted: set[str] = set()
    for message in server.messages:
        message_id = str(message["Message-ID"])
        if message_id in counted:
            continue
        counted.add(message_id)
        subject = str(message["Subject"])
        if not subject.startswith("Re:"):
            if str(message["X-Pamir-Move"]) == str(number):
                reports[str(message["X-Pamir-Player"])] += 1
            continue
        if str(message["X-Pamir-Player"]) != author:
            continue
        body = plain(message)
        if f"move {number} accepted" in body:
            confirmations += 1
        elif "your move was not accepted" in body:
            refusals += 1
    return Tally(reports, confirmations, refusals, [i for i, n in ids.items() if n > 1])


def caught_in_the_act(service: Service) -> set[str]:
    """The Message-IDs of the messages a kill caught between the SMTP server's acceptance
    and the move to sent/: still pending, yet received. These alone may be sent again
    (docs/email.md, the outbox: SMTP offers no way to close that window)."""
    pending = state_folder(service.settings, PENDING).glob("*.eml")
    queued = {str(header_block(path.read_bytes()).get("Message-ID", "")) for path in pending}
    received = {str(message["Message-ID"]) for message in service.server.messages}
    return queued & received


def assert_mailed_once(
    service: Service,
    number: int,
    author: str,
    *,
    answered: bool,
    resendable: frozenset[str] = frozenset(),
) -> None:
    """One report of the move per player, at most one answer to its author (exactly one,
    a confirmation, when `answered`), no message twice but those of `resendable` (a kill
    caught them in the moment between the server's acceptance and the move to sent/), and
    those at most twice; the game verifies."""
    counted = tally(service.server, number, author)
    assert counted.reports == Counter({"alice": 1, "bob": 1}), counted
    assert counted.refusals == 0, counted
    assert counted.confirmations == (1 if answered else 0), counted
    assert set(counted.duplicate_ids) <= resendable, (counted, resendable)
    copies = Counter(str(m["Message-ID"]) for m in service.server.messages)
    assert all(copies[i] == 2 for i in counted.duplicate_ids), counted
    assert service.verified()


def moves_committed(service: Service) -> int:
    return len(git(service.path, "ls-tree", "--name-only", "main", "moves/").split())


# -- pamir inbound-email ---------------------------------------------------------------------


def inbound(
    service: Service, raw: bytes, fault: str | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(PAMIR), "inbound-email"],
        input=raw,
        env=service.env(fault),
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("fault", POINTS + SEND_POINTS)
def test_an_emailed_move_is_mailed_once_whatever_point_the_process_dies_at(
    home: Path, server: MailServer, fault: str
) -> None:
    service = by_email(home, server)
    player, text = next_move(service)
    raw = email(service, player, text)

    crashed = inbound(service, raw, fault)
    assert crashed.returncode == FAULT_EXIT, crashed.stderr.decode()
    resendable = caught_in_the_act(service)
    assert bool(resendable) == (fault in SEND_POINTS), resendable
    again = inbound(service, raw)  # the MTA keeps the message and delivers it again
    assert again.returncode == 0, again.stderr.decode()
    assert b"accepted: move 1 adjudicated" in again.stdout
    service.reconciler_pass()

    assert moves_committed(service) == 1
    assert_mailed_once(service, 1, player, answered=True, resendable=frozenset(resendable))
    third = inbound(service, raw)  # and once more: the same answer, nothing sent
    assert third.returncode == 0 and b"accepted: move 1 adjudicated" in third.stdout
    count = len(server.messages)
    service.reconciler_pass()
    assert len(server.messages) == count


def test_a_refusal_is_mailed_once_after_a_crash_before_sending(
    home: Path, server: MailServer
) -> None:
    service = by_email(home, server)
    player, _ = next_move(service)
    raw = email(service, player, "loyalty nowhere\n")

    crashed = inbound(service, raw, "before-send")
    assert crashed.returncode == FAULT_EXIT
    again = inbound(service, raw)
    assert again.returncode == 0 and again.stdout.startswith(b"refused: ")
    service.reconciler_pass()

    refusals = [m for m in server.messages if "your move was not accepted" in plain(m)]
    assert len(refusals) == 1 and moves_committed(service) == 0
    assert service.verified()


def test_a_kill_at_a_random_moment_of_inbound_email_loses_and_repeats_nothing(
    home: Path, server: MailServer
) -> None:
    service = by_email(home, server)
    chance = random.Random(2026)
    resendable: set[str] = set()
    for number in range(1, 4):
        player, text = next_move(service)
        raw = email(service, player, text)
        process = subprocess.Popen(
            [str(PAMIR), "inbound-email"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=service.env(),
        )
        assert process.stdin is not None
        process.stdin.write(raw)
        process.stdin.close()
        time.sleep(chance.uniform(0.0, 2.0))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        resendable |= caught_in_the_act(service)
        again = inbound(service, raw)
        assert again.returncode == 0, again.stderr.decode()
        assert f"accepted: move {number} adjudicated".encode() in again.stdout
        service.reconciler_pass()
        assert moves_committed(service) == number
        assert_mailed_once(service, number, player, answered=True, resendable=frozenset(resendable))


# -- pamir serve and a forge's webhook -------------------------------------------------------


class Serving:
    """`pamir serve --no-scheduler` as a process of its own, on a free port."""

    def __init__(self, service: Service, fault: str | None = None) -> None:
        self.process = subprocess.Popen(
            [str(PAMIR), "serve", "--no-scheduler", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=service.env(fault),
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = SERVE_LINE.search(line)
        assert match is not None, line
        self.url = f"http://127.0.0.1:{match.group(1)}"

    def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        if self.process.poll() is None:
            self.process.send_signal(how)
        self.process.wait(timeout=60)
        if self.process.stdout is not None:
            self.process.stdout.close()


def webhook(url: str, service: Service, delivery: str) -> int | None:
    """Deliver the forge's push event; the status, or None if the server died on it."""
    assert service.forge is not None
    body = push_payload("club/g1", str(service.forge), head(service.forge))
    try:
        reply = fetch(f"{url}/webhooks/github", body, github_headers(GITHUB_SECRET, body, delivery))
    except OSError:
        return None
    return reply.status


@pytest.mark.parametrize("fault", POINTS + SEND_POINTS)
def test_a_pushed_move_is_mailed_once_whatever_point_serve_dies_at(
    tmp_path: Path, home: Path, server: MailServer, fault: str
) -> None:
    service = on_a_forge(tmp_path, home, server)
    player, text = next_move(service)
    number = push_move(service, player, text)

    crashing = Serving(service, fault)
    assert webhook(crashing.url, service, "delivery-1") is None
    assert crashing.process.wait(timeout=60) == FAULT_EXIT
    crashing.stop()
    resendable = caught_in_the_act(service)
    assert bool(resendable) == (fault in SEND_POINTS), resendable
    restarted = Serving(service)
    try:
        assert webhook(restarted.url, service, "delivery-1") == 200  # the forge redelivers
    finally:
        restarted.stop()
    service.reconciler_pass()

    assert head(service.forge or service.path) == head(service.path)
    assert_mailed_once(service, number, player, answered=False, resendable=frozenset(resendable))


def test_a_kill_at_a_random_moment_of_a_webhook_loses_and_repeats_nothing(
    tmp_path: Path, home: Path, server: MailServer
) -> None:
    service = on_a_forge(tmp_path, home, server)
    chance = random.Random(7)
    resendable: set[str] = set()
    for attempt in range(1, 3):
        player, text = next_move(service)
        number = push_move(service, player, text)
        serving_ = Serving(service)
        delivery = f"delivery-{attempt}"
        sender = threading.Thread(target=webhook, args=(serving_.url, service, delivery))
        sender.start()
        time.sleep(chance.uniform(0.0, 1.5))
        serving_.stop(signal.SIGKILL)
        sender.join(timeout=60)
        resendable |= caught_in_the_act(service)
        restarted = Serving(service)
        try:
            assert webhook(restarted.url, service, delivery) == 200
        finally:
            restarted.stop()
        service.reconciler_pass()
        assert_mailed_once(
            service, number, player, answered=False, resendable=frozenset(resendable)
        )


# -- a push racing an email of the same move -------------------------------------------------


@pytest.mark.parametrize("order", ["push-first", "email-first", "pushed-before-email-handled"])
def test_a_push_racing_an_email_of_the_same_move_is_reported_once(
    tmp_path: Path, home: Path, server: MailServer, order: str
) -> None:
    """The author gets one answer, saying the move was accepted, and every player one
    report of it, whichever of the two the service handles first."""
    service = on_a_forge(tmp_path, home, server)
    player, text = next_move(service)
    raw = email(service, player, text)
    app = create_app({"home": home, **service.settings.model_dump(exclude={"home"})})
    with serving(app) as url:
        if order == "push-first":
            push_move(service, player, text)
            assert webhook(url, service, "delivery-1") == 200
            result = handle_message(service.settings, raw)
        elif order == "email-first":
            result = handle_message(service.settings, raw)
            assert webhook(url, service, "delivery-1") == 200
        else:  # on the forge already, its webhook not yet handled
            push_move(service, player, text)
            result = handle_message(service.settings, raw)
            assert webhook(url, service, "delivery-1") == 200
    service.reconciler_pass()

    assert (result.status, result.number) == ("accepted", 1), result.reason
    assert_mailed_once(service, 1, player, answered=True)
    assert head(service.forge or service.path) == head(service.path)
    again = handle_message(service.settings, raw)
    assert (again.status, again.number, again.duplicate) == ("accepted", 1, True)
