"""What playing by email costs the players: submissions and mails per turn.

    python benchmarks/turns.py [--games 4] [--seed S] [--json]

Plays complete games (by default two of 3 players and two of 4) by email, through the
service's real inbound path (`adjudicator.mail.incoming.handle_message`, a reply to the
player's last mail with its reply token) and a real SMTP server (aiosmtpd, on 127.0.0.1),
under the default settings, in a temporary PAMIR_HOME. Each player is a bot that writes its
whole turn in one reply, as a player would: it reads the position it may see (the true one
stands in for it here: the bot never uses another player's hand), picks random legal actions
and their follow-ups until its turn ends, and when one of its actions hands a decision to
another player (a ruler who may demand a bribe) it cannot know the answer: it guesses the
default one and writes on. A bot follows what its mail suggests: a `policy ...` line that
the mail offers is written at the top of its next reply.

When a reply is refused because it met another player's decision, the bot sends again the
lines up to that decision (as a player who read the refusal would), and the rest once it is
their decision again. Any other refusal makes the bot plan again from its next mail.

Figures: `submissions_per_turn` (replies sent, over the turns played), `interrupted_refusals`
(replies refused because they met another's decision), `mails_per_player_per_turn` (mails the
SMTP server took for the players, over players x turns), and `refusals` (every refusal).
A turn is one player's turn of play, or one player's choice of loyalty at setup before the
first turn. Each game's secret is made from its seed, so that every run deals the same
decks and two versions of the service meet the same games (until their answers make the
bots choose differently). With `--json` the last line is one JSON object of these figures.

Targets: `submissions_per_turn` at most 1.05, `interrupted_refusals` 0,
`mails_per_player_per_turn` at most 1.2.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

import engine
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import position
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import report_mails
from adjudicator.mail.incoming import handle_message
from engine.game import default_action, options_for

DOMAIN = "pamir.example"
NAMES = ("alice", "bob", "carol", "dave")
INTERRUPTED = "not-your-decision"
# A line a mail offers to answer a decision in advance: `policy pay 3`, `policy demand bob 2`.
POLICY_OFFERED = ("policy pay", "policy demand")


class Mailbox:
    """An aiosmtpd handler keeping every message, by recipient."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_recipient: dict[str, list[EmailMessage]] = {}

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        data = bytes(envelope.original_content or b"").replace(b"\r\n", b"\n")
        message = BytesParser(policy=policy.default).parsebytes(data)
        assert isinstance(message, EmailMessage)
        with self.lock:
            for rcpt in envelope.rcpt_tos:
                self.by_recipient.setdefault(rcpt.lower(), []).append(message)
        return "250 accepted"

    def last(self, address: str, game_id: str) -> EmailMessage | None:
        with self.lock:
            mine = [
                m
                for m in self.by_recipient.get(address, [])
                if str(m.get("X-Pamir-Game", "")) == game_id and m.get("Reply-To")
            ]
        return mine[-1] if mine else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def plain(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    return "" if part is None else str(part.get_content())


def reply(original: EmailMessage, body: str) -> bytes:
    message = EmailMessage()
    message["From"] = str(original["To"])
    message["To"] = str(original["Reply-To"])
    subject = str(original["Subject"])
    message["Subject"] = subject if subject.startswith("Re: ") else "Re: " + subject
    message["Date"] = formatdate()
    message["Message-ID"] = make_msgid(domain="players.example")
    message["In-Reply-To"] = str(original["Message-ID"])
    message["References"] = str(original["Message-ID"])
    message.set_content(body)
    return message.as_bytes()


@dataclass
class Figures:
    turns: int = 0
    players_turns: int = 0
    submissions: int = 0
    interrupted: int = 0
    refusals: Counter[str] = field(default_factory=Counter)
    mails: int = 0
    kinds: Counter[str] = field(default_factory=Counter)  # what each reply answered
    games: int = 0
    seconds: float = 0.0


def offers(text: str) -> set[str]:
    """The standing policies a mail offers (`pay`, `demand`): a bot writes those it saw."""
    return {kind for kind in ("pay", "demand") if f"`policy {kind}" in text}


def plan(
    state: engine.State, seat: int, rng: random.Random, offered: set[str]
) -> tuple[list[str], list[str]]:
    """(policy lines, action lines): the bot's whole turn from `state`. Another player's
    decision on the way is guessed as its default answer. With `pay` offered, a bribe the
    bot may be asked to pay is answered in advance by `policy pay N`; with `demand`
    offered, the bot sets how much it demands of each other player."""
    start_turn = state.turn
    lines: list[str] = []
    extra: list[str] = []
    s = state
    if "pay" in offered:
        extra.append(f"policy pay {s.players[seat].rupees}")
    if "demand" in offered:
        for other in range(s.num_players):
            if other != seat and other not in s.players[seat].policy_demand:
                extra.append(f"policy demand {s.name(other)} {rng.randint(0, 2)}")
    for line in extra:
        s = engine.apply(s, seat, engine.read_action(line)[0])
    while s.phase != "over" and len(lines) < 40:
        decision = engine.pending(s)
        if decision is None:
            break
        if seat in decision.seats:
            if decision.kind == "turn" and s.turn != start_turn and lines:
                break  # a new turn of ours (after a whole round): not this reply's
            options = options_for(s, seat)
            action = rng.choice(options)
            lines.append(engine.format_action(action))
            s = engine.apply(s, seat, action)
            continue
        if not lines or decision.kind not in ("bribe", "pay"):
            break  # someone else's turn, or a decision the bot's lines did not raise
        other = decision.seats[0]
        guess = default_action(s, other)
        if guess is None:
            break
        s = engine.apply(s, other, guess)
    return extra, lines


def play_game(
    settings: Settings, mailbox: Mailbox, game_id: str, players: int, seed: int, fig: Figures
) -> None:
    names = NAMES[:players]
    emails = {n: f"{n}@players.example" for n in names}
    path = settings.games_dir / game_id
    # The seed's own secret: the same deck and the same bots' choices in every run, so that
    # two versions of the service are measured on the same games.
    create_game(
        path,
        [(n, emails[n]) for n in names],
        home=settings.home,
        game_id=game_id,
        secret=f"turns-benchmark-{seed}",
    )
    repo = GameRepo(path)
    head = repo.head()
    assert head is not None
    first = Adjudication(0, head, repo.read("reports/0000.md", head) or "")
    report_mails.notify(settings, repo, [first])  # as `pamir new` mails the first report
    rng = random.Random(seed)
    kept: dict[int, list[str]] = {}  # a bot's lines not yet played (after an interruption)
    offered: dict[int, set[str]] = {}  # the standing policies each bot's mails offered
    stuck = 0
    while True:
        state = position(snapshot(repo), settings.home)
        decision = engine.pending(state)
        if state.phase == "over" or decision is None or not decision.seats:
            break
        seat, kind = decision.seats[0], decision.kind
        name = state.name(seat)
        mail = mailbox.last(emails[name], game_id)
        if mail is None:
            got = {k: len(v) for k, v in mailbox.by_recipient.items()}
            raise SystemExit(f"{game_id}: {name} must decide but has no mail to answer ({got})")
        offered.setdefault(seat, set()).update(offers(plain(mail)))
        lines = kept.pop(seat, None)
        extra: list[str] = []
        if lines is None or kind in ("bribe", "pay"):
            extra, lines = plan(state, seat, rng, set() if kind == "bribe" else offered[seat])
            if kind in ("bribe", "pay") and "demand" in offered[seat]:
                # The ruler answers, and as the mail suggests, says so for next time.
                wanted = lines[0] if lines else ""
                payer = state.stack[-1].get("payer")
                if wanted.startswith("demand ") and isinstance(payer, int):
                    extra = [f"policy demand {state.name(payer)} {wanted.split()[1]}"]
                else:
                    extra = []
        text = "\n".join([*lines, *extra] if kind == "bribe" else [*extra, *lines]) + "\n"
        result = handle_message(settings, reply(mail, text))
        fig.submissions += 1
        fig.kinds[kind] += 1
        if result.status != "accepted":
            code = result.reason.split(":")[1].strip() if result.reason.count(":") >= 2 else ""
            fig.refusals[code or result.reason[:40]] += 1
            at = _refused_line(result.reason)
            if code == INTERRUPTED and at is not None and at > len(extra) + 1:
                fig.interrupted += 1
                played = at - 1 - len(extra)
                kept[seat] = lines[played:]
                lines = lines[:played]
                result = handle_message(settings, reply(mail, "\n".join([*extra, *lines]) + "\n"))
                fig.submissions += 1
                if result.status != "accepted":
                    fig.refusals["after-interruption"] += 1
            stuck = stuck + 1 if result.status != "accepted" else 0
            if stuck > 20:
                raise SystemExit(
                    f"{game_id}: refused again and again: {result.reason}; "
                    f"{name} answered {mail['Subject']} to {mail['To']}: {text!r}"
                )
    final = position(snapshot(repo), settings.home)
    # Every player's choice of loyalty, then the turns of play begun (the last one included:
    # the game ends in it).
    fig.turns += final.turn + players
    fig.players_turns += (final.turn + players) * players
    fig.games += 1
    fig.mails += sum(
        1
        for n in names
        for m in mailbox.by_recipient.get(emails[n], [])
        if str(m.get("X-Pamir-Game", "")) == game_id
    )
    repo.repo.close()


def _refused_line(reason: str) -> int | None:
    """The line number of a refusal (`line N: CODE: ...`), if it names one."""
    head = reason.split(":", 1)[0].strip()
    if head.startswith("line ") and head[5:].isdigit():
        return int(head[5:])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games, 3 and 4 players alternately")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args()
    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port, ready_timeout=5)
    controller.start()
    fig = Figures()
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="pamir-turns-") as folder:
            settings = Settings(
                home=Path(folder),
                smtp_host="127.0.0.1",
                smtp_port=port,
                smtp_security="none",
                mail_from=f"pamir@{DOMAIN}",
                reply_local="play",
                reply_domain=DOMAIN,
            )
            for index in range(args.games):
                players = 3 if index % 2 == 0 else 4
                mails_before, turns_before = fig.mails, fig.turns
                play_game(settings, mailbox, f"t{index}", players, args.seed + index, fig)
                turns = fig.turns - turns_before
                mails = fig.mails - mails_before
                print(
                    f"game t{index}: {players} players, {turns} turns, "
                    f"{mails / (turns * players):.2f} mails per player per turn",
                    flush=True,
                )
    finally:
        controller.stop()
    fig.seconds = time.perf_counter() - started
    figures = {
        "games": fig.games,
        "turns": fig.turns,
        "submissions": fig.submissions,
        "submissions_per_turn": round(fig.submissions / fig.turns, 3),
        "interrupted_refusals": fig.interrupted,
        "refusals": sum(fig.refusals.values()),
        "refusal_codes": dict(fig.refusals),
        "replies_by_decision": dict(fig.kinds),
        "mails": fig.mails,
        "mails_per_player_per_turn": round(fig.mails / fig.players_turns, 3),
        "seconds": round(fig.seconds, 1),
    }
    for key, value in figures.items():
        print(f"{key:28} {value}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
