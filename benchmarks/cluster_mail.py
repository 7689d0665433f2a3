"""Several service nodes on one PostgreSQL database, every move sent by email to any node.

    python benchmarks/cluster.py --email [--nodes 3] [--games 6] [--moves 8] [--players 4]
                                 [--twice 0.3] [--flaky 0] [--show-errors 0] [--seed 7]

benchmarks/cluster.py's machinery (a database of its own, `pamir db upgrade`, games set up
in a home of their own, registered in the database and kept on a simulated forge of local
bare repositories; aiosmtpd counting what each player receives), with N nodes (default 3),
each a `pamir serve` with the scheduler (one elected) and a PAMIR_HOME of its own.

Each game plays M moves (default 8), one thread per game, all games at once. A move is an
email from the player to move, as a mail program writes a reply to the last mail that
player had from the game (its Reply-To, the reply address with its token, and its
Message-ID as In-Reply-To; mail_auth is `token`, the default); a mail server posts it to
/inbound/email of a random node. A fraction of the messages (`--twice`, default 0.3) is
posted to a second node too, the same bytes: half of them at the same moment (two MX
hosts each taking a copy), half once the first has been answered (a mail server that
delivers again). A 503 answer (try again later), or none, is posted again to a random node
a moment later, as a mail server does. With `--flaky F` the forge refuses that share of
the service's pushes (a pre-receive hook): the node that made the commit keeps it unpushed
and answers 503, and the message is posted again, to any node.

Counted at the end, from the answers, the forge's history and the mailbox:
- legal_refused: moves refused although legal in the position the forge holds (the
  benchmark plays the same moves in its own copy of the game);
- moves_twice: moves adjudicated more than once (their Pamir-Move trailers on the forge);
- restore_commits: "Restore the adjudicator's files after ..." commits on the forge, and
  put_back_notices: "pushed changes were put back" (or history put back) mails: the
  benchmark's players never tamper with anything, so every one is false;
- reports: per player and per move (`notify every`), lost or duplicated; answers to the
  authors (confirmations, refusals) duplicated;
- the HTTP statuses of every delivery, and of the messages delivered twice:
  duplicates_ok counts those that were one move with 200 for both deliveries.
The last line is a JSON object of them all. Targets: no legal move refused, none
adjudicated twice, no restore commit or notice, each report exactly once, and every
message delivered twice one move answered 200 both times.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import formatdate
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cluster import (
    Nodes,
    adjudicated_moves,
    host_games,
    prepare,
    start_nodes,
    stop_nodes,
    upgrade,
)
from service import HOST, MAIL_DOMAIN, Game, mail_server, run_git

import engine
from adjudicator.home.secret_key import new_key
from adjudicator.home.settings import load_settings
from adjudicator.mail import tokens
from engine.game import legal_seat_actions

if TYPE_CHECKING:
    from aiosmtpd.smtp import SMTP, Envelope, Session

REPLY_DOMAIN = "pamir.example"  # benchmarks/service.py's nodes: PAMIR_REPLY_DOMAIN
REPORT_TIMEOUT = 60.0  # seconds for a move's reports once its delivery was answered
QUIET_SECONDS = 3.0  # after the last report, for a second copy of any to arrive
RETRIES = 40  # posts of one message, 503s and dropped connections included
RETRY_SECONDS = 0.5
HTTP_TIMEOUT = 300.0
REQUEST_503 = re.compile(r"ERROR adjudicator\.web\.requests: \S+ \S+ 503 ")
PUT_BACK = ("pushed changes were put back", "history was put back")
RESTORE_SUBJECT = "Restore the adjudicator's files after"
# The forge refuses a push now and then (`--flaky`): a node is left with an emailed move it
# committed and could not push, answered 503, and the message goes to another node.
FLAKY_HOOK = """#!/bin/sh
roll=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
[ $((roll % 1000)) -lt {per_mille} ] && echo "refused for now" >&2 && exit 1
exit 0
"""


# -- the mailbox -----------------------------------------------------------------------------


@dataclass
class Mailed:
    """What the players received, by kind."""

    reports: Counter[tuple[str, int, str]] = field(default_factory=Counter)
    answers: Counter[tuple[str, str]] = field(default_factory=Counter)  # Message-ID, kind
    put_back: list[str] = field(default_factory=list)
    # The last mail each player had from each game: its move, Message-ID and Reply-To.
    last: dict[tuple[str, str], tuple[int, str, str]] = field(default_factory=dict)


class Mailbox:
    """An aiosmtpd handler that reads every message whole and sorts it (`Mailed`)."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.mailed = Mailed()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        data = envelope.original_content or b""
        message = BytesParser(policy=policy.default).parsebytes(data.replace(b"\r\n", b"\n"))
        assert isinstance(message, EmailMessage)
        with self.changed:
            self._sort(message)
            self.changed.notify_all()
        return "250 Message accepted for delivery"

    def _sort(self, message: EmailMessage) -> None:
        game = str(message.get("X-Pamir-Game", ""))
        player = str(message.get("X-Pamir-Player", ""))
        number = int(str(message.get("X-Pamir-Move", "-1")))
        body = message.get_body(preferencelist=("plain",))
        text = str(body.get_content()) if body is not None else ""
        if any(words in text for words in PUT_BACK):
            self.mailed.put_back.append(f"{game} {player}: {text.splitlines()[0]}")
        if str(message.get("X-Pamir-Kind", "")) == "report":
            self.mailed.reports[(game, number, player)] += 1
        elif str(message.get("Subject", "")).startswith("Re:"):
            kind = "refusal" if "your move was not accepted" in text else "answer"
            self.mailed.answers[(str(message["Message-ID"]), kind)] += 1
        seen = self.mailed.last.get((game, player))
        if seen is None or number >= seen[0]:
            reply = str(message.get("Reply-To", ""))
            self.mailed.last[(game, player)] = (number, str(message["Message-ID"]), reply)

    def last(self, game: str, player: str) -> tuple[int, str, str] | None:
        with self.changed:
            return self.mailed.last.get((game, player))

    def wait_reports(self, game: str, number: int, players: list[str], timeout: float) -> bool:
        """Whether every player had the report of move `number` within `timeout`."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while any(self.mailed.reports[(game, number, p)] == 0 for p in players):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.changed.wait(left)
            return True


# -- the players' mail -----------------------------------------------------------------------


def reply(game: Game, player: str, text: str, mailbox: Mailbox, fallback: str) -> bytes:
    """The player's reply to the last mail they had from the game, as a mail program
    writes it: to its Reply-To, naming it in In-Reply-To."""
    message = EmailMessage()
    message["From"] = game.emails[player]
    last = mailbox.last(game.game_id, player.lower())
    message["To"] = last[2] if last is not None and last[2] else fallback
    message["Subject"] = f"Re: Pax Pamir game {game.game_id}"
    message["Date"] = formatdate()
    message["Message-ID"] = f"<{uuid.uuid4().hex}@{MAIL_DOMAIN}>"
    if last is not None:
        message["In-Reply-To"] = last[1]
        message["References"] = last[1]
    message.set_content(f"{text}\n\n-- \n{player}\n")
    return message.as_bytes()


@dataclass
class Delivery:
    """One post of a message to a node: its HTTP status (0: no answer) and outcome."""

    node: str
    status: int
    result: dict[str, Any]


def post(url: str, raw: bytes) -> Delivery:
    request = urllib.request.Request(
        f"{url}/inbound/email", raw, {"Content-Type": "message/rfc822"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            body = json.loads(response.read())
            return Delivery(url, response.status, dict(body.get("result") or {}))
    except urllib.error.HTTPError as error:
        return Delivery(url, error.code, {"error": error.read().decode("utf-8", "replace")})
    except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
        return Delivery(url, 0, {"error": str(error)})


@dataclass
class Tally:
    """Everything the deliveries were answered, shared by the games' threads."""

    sent: int = 0
    accepted: int = 0
    legal_refused: list[str] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)  # every post
    retried: int = 0  # posts answered 503 or not at all, posted again
    twice: int = 0  # messages delivered to two nodes
    twice_ok: int = 0  # ... one move, answered 200 both times
    twice_bad: list[str] = field(default_factory=list)
    unreported: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def deliver(nodes: Nodes, first: str, raw: bytes, rng: random.Random, tally: Tally) -> Delivery:
    """Post the message to node `first`, then, for as long as it is answered 503 or not at
    all, again to a random node a moment later, as a mail server does."""
    name = first
    for _ in range(RETRIES):
        done = post(nodes.nodes[name].url, raw)
        done.node = name
        with tally.lock:
            tally.statuses[done.status] += 1
        if done.status not in (0, 503):
            return done
        with tally.lock:
            tally.retried += 1
        time.sleep(RETRY_SECONDS)
        name = rng.choice(sorted(nodes.nodes))
    return done


def deliveries(
    nodes: Nodes, raw: bytes, rng: random.Random, twice: bool, tally: Tally
) -> list[Delivery]:
    """The message posted to a random node, and to a second one when `twice`: at the same
    moment (two MX hosts) or after the first answer (a retry), one of each in turn."""
    names = sorted(nodes.nodes)
    first = rng.choice(names)
    if not twice:
        return [deliver(nodes, first, raw, rng, tally)]
    second = rng.choice([n for n in names if n != first])
    if rng.random() < 0.5:
        return [deliver(nodes, first, raw, rng, tally), deliver(nodes, second, raw, rng, tally)]
    found: list[Delivery] = []
    other = threading.Thread(
        target=lambda: found.append(deliver(nodes, second, raw, random.Random(), tally))
    )
    other.start()
    found.insert(0, deliver(nodes, first, raw, rng, tally))
    other.join()
    return found


def play(
    game: Game, nodes: Nodes, mailbox: Mailbox, args: argparse.Namespace, tally: Tally
) -> None:
    """The game's moves, each by email from the player to move."""
    settings = load_settings({**args.settings, "reply_domain": REPLY_DOMAIN})
    for _ in range(args.moves):
        if game.state.phase == "over":
            return
        seat, action = game.rng.choice(legal_seat_actions(game.state))
        player = game.state.name(seat)
        number = game.number + 1
        fallback = tokens.reply_address(settings, game.game_id, player.lower())
        raw = reply(game, player, engine.format_action(action), mailbox, fallback)
        twice = game.rng.random() < args.twice
        with tally.lock:
            tally.sent += 1
        done = deliveries(nodes, raw, game.rng, twice, tally)
        said = [
            f"{d.node} {d.status} {d.result.get('status')} #{d.result.get('number')}" for d in done
        ]
        accepted = [d for d in done if d.result.get("status") == "accepted"]
        if not accepted:
            reasons = "; ".join(str(d.result.get("reason") or d.result.get("error")) for d in done)
            with tally.lock:
                tally.legal_refused.append(f"{game.game_id} move {number} by {player}: {reasons}")
            continue  # the same position: the next move is drawn from it again
        game.number = number
        game.state = engine.apply(game.state, seat, action)
        with tally.lock:
            tally.accepted += 1
            if twice:
                tally.twice += 1
                one = {d.result.get("number") for d in done} == {number}
                if one and all(d.status == 200 for d in done):
                    tally.twice_ok += 1
                else:
                    tally.twice_bad.append(f"{game.game_id} move {number}: {said}")
        players = [p.lower() for p in game.emails]
        if not mailbox.wait_reports(game.game_id, number, players, REPORT_TIMEOUT):
            with tally.lock:
                tally.unreported.append(f"{game.game_id} move {number}")
            return  # the players would not know the position: no more moves for this game


# -- the measurement -------------------------------------------------------------------------


def restore_commits(game: Game) -> int:
    subjects = run_git(game.origin, "log", "--format=%s", "main").splitlines()
    return sum(1 for s in subjects if s.startswith(RESTORE_SUBJECT))


def measure(root: Path, url: str, args: argparse.Namespace) -> dict[str, Any]:
    mailbox = Mailbox()
    with mail_server(mailbox) as smtp_port:  # type: ignore[arg-type]
        print(f"database {url.rsplit('/', 1)[-1]}, SMTP at {HOST}:{smtp_port}")
        env = prepare(root, "mail", url, new_key())
        env["PAMIR_NOTIFY"] = "every"  # one report per player per move, to count
        upgrade(env)
        args.settings = {
            "home": env["PAMIR_HOME"],
            "database_url": url,
            "secret_key": env["PAMIR_SECRET_KEY"],
        }
        games = host_games(root / "mail", env, "mail", args.games, args.players, args.seed)
        if args.flaky:
            for game in games:
                hook = game.origin / "hooks" / "pre-receive"
                hook.write_text(FLAKY_HOOK.format(per_mille=round(args.flaky * 1000)), "utf-8")
                hook.chmod(0o755)
        nodes = start_nodes(root / "mail", args.nodes, smtp_port, env, scheduler=True)
        tally = Tally()
        started = time.perf_counter()
        try:
            with ThreadPoolExecutor(max_workers=len(games)) as pool:
                for game in games:
                    pool.submit(play, game, nodes, mailbox, args, tally).add_done_callback(
                        lambda f: f.exception() and print(f"   a game failed: {f.exception()}")
                    )
            seconds = time.perf_counter() - started
            time.sleep(QUIET_SECONDS)
        finally:
            stop_nodes(nodes)
    errors = logged_errors(nodes)
    print(f"errors in the nodes' logs: {len(errors)}")
    for lines in errors[: args.show_errors]:
        print("   " + "\n   ".join(lines))
    return {**figures(games, mailbox.mailed, tally, seconds, args), "logged_errors": len(errors)}


def logged_errors(nodes: Nodes) -> list[list[str]]:
    """Each error a node logged (a line with ERROR, but for the request log's line of a
    503, which the 503s count already), with the lines after it."""
    found: list[list[str]] = []
    for name, node in sorted(nodes.nodes.items()):
        lines = node.log.read_text(encoding="utf-8", errors="replace").splitlines()
        for at, line in enumerate(lines):
            if " ERROR " in line and not REQUEST_503.search(line):
                found.append([f"{name}: {line}", *lines[at + 1 : at + 40]])
    return found


def figures(
    games: list[Game], mailed: Mailed, tally: Tally, seconds: float, args: argparse.Namespace
) -> dict[str, Any]:
    adjudicated: Counter[tuple[str, int]] = Counter()
    for game in games:
        for number, count in adjudicated_moves(game).items():
            adjudicated[(game.game_id, number)] += count
    played = {(g.game_id, n) for g in games for n in range(1, g.number + 1)}
    expected = {
        (g.game_id, n, p.lower()) for g in games for n in range(1, g.number + 1) for p in g.emails
    }
    got = {key: n for key, n in mailed.reports.items() if key[1] > 0}
    per_move: dict[int, int] = defaultdict(int)
    for count in got.values():
        per_move[count] += 1
    result = {
        "nodes": args.nodes,
        "games": args.games,
        "flaky": args.flaky,
        "moves_sent": tally.sent,
        "moves_accepted": tally.accepted,
        "legal_refused": len(tally.legal_refused),
        "moves_adjudicated": len(adjudicated),
        "moves_lost": len(played - set(adjudicated)),
        "moves_twice": sum(c - 1 for c in adjudicated.values() if c > 1),
        "restore_commits": sum(restore_commits(g) for g in games),
        "put_back_notices": len(mailed.put_back),
        "reports_expected": len(expected),
        "reports_lost": len(expected - set(got)),
        "reports_duplicated": sum(c - 1 for c in got.values() if c > 1),
        "answers_duplicated": sum(c - 1 for c in mailed.answers.values() if c > 1),
        "refusals_mailed": sum(c for (_, kind), c in mailed.answers.items() if kind == "refusal"),
        "statuses": {str(k): v for k, v in sorted(tally.statuses.items())},
        "posted_again": tally.retried,
        "delivered_twice": tally.twice,
        "duplicates_ok": tally.twice_ok,
        "moves_per_s": round(tally.accepted / seconds, 2) if seconds else None,
    }
    print(
        f"{args.nodes} nodes, {args.games} games: {tally.sent} moves mailed, {tally.accepted} "
        f"accepted in {seconds:.1f} s; {len(tally.legal_refused)} legal moves refused; "
        f"{result['moves_twice']} adjudicated twice; {result['restore_commits']} restore "
        f"commits, {result['put_back_notices']} 'put back' notices"
    )
    print(
        f"reports: {len(expected)} expected, {result['reports_lost']} lost, "
        f"{result['reports_duplicated']} duplicated (copies per player and move: "
        f"{dict(sorted(per_move.items()))}); answers to authors duplicated: "
        f"{result['answers_duplicated']}"
    )
    print(
        f"HTTP statuses: {result['statuses']}, posted again after 503 or no answer: "
        f"{tally.retried}; delivered to two nodes: {tally.twice}, of which one move and 200 "
        f"for both: {tally.twice_ok}"
    )
    for problem in (tally.legal_refused + tally.twice_bad + tally.unreported)[:12]:
        print(f"   {problem}")
    for notice in mailed.put_back[:4]:
        print(f"   notice: {notice}")
    return result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """This run's options, on cluster.py's parser (`--nodes`, `--games`, `--moves`,
    `--players` and `--seed` are shared, with other defaults for this run)."""
    parser.add_argument(
        "--twice", type=float, default=0.3, help="share of messages posted to two nodes (--email)"
    )
    parser.add_argument("--show-errors", type=int, default=0, help="errors to print (--email)")
    parser.add_argument(
        "--flaky", type=float, default=0.0, help="share of pushes the forge refuses (--email)"
    )


DEFAULTS = {"nodes": 3, "games": 6, "moves": 8}  # this run's, for cluster.py's shared options
