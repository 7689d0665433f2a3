"""One broken game never breaks the others: reading odd trees, and what the service does
with a game it cannot read.

A game's repository can be made unreadable by a push to its forge (a file or a symbolic
link named `moves`, a game.toml that is not TOML) or by its host. Reading it must then fail
with a `GameError` that says why, and the service must mark the game as needing its host
(PAMIR_HOME/needs-host/ID.json, a page saying so, a mark on the index, one mail to the
operator) while every other game goes on: the index, the other games' pages, webhooks and
deadlines, the scheduler's start and the outbox.

Everything runs through real Git; the forge is a local bare repository, webhook deliveries
are signed and sent over real HTTP, `pamir serve` and `pamir games` run as processes, and
mail goes to a real SMTP server (aiosmtpd).
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from gitgame import (
    PAMIR,
    SECRET,
    TWO,
    current_home,
    decider,
    full_state,
    git,
    head,
    opened,
    pamir,
)
from liveserver import fetch, github_headers, push_payload, serving
from mailserver import free_port, mail_server, settings_for

from adjudicator.forge import newgames
from adjudicator.games import needs_host
from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import adjudicate_pending, submit
from adjudicator.games.registry import list_games, survey
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings, load_settings
from adjudicator.mail import outbox
from adjudicator.schedule import jobs
from adjudicator.schedule import scheduler as sched
from adjudicator.schedule.clock import waiting
from adjudicator.web import create_app

GITHUB_SECRET = "github-webhook-secret"
OPERATOR = "host@pamir.example"
SECOND = timedelta(seconds=1)

pytestmark = pytest.mark.usefixtures("home")


# -- breaking a game -------------------------------------------------------------------------


def _moves_file(tree: Path) -> None:
    git(tree, "rm", "-r", "-q", "--ignore-unmatch", "moves")
    (tree / "moves").write_text("not a folder\n", encoding="utf-8")


def _moves_symlink(tree: Path) -> None:
    git(tree, "rm", "-r", "-q", "--ignore-unmatch", "moves")
    os.symlink("reports", tree / "moves")


def _moves_submodule(tree: Path) -> None:
    git(tree, "rm", "-r", "-q", "--ignore-unmatch", "moves")
    commit = git(tree, "rev-parse", "HEAD").strip()
    git(tree, "update-index", "--add", "--cacheinfo", f"160000,{commit},moves")
    (tree / "moves").mkdir()  # as a submodule not checked out: `git add -A` keeps it


def _moves_subfolder(tree: Path) -> None:
    (tree / "moves" / "extra").mkdir(parents=True)
    (tree / "moves" / "extra" / "0009-alice.txt").write_text("pass\n", encoding="utf-8")


def _move_symlink(tree: Path) -> None:
    (tree / "moves").mkdir(exist_ok=True)
    os.symlink("../state.json", tree / "moves" / "0009-alice.txt")


def _move_not_text(tree: Path) -> None:
    (tree / "moves").mkdir(exist_ok=True)
    (tree / "moves" / "0009-alice.txt").write_bytes(b"\xff\xfe pass\n")


def _game_toml_invalid(tree: Path) -> None:
    (tree / "game.toml").write_text("this is = = not TOML\n", encoding="utf-8")


def _game_toml_folder(tree: Path) -> None:
    git(tree, "rm", "-q", "game.toml")
    (tree / "game.toml").mkdir()
    (tree / "game.toml" / "inside").write_text("x\n", encoding="utf-8")


def _game_toml_not_text(tree: Path) -> None:
    (tree / "game.toml").write_bytes(b'id = "\xff"\n')


def _state_invalid(tree: Path) -> None:
    (tree / "state.json").write_text("{not json", encoding="utf-8")


def _state_a_list(tree: Path) -> None:
    (tree / "state.json").write_text("[1, 2]\n", encoding="utf-8")


def _rollbacks_invalid(tree: Path) -> None:
    (tree / "rollbacks.toml").write_text("[[rollback]\n", encoding="utf-8")


BREAKAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "moves-file": (_moves_file, "moves is a file"),
    "moves-symlink": (_moves_symlink, "moves is a symbolic link"),
    "moves-submodule": (_moves_submodule, "moves is a submodule"),
    "moves-subfolder": (_moves_subfolder, "moves/extra is a folder"),
    "move-symlink": (_move_symlink, "moves/0009-alice.txt is a symbolic link"),
    "move-not-text": (_move_not_text, "moves/0009-alice.txt is not UTF-8 text"),
    "game-toml-invalid": (_game_toml_invalid, "game.toml is not TOML"),
    "game-toml-folder": (_game_toml_folder, "game.toml is a folder"),
    "game-toml-not-text": (_game_toml_not_text, "game.toml is not UTF-8 text"),
    "state-invalid": (_state_invalid, "state.json is not valid"),
    "state-a-list": (_state_a_list, "state.json is not valid"),
    "rollbacks-invalid": (_rollbacks_invalid, "rollbacks.toml is not valid"),
}


def break_tree(tree: Path, how: str) -> str:
    """Commit a breakage in a working tree, as a host (or a player's clone) would; return the
    words of the reason expected."""
    edit, reason = BREAKAGES[how]
    edit(tree)
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", f"break the game: {how}")
    return reason


def new_game(settings: Settings, game_id: str, turn_hours: int = 48) -> Path:
    players = [(n, f"{n}@example.org") for n in TWO]
    path = settings.games_dir / game_id
    create_game(
        path, players, home=settings.home, secret=SECRET, turn_hours=turn_hours
    ).repo.close()
    return path


def play_one_move(path: Path) -> None:
    player, options = decider(full_state(path))
    with opened(path) as repo:
        submit(repo, player, options[0] + "\n", home=current_home())


# -- reading -------------------------------------------------------------------------------


@pytest.mark.parametrize("how", sorted(BREAKAGES))
def test_an_odd_tree_is_a_game_error_that_says_why(settings: Settings, how: str) -> None:
    path = new_game(settings, "g1")
    play_one_move(path)
    reason = break_tree(path, how)
    with opened(path) as repo:
        if how == "move-not-text":
            # Bytes that are not UTF-8 in a move file are a player's bad input, not a
            # broken game: the move is refused like any illegal one and the game goes on
            # (tests/games/test_hostile_input.py); the game still reads.
            adjudicate_pending(repo, settings.home)
            assert waiting(repo) is not None
            return
        readers: list[Callable[[GameRepo], object]] = [
            lambda r: adjudicate_pending(r, settings.home),
            snapshot,
            waiting,
        ]
        for read in readers:
            with pytest.raises(GameError, match=re.escape(reason)):
                read(repo)


def test_a_game_that_reads_again_is_no_longer_marked(settings: Settings) -> None:
    broken = new_game(settings, "g1")
    new_game(settings, "g2")
    reason = break_tree(broken, "moves-symlink")
    listed = {entry.id: entry.problem for entry in survey(settings)}
    assert listed["g2"] is None
    assert listed["g1"] is not None and reason in listed["g1"]
    assert [game_id for game_id, _ in list_games(settings)] == ["g2"]
    mark = needs_host.marked(settings.home, "g1")
    assert mark is not None and reason in mark.reason
    data = json.loads((settings.home / "needs-host" / "g1.json").read_text(encoding="utf-8"))
    assert reason in data["reason"]
    assert datetime.fromisoformat(data["first_seen"]) <= datetime.now(UTC)
    git(broken, "revert", "--no-edit", "HEAD")
    assert all(entry.problem is None for entry in survey(settings))
    assert needs_host.marked(settings.home, "g1") is None
    assert not (settings.home / "needs-host" / "g1.json").exists()


# -- the web pages -------------------------------------------------------------------------


def row_of(index: str, game_id: str) -> str:
    """The index page's table row of one game."""
    start = index.index(f'href="/games/{game_id}"')
    return index[index.rindex("<tr", 0, start) : index.index("</tr>", start)]


@pytest.mark.parametrize("how", ["moves-file", "moves-symlink", "game-toml-invalid"])
def test_the_pages_show_a_broken_game_as_needing_its_host(
    home: Path, settings: Settings, how: str
) -> None:
    broken = new_game(settings, "g1")
    new_game(settings, "g2")
    reason = break_tree(broken, how)
    with serving(create_app({"home": home})) as site:
        index = fetch(f"{site}/")
        page = fetch(f"{site}/games/g1")
        turn = fetch(f"{site}/games/g1/turns/0")
        other = fetch(f"{site}/games/g2")
    assert index.status == 200
    assert "needs the host" in row_of(index.text, "g1")
    assert "needs the host" not in row_of(index.text, "g2")
    assert "alice" in row_of(index.text, "g2")
    for reply in (page, turn):
        assert reply.status in (200, 503), reply.status
        assert "needs its host" in reply.text
        assert html.escape(reason) in reply.text
    assert other.status == 200
    mark = needs_host.marked(home, "g1")
    assert mark is not None and reason in mark.reason

    git(broken, "revert", "--no-edit", "HEAD")  # the host repairs it
    with serving(create_app({"home": home})) as site:
        index = fetch(f"{site}/")
        page = fetch(f"{site}/games/g1")
    assert page.status == 200 and "needs its host" not in page.text
    assert "needs the host" not in index.text
    assert needs_host.marked(home, "g1") is None


def test_the_pages_never_show_where_the_service_keeps_its_data(
    home: Path, settings: Settings
) -> None:
    new_game(settings, "g2")
    stray = settings.games_dir / "g1"  # a repository with no game.toml: not a game
    stray.mkdir()
    git(stray, "init", "-q", "--initial-branch=main")
    git(stray, "commit", "-q", "--allow-empty", "-m", "not a game")
    with serving(create_app({"home": home})) as site:
        index = fetch(f"{site}/")
        page = fetch(f"{site}/games/g1")
    assert "needs the host" in row_of(index.text, "g1")
    assert page.status == 503 and "no game.toml" in page.text
    for reply in (index, page):
        assert str(home) not in reply.text


# -- the scheduler -------------------------------------------------------------------------


def job_ids(scheduler: sched.GameScheduler) -> set[str]:
    return {str(job.id) for job in scheduler.get_jobs()}


def test_the_scheduler_starts_and_keeps_the_other_games_deadlines(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """A real BackgroundScheduler whose clock runs 1 hour - 1 second ahead: the other game's
    1-hour deadline passes a second after it starts, while the broken game has no jobs."""
    broken = new_game(settings, "g1", turn_hours=1)
    other = new_game(settings, "g2", turn_hours=1)
    break_tree(broken, "moves-file")
    ahead = timedelta(hours=1) - SECOND
    caplog.set_level("INFO")
    scheduler = sched.build_scheduler(settings, clock=lambda: datetime.now(UTC) + ahead)
    assert job_ids(scheduler) == {
        "deadline:g2",
        "poll",
        "fetch",
        "watch",
        "outbox",
        "digest",
        "prune",
    }
    assert "g1 needs its host: moves is a file" in caplog.text
    scheduler.start()
    try:
        sched.poll(scheduler, settings)  # a tick of the poll job, as it runs every few minutes
        limit = time.monotonic() + 15
        while time.monotonic() < limit:
            with opened(other) as repo:
                if snapshot(repo).adjudicated >= 1:
                    break
            time.sleep(0.1)
    finally:
        scheduler.shutdown(wait=True)
    with opened(other) as repo:
        assert snapshot(repo).adjudicated >= 1
        assert "(deadline passed)" in str(repo.repo.commit("HEAD").summary)

    later = datetime.now(UTC) + timedelta(hours=3)
    done = jobs.run_once(settings, later)
    assert "g1" not in done.timed_out
    assert needs_host.marked(settings.home, "g1") is not None


def test_the_operator_is_mailed_once_per_reason_and_the_outbox_keeps_delivering(
    home: Path,
) -> None:
    with mail_server() as server:
        settings = settings_for(home, server.port, operator_email=OPERATOR)
        broken = new_game(settings, "g1")
        other = new_game(settings, "g2", turn_hours=1)
        reason = break_tree(broken, "moves-file")
        scheduler = sched.build_scheduler(settings)  # the start marks g1 and writes the mail
        for _ in range(3):
            sched.poll(scheduler, settings)  # later ticks mail nothing more
        with opened(other) as repo:
            pending = waiting(repo)
        assert pending is not None
        assert len(jobs.run_deadline(settings, "g2", pending.clock.deadline)) == 1
        jobs.retry_outbox(settings)

        (mail,) = server.to(OPERATOR)
        assert "g1" in str(mail["Subject"]) and "needs its host" in str(mail["Subject"])
        body = mail.get_body(("plain",))
        assert body is not None and reason in body.get_content()
        assert len(server.to("alice@example.org")) == 1  # g2's report went out too

        git(broken, "revert", "--no-edit", "HEAD")
        second = break_tree(broken, "game-toml-invalid")
        for _ in range(2):
            sched.poll(scheduler, settings)
        jobs.retry_outbox(settings)
        assert len(server.to(OPERATOR)) == 2
        last = server.to(OPERATOR)[-1].get_body(("plain",))
        assert last is not None and second in last.get_content()

        git(broken, "revert", "--no-edit", "HEAD")
        sched.poll(scheduler, settings)
        assert needs_host.marked(home, "g1") is None


def first_line(process: subprocess.Popen[str], timeout: float) -> str:
    got: list[str] = []
    assert process.stdout is not None
    stdout = process.stdout
    reader = threading.Thread(target=lambda: got.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return got[0] if got else ""


def test_pamir_serve_starts_with_its_scheduler_beside_a_broken_game(
    tmp_path: Path, home: Path
) -> None:
    settings = load_settings({"home": home})
    broken = new_game(settings, "g1")
    new_game(settings, "g2")
    break_tree(broken, "moves-symlink")
    with mail_server() as server:
        env = {
            **os.environ,
            "PAMIR_SMTP_HOST": "127.0.0.1",
            "PAMIR_SMTP_PORT": str(server.port),
            "PAMIR_SMTP_SECURITY": "none",
            "PAMIR_MAIL_FROM": "pamir@pamir.example",
            "PAMIR_OPERATOR_EMAIL": OPERATOR,
            "PAMIR_OUTBOX_RETRY_SECONDS": "1",
        }
        with (
            open(tmp_path / "serve.log", "w", encoding="utf-8") as errors,
            subprocess.Popen(
                [str(PAMIR), "serve", "--port", "0"],
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                env=env,
            ) as process,
        ):
            try:
                line = first_line(process, 60)
                assert "(with the scheduler;" in line, line
                url = line.split()[2]
                index = fetch(url)
                limit = time.monotonic() + 30
                while not server.to(OPERATOR) and time.monotonic() < limit:
                    time.sleep(0.2)
            finally:
                process.terminate()
                process.wait(30)
    assert index.status == 200 and "needs the host" in row_of(index.text, "g1")
    assert len(server.to(OPERATOR)) == 1


# -- the command line ------------------------------------------------------------------------


def test_pamir_names_the_broken_game_and_refuses_to_play_it(settings: Settings) -> None:
    broken = new_game(settings, "g1")
    new_game(settings, "g2")
    reason = break_tree(broken, "moves-symlink")
    done = pamir("games")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    (g1,) = [line for line in lines if line.startswith("g1 ")]
    (g2,) = [line for line in lines if line.startswith("g2 ")]
    assert "needs the host" in g1 and reason in g1
    assert "needs the host" not in g2
    for command in ("verify", "legal", "log"):
        refused = pamir(command, broken)
        assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
        assert reason in refused.stderr
        assert "Traceback" not in refused.stderr


# -- end to end through a forge -------------------------------------------------------------


@dataclass
class Hosted:
    """A game on a forge simulated by a local bare repository, and the service's clone."""

    game_id: str
    origin: Path
    service: Path

    @property
    def full_name(self) -> str:
        return f"players/{self.game_id}"


def host_game(tmp_path: Path, settings: Settings, game_id: str) -> Hosted:
    origin = tmp_path / "forge" / "players" / f"{game_id}.git"
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "--bare", "--initial-branch=main")
    players = [(n, f"{n}@example.org") for n in TWO]
    newgames.create_remote_game(settings, str(origin), players, game_id=game_id, secret=SECRET)
    return Hosted(game_id, origin, settings.games_dir / game_id)


def player_clone(tmp_path: Path, game: Hosted) -> Path:
    target = tmp_path / f"{game.game_id}-player-{len(list(tmp_path.glob('*-player-*')))}"
    git(tmp_path, "clone", "-q", str(game.origin), str(target))
    return target


def deliver(site: str, game: Hosted, delivery: str) -> tuple[int, dict[str, object]]:
    body = push_payload(game.full_name, str(game.origin), head(game.origin))
    reply = fetch(f"{site}/webhooks/github", body, github_headers(GITHUB_SECRET, body, delivery))
    return reply.status, reply.json()


@pytest.mark.parametrize("how", ["moves-file", "moves-symlink", "game-toml-invalid"])
def test_a_broken_push_to_one_forge_game_leaves_the_others_alone(
    tmp_path: Path, home: Path, settings: Settings, how: str
) -> None:
    """A forge path that restores a tampered tree by a commit of its own answers 200 and
    leaves the game readable; without one, the game needs its host (503). Either way the
    delivery never fails with a 500, and the other game is served, pushed to and polled."""
    g1 = host_game(tmp_path, settings, "g1")
    g2 = host_game(tmp_path, settings, "g2")
    clone = player_clone(tmp_path, g1)
    reason = break_tree(clone, how)
    git(clone, "push", "-q", "origin", "main")
    app = create_app({"home": home, "github_secret": GITHUB_SECRET})
    with serving(app) as site:
        status, answer = deliver(site, g1, "d-1")
        assert status in (200, 503), answer
        assert answer["game"] == "g1"
        mark = needs_host.marked(home, "g1")
        if status == 503:
            assert "needs its host" in str(answer["error"]) and reason in str(answer["error"])
            assert str(home) not in str(answer)  # the forge's delivery log is no place for it
            assert mark is not None and reason in mark.reason
        else:
            assert mark is None
            with opened(g1.service) as repo:
                snapshot(repo)
        index = fetch(f"{site}/")
        assert index.status == 200
        assert "needs the host" not in row_of(index.text, "g2")
        assert ("needs the host" in row_of(index.text, "g1")) == (mark is not None)
        page = fetch(f"{site}/games/g1")
        assert page.status in (200, 503)

        other = player_clone(tmp_path, g2)
        player, options = decider(full_state(other))
        (other / "moves").mkdir(exist_ok=True)
        (other / "moves" / f"0001-{player}.txt").write_text(options[0] + "\n", encoding="utf-8")
        git(other, "add", "moves")
        author = f"{player} <{player}@example.org>"  # the contract: by its own player
        git(other, "commit", "-q", "--author", author, "-m", f"{player}: move 1")
        git(other, "push", "-q", "origin", "main")
        status2, answer2 = deliver(site, g2, "d-2")
        assert status2 == 200 and answer2["adjudicated"] == [1], answer2

        scheduler = sched.build_scheduler(settings)
        sched.poll(scheduler, settings)
        assert set(jobs.poll_remote(settings)) >= {"g2"}

        if status == 503:  # a player repairs the game on the forge: it reads again
            fix = player_clone(tmp_path, g1)
            git(fix, "revert", "--no-edit", "HEAD")
            git(fix, "push", "-q", "origin", "main")
            status3, answer3 = deliver(site, g1, "d-3")
            assert status3 == 200, answer3
            assert needs_host.marked(home, "g1") is None
            assert fetch(f"{site}/games/g1").status == 200


def test_the_outbox_job_is_not_stopped_by_a_broken_game(home: Path) -> None:
    port = free_port()
    settings = settings_for(home, port)
    broken = new_game(settings, "g1")
    other = new_game(settings, "g2")
    with opened(other) as repo:
        pending = waiting(repo)
    assert pending is not None
    jobs.run_deadline(settings, "g2", pending.clock.deadline)  # the mail server is down
    assert outbox.messages_in(settings, "pending")
    break_tree(broken, "moves-file")
    scheduler = sched.build_scheduler(settings)
    with mail_server(port) as server:
        later = datetime.now(UTC) + timedelta(seconds=settings.outbox_retry_seconds + 1)
        sched.poll(scheduler, settings)
        outbox.deliver(settings, now=later)
        assert server.to("alice@example.org")
    assert scheduler.get_job(sched.OUTBOX_JOB) is not None


def _symlinked_move(clone: Path) -> None:
    """The next move file, by its player and numbered right, but a symbolic link."""
    player, _ = decider(full_state(clone))
    (clone / "moves").mkdir(exist_ok=True)
    os.symlink("../state.json", clone / "moves" / f"0001-{player}.txt")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "--author", f"{player} <{player}@example.org>", "-m", "move 1")


def _game_toml_symlink(clone: Path) -> None:
    git(clone, "rm", "-q", "game.toml")
    os.symlink("README.md", clone / "game.toml")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "a link for game.toml")


FORGE_BREAKAGES: dict[str, Callable[[Path], object]] = {
    "move-file-symlink": _symlinked_move,
    "game-toml-symlink": _game_toml_symlink,
    "game-toml-folder": lambda clone: break_tree(clone, "game-toml-folder"),
    "game-toml-not-text": lambda clone: break_tree(clone, "game-toml-not-text"),
}


@pytest.mark.parametrize("how", sorted(FORGE_BREAKAGES))
def test_a_pushed_symlink_or_odd_file_never_halts_a_forge_game(
    tmp_path: Path, home: Path, settings: Settings, how: str
) -> None:
    """What a push puts where a file belongs is put back, and the game goes on; and a
    player's later push that removes the offending file itself (before the service saw
    the first) brings the game back too, with no force-push by its host: the commits
    that stay in the forge's history are never read again as the game's."""
    game = host_game(tmp_path, settings, "g1")
    app = create_app({"home": home, "github_secret": GITHUB_SECRET})
    with serving(app) as site:
        clone = player_clone(tmp_path, game)
        FORGE_BREAKAGES[how](clone)
        git(clone, "push", "-q", "origin", "main")
        status, answer = deliver(site, game, "d-1")
        assert status == 200 and len(answer["restored"]) == 1, answer  # type: ignore[arg-type]
        assert needs_host.marked(home, "g1") is None
        assert fetch(f"{site}/games/g1").status == 200
        # Broken again, and mended by the player's next push before the service looks.
        clone = player_clone(tmp_path, game)
        FORGE_BREAKAGES[how](clone)
        git(clone, "push", "-q", "origin", "main")
        git(clone, "revert", "--no-edit", "HEAD")
        git(clone, "push", "-q", "origin", "main")
        status, answer = deliver(site, game, "d-2")
        assert status == 200, answer
        assert needs_host.marked(home, "g1") is None
        assert fetch(f"{site}/games/g1").status == 200
        # The game goes on: the next move pushed is played.
        mover = player_clone(tmp_path, game)
        player, options = decider(full_state(mover))
        (mover / "moves").mkdir(exist_ok=True)
        (mover / "moves" / f"0001-{player}.txt").write_text(options[0] + "\n", encoding="utf-8")
        git(mover, "add", "moves")
        git(mover, "commit", "-q", "--author", f"{player} <{player}@example.org>", "-m", "m")
        git(mover, "push", "-q", "origin", "main")
        status, answer = deliver(site, game, "d-3")
        assert status == 200 and answer["adjudicated"] == [1], answer
        assert fetch(f"{site}/games/g1").status == 200
    with opened(game.origin) as repo:
        result = verify(repo, home)
    assert result.ok, result.divergence
