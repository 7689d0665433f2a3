"""A whole game with one Polish and two English players, through the pipeline and mail: a
real SMTP server, real Git, the real inbound path. Each player reads their own language;
the Polish player plays in Polish notation and the record stays in English. Nothing a
Polish reader gets is left in English: not a word of a report (the engine's log lines
included, at every move of the game), a notice, a press relay or an alert to the host."""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from gitgame import SECRET, isolate, play
from mailserver import MailServer, email_of, mail_server, plain, reply_to, settings_for
from test_i18n import english_left

from adjudicator.forge.notices import held_notice, put_back_notice, restore_notice
from adjudicator.games.contract import Breach, ContractBreach, check_commit
from adjudicator.games.gamefile import GAME_FILE, dump_game_file
from adjudicator.games.needs_host import Mark
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication, translated_report_path
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.games.waiting import waiting
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words
from adjudicator.mail import digests, notices, outbox, report_mails
from adjudicator.mail.compose.operator import alert_message, undeliverable_message
from adjudicator.mail.incoming import handle_message
from adjudicator.schedule.reminders import compose_reminder

PLAYERS = ("ala", "bob", "cyd")
DECIDES = {"pl": "Teraz twoja decyzja.", "en": "It is your decision."}
# A report's "What happened": the engine's log lines.
HAPPENED = re.compile(r"^## (What happened|Co się wydarzyło)\n.*?(?=^## )", re.M | re.S)


def reports_to(server: MailServer, player: str) -> list[EmailMessage]:
    return [
        m
        for m in server.messages
        if m["X-Pamir-Kind"] == "report" and str(m["X-Pamir-Player"]) == player
    ]


def deciding(server: MailServer, languages: dict[str, str]) -> tuple[str, EmailMessage]:
    """The player who must decide now and the last report they were sent."""
    latest = {p: reports_to(server, p)[-1] for p in PLAYERS}
    found = [(p, m) for p, m in latest.items() if DECIDES[languages[p]] in plain(m)]
    assert len(found) == 1, sorted(latest)
    return found[0]


def check_languages(server: MailServer, number: int) -> None:
    """The report mails of move `number`: ala's in Polish, bob's and cyd's in English, and
    nothing in ala's left in English, the engine's log lines included."""
    mails = {
        str(m["X-Pamir-Player"]): m
        for m in server.messages
        if m["X-Pamir-Kind"] == "report" and str(m["X-Pamir-Move"]) == str(number)
    }
    assert sorted(mails) == list(PLAYERS)
    polish, english = plain(mails["ala"]), plain(mails["bob"])
    assert "## Teraz" in polish and "## Rynek" in polish and "## Playing by" not in polish
    assert "## Now" in english and "## Market" in english and "Rynek" not in english
    assert "## Now" in plain(mails["cyd"])
    left = english_left(polish, english)
    assert left == [], polish
    subject, english_subject = str(mails["ala"]["Subject"]), str(mails["bob"]["Subject"])
    assert english_left(subject, english_subject) == [], subject


def new_game(settings: Settings) -> tuple[GameRepo, Adjudication]:
    repo = create_game(
        settings.games_dir / "g1",
        [(n, email_of(n)) for n in PLAYERS],
        home=settings.home,
        secret=SECRET,
        languages={"ala": "pl"},
    )
    head = repo.head()
    assert head is not None
    return repo, Adjudication(0, head, repo.read("reports/0000.md", head) or "")


def test_each_player_reads_their_own_language_through_a_whole_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port, base_url="https://pamir.example")
        repo, created = new_game(settings)
        languages = {p: snapshot(repo).game.player(p).language for p in PLAYERS}
        confirmations: dict[str, EmailMessage] = {}
        assert languages == {"ala": "pl", "bob": "en", "cyd": "en"}
        assert "## Now" in (repo.read("reports/0000.md") or "")  # the game's language: en
        report_mails.notify(settings, repo, [created])
        check_languages(server, 0)

        # A move in Polish notation that cannot be read is refused in Polish, with the
        # code's meaning; nothing is committed.
        head = repo.head()
        refused = reply_to(reports_to(server, "ala")[-1], "kup 999\n")
        assert handle_message(settings, refused).status == "refused"
        assert repo.head() == head
        answer = [m for m in server.messages if str(m["X-Pamir-Player"]) == "ala"][-1]
        text = plain(answer)
        assert "twój ruch nie został przyjęty" in text
        assert "`unknown-card`: Żadna karta nie ma takiego numeru ani nazwy." in text

        # Every player chooses a loyalty by mail; ala in Polish.
        for number in (1, 2, 3):
            player, report = deciding(server, languages)
            line = "lojalność afgański" if player == "ala" else "loyalty british"
            if player == "ala":  # her turn, at a glance, in her words
                subject = str(report["Subject"])
                assert (
                    subject == f"[g1] Twoja kolej (ruch {number}): ala wybiera początkową lojalność"
                )
            result = handle_message(settings, reply_to(report, line + "\n"))
            assert result.status == "accepted", result.reason
            check_languages(server, number)
            confirmations[player] = confirmation(server, player)
            if player == "ala":
                # The record is the canonical English notation.
                assert repo.read(f"moves/{number:04d}-ala.txt") == "loyalty afghan\n"
                subjects = [str(reports_to(server, p)[-1]["Subject"]) for p in PLAYERS]
                assert f"[g1] Move {number} by ala: Choose Afghan loyalty." in subjects
                assert subjects[0].startswith(f"[g1] Ruch {number}, gracz ala: ")
                assert "sojusz afgański" in subjects[0]

        # The confirmation of a move by mail, in its author's language.
        confirmed = next(confirmations[p] for p in ("bob", "cyd") if p in confirmations)
        same_in_both(confirmations["ala"], confirmed)
        assert "przyjęty" in str(confirmations["ala"]["Subject"]) or "przyjęty" in plain(
            confirmations["ala"]
        )
        # A daily digest of moves 1 to 3, ala's in Polish (from her copies of the reports).
        held = [[n, report_commit(repo, n), "2026-01-01T00:00:00+00:00"] for n in (1, 2, 3)]
        for player in ("ala", "bob"):
            digests._queue(settings, repo, "g1", player, {"day": "2026-01-02", "held": held})
        outbox.deliver(settings)
        polish_digest, english_digest = mails_to(server, "ala")[-1], mails_to(server, "bob")[-1]
        assert "Your digest of 2026-01-02: moves 1 to 3" in str(english_digest["Subject"])
        same_in_both(polish_digest, english_digest)
        assert "wybiera" in plain(polish_digest)  # what happened, in Polish

        # The rest of the game through the pipeline; its last report goes out by mail.
        assert play(settings.games_dir / "g1", 3000, seed=3, whole_turn=True) < 3000
        snap = snapshot(repo)
        assert snap.commit is not None
        last = Adjudication(
            snap.adjudicated, snap.commit, repo.read(f"reports/{snap.adjudicated:04d}.md") or ""
        )
        # Every report of it in Polish, kept for ala beside the English record: nothing of
        # the English left, what happened included (events, Wakhan's notes, the deadline's).
        happened = 0
        for number in range(1, snap.adjudicated + 1):
            record = repo.read(f"reports/{number:04d}.md") or ""
            path = translated_report_path(settings.home, "g1", number, "pl")
            polish = path.read_text("utf-8")
            assert english_left(polish, record) == [], polish
            happened += len(HAPPENED.findall(polish))
        assert happened > snap.adjudicated // 2  # the log is there to be checked
        report_mails.notify(settings, repo, [last])
        check_languages(server, snap.adjudicated)
        polish = plain(reports_to(server, "ala")[-1])
        assert "Gra się zakończyła" in polish and "dziękujemy za grę" in polish
        assert "The game is over" in plain(reports_to(server, "cyd")[-1])
        repo.repo.close()


def test_a_player_changes_their_language_by_mail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        command = reply_to(reports_to(server, "bob")[-1], "Settings language pl\n")

        result = handle_message(settings, command)

        assert result.status == "accepted", result.reason
        assert snapshot(repo).game.player("bob").language == "pl"
        assert repo.repo.head.commit.author.name == "bob"
        answer = plain([m for m in server.messages if str(m["X-Pamir-Player"]) == "bob"][-1])
        assert "język pl" in answer and "w języku: polski" in answer
        # An unknown language changes nothing and says so in the player's language.
        head = repo.head()
        unknown = reply_to(reports_to(server, "bob")[-1], "settings language xx\n")
        assert handle_message(settings, unknown).status == "refused"
        assert repo.head() == head
        answer = plain([m for m in server.messages if str(m["X-Pamir-Player"]) == "bob"][-1])
        assert "Nic nie zmieniono" in answer
        # The next report bob gets is in Polish.
        _, report = deciding(server, {"ala": "pl", "bob": "en", "cyd": "en"})
        assert handle_message(settings, reply_to(report, "loyalty russian\n")).status == "accepted"
        assert "## Teraz" in plain(reports_to(server, "bob")[-1])
        repo.repo.close()


def confirmation(server: MailServer, player: str) -> EmailMessage:
    """The last answer to a player's own message: the confirmation of their move."""
    answers = [m for m in mails_to(server, player) if m["X-Pamir-Kind"] != "report"]
    return answers[-1]


def report_commit(repo: GameRepo, number: int) -> str:
    return str(repo.repo.git.log("-1", "--format=%H", "--", f"reports/{number:04d}.md")).strip()


def tampered(repo: GameRepo, parent: str, path: str) -> Breach:
    """A commit by a player that changes `path` (which breaks the contract), as a breach."""
    made = repo.make_commit({path: b"x = 1\n"}, f"change {path}", parent=parent)
    # Made again as bob's: one made as the adjudicator breaks the contract for that first.
    bob = {"GIT_AUTHOR_NAME": "bob", "GIT_AUTHOR_EMAIL": "bob@example.org"}
    bob |= {"GIT_COMMITTER_NAME": "bob", "GIT_COMMITTER_EMAIL": "bob@example.org"}
    tree = repo.commit_info(made).tree
    commit = str(repo.repo.git.commit_tree(tree, "-p", parent, "-m", f"change {path}", env=bob))
    with pytest.raises(ContractBreach) as breach:
        check_commit(repo, commit, snapshot(repo).game, snapshot(repo).next_number)
    return Breach(commit, "bob <bob@example.org>", str(breach.value), breach.value.said)


def mails_to(server: MailServer, player: str) -> list[EmailMessage]:
    return [m for m in server.messages if str(m["X-Pamir-Player"]) == player]


def same_in_both(polish: EmailMessage, english: EmailMessage) -> None:
    """The same message in Polish and in English: nothing of the English left."""
    assert plain(polish) != plain(english)
    assert english_left(plain(polish), plain(english)) == [], plain(polish)
    assert english_left(str(polish["Subject"]), str(english["Subject"])) == []


def test_every_other_mail_kind_in_polish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands by mail and their notices, reminders and the notice of a refused forgery:
    ala reads Polish, cyd English, and each gets the same message."""
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])

        # (A pause's reason is the player's own text: digits, which no language owns.)
        for line in ("my games", "settings notify turns", "pause 24h 123", "settings notify x"):
            answers = []
            for player in ("ala", "cyd"):
                raw = reply_to(reports_to(server, player)[-1], line + "\n")
                handle_message(settings, raw)
                answers.append(mails_to(server, player)[-1])
            same_in_both(*answers)
        # bob's pause is told to the others, each in their language.
        handle_message(settings, reply_to(reports_to(server, "bob")[-1], "pause 1h 456\n"))
        same_in_both(mails_to(server, "ala")[-1], mails_to(server, "cyd")[-1])

        pending = waiting(repo)
        assert pending is not None
        now = pending.clock.deadline - timedelta(hours=3)
        polish = compose_reminder(settings, repo, pending, "ala", now)
        english = compose_reminder(settings, repo, pending, "cyd", now)
        same_in_both(polish, english)
        assert "za około 3 godziny" in plain(polish)

        for player in ("ala", "cyd"):
            notices.notify_unauthenticated(settings, repo, player, "dkim=fail", day="2026-01-01")
        outbox.deliver(settings)
        same_in_both(mails_to(server, "ala")[-1], mails_to(server, "cyd")[-1])

        # Press from bob to every player: ala gets it in Polish, cyd in English.
        handle_message(settings, reply_to(reports_to(server, "bob")[-1], "press:\n123 456\n"))
        relayed = [mails_to(server, p)[-1] for p in ("ala", "cyd")]
        assert all("> 123 456" in plain(m) for m in relayed)
        assert str(relayed[1]["Subject"]) == "[g1] Press from bob"
        same_in_both(*relayed)
        # Press refused (empty, to oneself, to no one), each told in their language.
        for line in ("press:", "press to ala: 1", "press to cyd: 1", "press to zz: 1"):
            for player in ("ala", "cyd"):
                raw = reply_to(reports_to(server, player)[-1], line + "\n")
                handle_message(settings, raw)
            same_in_both(mails_to(server, "ala")[-1], mails_to(server, "cyd")[-1])

        # The notices of a forge-hosted game's tampering put back, or of a game held.
        tip = repo.head()
        assert tip is not None
        breaches = [tampered(repo, tip, path) for path in ("game.toml", "press/0001.md")]
        for notice in (restore_notice(repo, breaches), put_back_notice("g1"), held_notice("g1")):
            notices.notify_all(settings, repo, notice)
            outbox.deliver(settings)
            same_in_both(mails_to(server, "ala")[-1], mails_to(server, "cyd")[-1])

        # The host's alerts: in ala's language when she hosts, else in the game's.
        mark = Mark("g1", "state.json cannot be read", "2026-01-01T00:00:00+00:00")
        record = {"game": "g1", "player": "bob", "recipients": ["bob@x.org"], "reason": "550"}
        hosts = [settings.model_copy(update={"operator_email": email_of(p)}) for p in PLAYERS]
        same_in_both(alert_message(hosts[0], mark), alert_message(hosts[2], mark))
        same_in_both(
            undeliverable_message(hosts[0], "m.eml", record),
            undeliverable_message(hosts[2], "m.eml", record),
        )

        # bob resigns: everyone is told, ala in Polish.
        handle_message(settings, reply_to(reports_to(server, "bob")[-1], "resign\n"))
        told = [m for m in server.messages if "bob" in str(m["Subject"])]
        by = {str(m["X-Pamir-Player"]): m for m in told}
        same_in_both(by["ala"], by["cyd"])
        repo.repo.close()


def test_a_game_that_ends_on_resignation_ends_in_each_players_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`on_resign = "end"`: ala resigns by mail; her answer and the last report are in
    Polish, the others' reports in English."""
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        snap = snapshot(repo)
        game = snap.game.model_copy(update={"on_resign": "end"})
        repo.commit({GAME_FILE: dump_game_file(game).encode()}, "on_resign", parent=snap.commit)
        report_mails.notify(settings, repo, [created])
        raw = reply_to(reports_to(server, "ala")[-1], "resign\n")
        assert handle_message(settings, raw).status == "accepted"
        outbox.deliver(settings)
        answer = [m for m in mails_to(server, "ala") if m["X-Pamir-Kind"] != "report"][-1]
        over = snapshot(repo).adjudicated
        english = f"# g1: {Words()('you have resigned')}\n\n" + Words()(
            "Your resignation is recorded (commit %(commit)s), and the game ends, as its host "
            'chose (`on_resign = "end"`), with move %(number)s: every player gets its report, '
            "with who won. Thank you for playing.",
            commit="0" * 10,
            number=over,
        )
        assert english_left(plain(answer), english) == [], plain(answer)
        assert "partia kończy się" in plain(answer)
        check_languages(server, over)
        repo.repo.close()


def test_a_refused_pause_or_resignation_is_answered_in_the_players_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ala reads Polish: the reasons a pause or a resignation is refused for (the service's
    own, `CODE: reason`) are said in Polish too."""
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port)
        repo, created = new_game(settings)
        report_mails.notify(settings, repo, [created])
        english = Words()
        asked = [
            ("pause 1000h a long trip\n", "mail-pause-limit", "pause refused"),
            ("resign\n", "", ""),
            ("resign\n", "resigned", "resignation refused"),
        ]
        for body, code, title in asked:
            # The newest mail to ala: a resignation replaces the reply address of the ones
            # before it (docs/email.md#replaced-reply-addresses).
            result = handle_message(settings, reply_to(mails_to(server, "ala")[-1], body))
            if not code:
                assert result.status == "accepted", result.reason
                continue
            assert result.status == "refused" and result.reason.startswith(f"{code}: "), result
            outbox.deliver(settings)
            answer = [m for m in mails_to(server, "ala") if m["X-Pamir-Kind"] != "report"][-1]
            said = english("Nothing was changed: %(error)s.", error=result.reason)
            if title == "pause refused":
                said = english("The clock was not paused: %(error)s.", error=result.reason)
            assert english_left(plain(answer), f"# g1: {english(title)}\n\n{said}\n") == [], plain(
                answer
            )
            assert f"`{code}`" in plain(answer)
        repo.repo.close()
