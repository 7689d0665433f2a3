"""Report mails composed while the forge takes the push of their commits
(`remote.update(..., while_pushing=...)` with `report_mails.prepare`, `ledger.forge_update`): the
push and the composing overlap, and `notify` queues a prepared message as it was made
only when it would make the very same one."""

from __future__ import annotations

import email
import email.policy
import stat
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path

from gitgame import SECRET, TWO, decider, full_state, git, head, player_email, push

import engine
from adjudicator.forge import newgames, remote
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import Adjudication
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import notices, report_mails


def read(path: Path) -> EmailMessage:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def created(settings: Settings, game_id: str) -> GameRepo:
    """A new two-player game whose first report went out (the players' threads started)."""
    players = [(n, f"{n}@example.org") for n in TWO]
    repo = create_game(settings.games_dir / game_id, players, home=settings.home, secret=SECRET)
    start = repo.head()
    assert start is not None
    first = Adjudication(0, start, repo.read("reports/0000.md", start) or "")
    report_mails.notify(settings, repo, [first], deliver_now=False)
    return repo


def submitted(settings: Settings, repo: GameRepo) -> Adjudication:
    state = position(snapshot(repo), settings.home)
    player, action = engine.legal_actions(state)[0]
    return submit(repo, player, engine.format_action(action) + "\n", home=settings.home)


def prepared_bytes(commit: str) -> dict[str, bytes]:
    """The prepared messages of a commit, by player (read from the module's own keeping:
    nothing else can tell a prepared message from one composed again)."""
    kept = report_mails._PREPARED._kept
    return {mail.player: made[2] for mail, made in kept.items() if mail.commit == commit}


def test_a_prepared_report_is_queued_byte_for_byte(settings: Settings) -> None:
    repo = created(settings, "prep")
    done = submitted(settings, repo)

    assert report_mails.prepare(settings, repo, [done]) == 2
    made = prepared_bytes(done.commit)
    written = report_mails.notify(settings, repo, [done], deliver_now=False)

    # A multipart message composed twice differs in its boundaries: equal bytes are the
    # prepared message itself.
    assert sorted(p.read_bytes() for p in written) == sorted(made.values())
    assert prepared_bytes(done.commit) == {}  # each taken once


def test_reports_of_several_commits_are_prepared_in_one_chain(settings: Settings) -> None:
    repo = created(settings, "chain")
    first, second = submitted(settings, repo), submitted(settings, repo)

    assert report_mails.prepare(settings, repo, [first, second]) == 4
    made = [*prepared_bytes(first.commit).values(), *prepared_bytes(second.commit).values()]
    written = report_mails.notify(settings, repo, [first, second], deliver_now=False)

    # The second report follows the first in each player's thread, as prepared.
    assert sorted(p.read_bytes() for p in written) == sorted(made)


def test_a_prepared_report_is_not_queued_when_the_thread_moved_on(settings: Settings) -> None:
    repo = created(settings, "moved")
    done = submitted(settings, repo)
    report_mails.prepare(settings, repo, [done])
    made = prepared_bytes(done.commit)

    # Between the preparing and the queuing, bob gets another message in his thread.
    [between] = notices.notify_players(
        settings, repo, ["bob"], "A word", "Hello.", kind="press", ref="between"
    )
    written = {
        str(read(p)["X-Pamir-Player"]): p
        for p in report_mails.notify(settings, repo, [done], deliver_now=False)
    }

    assert written["alice"].read_bytes() == made["alice"]
    assert written["bob"].read_bytes() != made["bob"]
    assert str(read(written["bob"])["In-Reply-To"]) == str(read(between)["Message-ID"])


def test_a_report_prepared_under_other_settings_is_composed_again(settings: Settings) -> None:
    repo = created(settings, "other")
    done = submitted(settings, repo)
    report_mails.prepare(settings, repo, [done])
    moved = settings.model_copy(update={"base_url": "https://elsewhere.example.org"})

    written = report_mails.notify(moved, repo, [done], deliver_now=False)

    for path in written:
        text = read(path).get_body(("plain",))
        assert text is not None and "https://elsewhere.example.org/" in text.get_content()


def test_the_mails_are_composed_while_the_forge_takes_the_push(
    tmp_path: Path, settings: Settings
) -> None:
    origin = tmp_path / "forge" / "g.git"
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "--bare", "--initial-branch=main")
    repo = newgames.create_remote_game(
        settings, str(origin), [(n, f"{n}@example.org") for n in TWO], game_id="g", secret=SECRET
    )
    # The forge takes a push only once the service has composed the mails: were the
    # two one after the other, the hook would wait in vain and refuse the push.
    signal = tmp_path / "composed"
    hook = origin / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        f"for i in $(seq 1 100); do [ -e '{signal}' ] && exit 0; sleep 0.1; done\nexit 1\n"
    )
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    clone = tmp_path / "alice-clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    player, options = decider(full_state(repo.path))
    (clone / "moves").mkdir(exist_ok=True)
    (clone / "moves" / f"0001-{player}.txt").write_text(options[0] + "\n", encoding="utf-8")
    git(clone, "add", "moves")
    author = f"{player} <{player_email(clone, player)}>"
    git(clone, "commit", "-q", "--author", author, "-m", f"{player}: move 1")
    signal.touch()  # the player's own push goes through
    assert push(clone).returncode == 0
    signal.unlink()
    pushed = head(origin)
    seen: list[tuple[int, str]] = []

    def compose(results: Sequence[Adjudication]) -> int:
        seen.extend((r.number, head(origin)) for r in results)  # the forge has not got it
        made = report_mails.prepare(settings, repo, results)
        signal.touch()
        return made

    done = remote.update(repo, settings.home, while_pushing=compose)

    assert [r.number for r in done.results] == [1]
    assert seen == [(1, pushed)]
    assert head(origin) == done.results[0].commit
    assert len(prepared_bytes(done.results[0].commit)) == 2
    repo.repo.close()
