"""Game repositories end to end: `pamir new`, `pamir move`, `pamir legal`, crash safety.

Real Git repositories, the installed `pamir` console script, a fresh PAMIR_HOME each test.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import pytest
from gitgame import (
    MAIN,
    PAMIR,
    SECRET,
    TWO,
    changed_files,
    count_commits,
    create,
    decider,
    full_state,
    git,
    head,
    pamir,
    pamir_ok,
    play,
    reachable_text,
    sha256,
    show,
    state_json,
    status,
    trailer,
)

import engine
from adjudicator.games.registry import list_games
from adjudicator.games.seeds import commitment
from adjudicator.home.settings import load_settings

PLAYERS = ("--player", "alice:alice@example.org", "--player", "bob:bob@example.org")


pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return create(tmp_path / "game")


def move_file(tmp_path: Path, text: str, name: str = "move.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- pamir new -----------------------------------------------------------------------------


def test_the_console_script_is_installed() -> None:
    assert PAMIR.exists(), PAMIR


def test_new_creates_a_repository_with_one_adjudicator_commit(tmp_path: Path, home: Path) -> None:
    seed_file = move_file(tmp_path, SECRET + "\n", "seed.txt")
    target = tmp_path / "g1"
    out = pamir_ok("new", target, *PLAYERS, "--seed-file", seed_file)
    assert "created game g1" in out

    assert git(target, "rev-parse", "--is-bare-repository").strip() == "false"
    assert git(target, "symbolic-ref", "HEAD").strip() == MAIN
    assert count_commits(target, "--all") == 1
    adjudicator = "pamir adjudicator <adjudicator@pamir.invalid>"
    people = git(target, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip()
    assert people == f"{adjudicator}|{adjudicator}"
    files = set(git(target, "ls-tree", "-r", "--name-only", MAIN).split())
    assert files == {"README.md", "game.toml", "state.json", "board.svg", "reports/0000.md"}
    assert status(target) == ""  # the working tree is checked out and clean

    game = tomllib.loads(show(target, MAIN, "game.toml"))
    assert game["id"] == "g1"
    assert [p["name"] for p in game["players"]] == list(TWO)
    assert game["seed_commitment"] == commitment(SECRET)
    assert game["seed_commitment"] == sha256(SECRET)

    state_text = show(target, MAIN, "state.json")
    assert trailer(target, "Pamir-Move") == "0"
    assert trailer(target, "Pamir-State") == sha256(state_text)
    assert state_json(target)["move"] == 0

    secret_file = home / "secrets" / "g1.secret"
    assert secret_file.read_text(encoding="ascii").strip() == SECRET
    assert secret_file.stat().st_mode & 0o077 == 0  # readable by the service only
    history = git(target, "log", "--all", "-p", "--format=%H%n%B")
    assert game["seed_commitment"].removeprefix("sha256:") in history
    assert SECRET not in history
    assert SECRET not in reachable_text(target)


def test_new_draws_a_fresh_secret_and_keeps_it_out_of_the_repository(
    tmp_path: Path, home: Path
) -> None:
    target = tmp_path / "g2.git"
    pamir_ok("new", target, *PLAYERS, "--bare")
    assert git(target, "rev-parse", "--is-bare-repository").strip() == "true"
    assert count_commits(target) == 1
    secret = (home / "secrets" / "g2.secret").read_text(encoding="ascii").strip()
    assert re.fullmatch(r"[0-9a-f]{64}", secret)
    game = tomllib.loads(show(target, MAIN, "game.toml"))
    assert game["id"] == "g2"
    assert game["seed_commitment"] == sha256(secret)
    assert secret not in git(target, "log", "--all", "-p")
    assert secret not in reachable_text(target)


def test_new_refuses_a_folder_that_is_not_empty(tmp_path: Path, home: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "notes.txt").write_text("mine\n", encoding="utf-8")
    done = pamir("new", target, *PLAYERS)
    assert done.returncode == 2, done.stderr
    assert "not empty" in done.stderr
    assert not (target / ".git").exists()
    assert not (home / "secrets" / "busy.secret").exists()


@pytest.mark.parametrize(
    ("folder", "extra", "named"),
    [
        ("Bad.Id", (), "bad-id"),
        ("Kabul.git", ("--bare",), "kabul"),
        ("herat", ("--id", "kandahar"), "kandahar"),
        ("Zürich", (), "ID"),
    ],
)
def test_new_refuses_a_service_folder_not_named_after_the_games_id(
    home: Path, folder: str, extra: tuple[str, ...], named: str
) -> None:
    """The service finds a game in PAMIR_HOME/games by its id: a game made in a folder of
    another name would be found by nothing (docs/configuration.md)."""
    target = home / "games" / folder
    done = pamir("new", target, *PLAYERS, *extra)
    assert done.returncode == 2, done.stdout
    assert f"games/{named} or games/{named}.git" in done.stderr, done.stderr
    assert "lower-case letters, digits" in done.stderr
    assert not target.exists() and not (home / "secrets" / f"{named}.secret").exists()
    assert list_games(load_settings({"home": home})) == []
    # Named after its id, the game is made and found; outside the service's folder any
    # name still goes, its id made from it.
    if named != "ID":
        made = pamir_ok("new", home / "games" / named, *PLAYERS, *extra)
        assert f"created game {named} in " in made
        assert [game_id for game_id, _ in list_games(load_settings({"home": home}))] == [named]
    assert "created game my-game in " in pamir_ok("new", home.parent / "My.Game", *PLAYERS)


def left_behind(tmp_path: Path) -> list[str]:
    """Every file under the test's folder (but for HOME and the seed file), and every
    folder outside PAMIR_HOME. Empty folders that PAMIR_HOME keeps (secrets/, private/)
    are no trace of a game, and nor is the service's own signing key (keys/), which every
    game of the service shares."""
    return sorted(
        str(p.relative_to(tmp_path))
        for p in tmp_path.rglob("*")
        if not p.is_relative_to(tmp_path / "user-home")
        and not p.is_relative_to(tmp_path / "pamir-home" / "keys")
        and p.name not in {"pamir-home", "user-home", "seed.txt"}
        and (p.is_file() or not p.is_relative_to(tmp_path / "pamir-home"))
    )


@pytest.mark.parametrize("blocked", ["secrets", "private/g1"])
def test_a_failed_new_leaves_no_repository_and_no_secret(
    tmp_path: Path, home: Path, blocked: str
) -> None:
    """A file where PAMIR_HOME needs a folder makes a step after `git init` fail: keeping
    the secret, or writing the private sections after the first commit."""
    (home / blocked).parent.mkdir(parents=True, exist_ok=True)
    (home / blocked).write_text("in the way\n", encoding="utf-8")
    done = pamir("new", tmp_path / "games" / "g1", *PLAYERS)
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr
    assert left_behind(tmp_path) == ["pamir-home/" + blocked]


def fail_to_render(*args: object, **kwargs: object) -> str:
    raise RuntimeError("a template that cannot be rendered")


@pytest.mark.parametrize("bare", [False, True])
@pytest.mark.parametrize(
    "step",
    [
        "adjudicator.games.newgame.report_for",  # a bad template
        "adjudicator.games.repo.GameRepo.commit",  # Git failing
        "adjudicator.games.newgame.write_private_sections",  # after the first commit
    ],
)
def test_new_undoes_everything_when_a_step_crashes(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, step: str, bare: bool
) -> None:
    monkeypatch.setattr(step, fail_to_render)
    target = tmp_path / "deep" / "er" / ("g1.git" if bare else "g1")
    with pytest.raises(RuntimeError, match="cannot be rendered"):
        create(target, bare=bare)
    assert left_behind(tmp_path) == []  # not even the parent folders it made
    assert not (home / "secrets" / "g1.secret").exists()
    assert not (home / "private" / "g1").exists()


def test_a_failed_new_in_an_empty_folder_leaves_it_empty(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "g1"
    target.mkdir()
    monkeypatch.setattr("adjudicator.games.repo.GameRepo.commit", fail_to_render)
    with pytest.raises(RuntimeError):
        create(target)
    assert target.is_dir() and list(target.iterdir()) == []
    assert left_behind(tmp_path) == ["g1"]


def test_new_builds_in_an_empty_folder_in_place(tmp_path: Path, home: Path) -> None:
    """The folder itself is kept (it may be a mount point, or have its own mode)."""
    target = tmp_path / "g1"
    target.mkdir()
    target.chmod(0o750)
    inode = target.stat().st_ino
    pamir_ok("new", target, *PLAYERS)
    assert target.stat().st_ino == inode and target.stat().st_mode & 0o777 == 0o750
    assert count_commits(target) == 1
    assert (home / "secrets" / "g1.secret").exists()


def test_new_leaves_no_hidden_folder_beside_the_game(tmp_path: Path, home: Path) -> None:
    pamir_ok("new", tmp_path / "games" / "g1", *PLAYERS)
    assert [p.name for p in (tmp_path / "games").iterdir()] == ["g1"]


def test_a_game_still_being_built_is_not_listed(home: Path) -> None:
    """`create_game` builds in a hidden folder beside the target: no game until renamed."""
    games = home / "games"
    create(games / "g1")
    shutil.copytree(games / "g1", games / ".g2.0a1b2c3d.new")
    assert [game_id for game_id, _ in list_games(load_settings())] == ["g1"]


# -- pamir move ----------------------------------------------------------------------------


def test_move_commits_the_move_state_and_report_together(tmp_path: Path, game: Path) -> None:
    before = head(game)
    player, options = decider(full_state(game))
    text = f"# my loyalty\n{options[1]}\n"
    out = pamir_ok("move", game, "--as", player, move_file(tmp_path, text), "--expect", "1")
    assert "move 1 adjudicated" in out

    after = head(game)
    assert after != before
    assert git(game, "rev-parse", f"{MAIN}^").strip() == before
    assert count_commits(game) == 2
    assert changed_files(game) == {
        f"moves/0001-{player}.txt",
        "state.json",
        "board.svg",
        "reports/0001.md",
    }
    assert show(game, MAIN, f"moves/0001-{player}.txt") == text
    state_text = show(game, MAIN, "state.json")
    assert trailer(game, "Pamir-Move") == "1"
    assert trailer(game, "Pamir-State") == sha256(state_text)
    assert state_json(game)["move"] == 1
    assert state_json(game)["last"]["actions"] == [options[1]]
    assert git(game, "log", "-1", "--format=%an <%ae>").strip() == (
        f"{player} <{player}@example.org>"
    )
    report = show(game, MAIN, "reports/0001.md")
    assert report.startswith(f"# game: move 1 by {player}")
    assert report in out  # the report is printed as well
    assert status(game) == ""  # the working tree follows the branch
    assert (game / "state.json").read_text(encoding="utf-8") == state_text


def test_move_mails_the_report_to_every_player(tmp_path: Path, game: Path, home: Path) -> None:
    """With no SMTP server configured, the messages are written to the outbox."""
    written = home / "outbox" / "written"
    before = set(written.glob("*.eml")) if written.exists() else set()
    player, options = decider(full_state(game))
    pamir_ok("move", game, "--as", player, move_file(tmp_path, options[0] + "\n"))
    new = set(written.glob("*.eml")) - before
    assert len(new) == 2  # one for each player
    texts = [path.read_text(encoding="utf-8") for path in new]
    assert all("move 1 by" in text for text in texts)
    to = [line for text in texts for line in text.splitlines() if line.startswith("To: ")]
    assert any("<alice@example.org>" in line for line in to)
    assert any("<bob@example.org>" in line for line in to)


def test_an_illegal_move_is_refused_naming_line_code_section_and_alternatives(
    tmp_path: Path, game: Path
) -> None:
    before = head(game)
    player, options = decider(full_state(game))
    assert options and all(o.startswith("loyalty ") for o in options)
    text = "# opening\n\npurchase 20\n"
    done = pamir("move", game, "--as", player, move_file(tmp_path, text))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    message = done.stderr
    assert "line 3" in message
    assert "wrong-decision" in message
    assert "[Setup, p. 4]" in message
    legal = message.split("legal now:", 1)[1]
    assert [o.strip() for o in legal.strip().split(",")] == options

    assert head(game) == before
    assert count_commits(game) == 1
    assert status(game) == ""
    assert not (game / "moves").exists()


def test_a_line_for_another_player_is_refused(tmp_path: Path, game: Path) -> None:
    before = head(game)
    player, options = decider(full_state(game))
    other = next(n for n in TWO if n != player)
    text = f"{other}: {options[0]}\n"
    done = pamir("move", game, "--as", player, move_file(tmp_path, text))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "not-your-line" in done.stderr
    assert "line 1" in done.stderr
    assert head(game) == before
    assert status(game) == ""
    # The same line with the author's own name is accepted.
    pamir_ok("move", game, "--as", player, move_file(tmp_path, f"{player}: {options[0]}\n"))
    assert head(game) != before


def test_expect_refuses_a_stale_or_future_number(tmp_path: Path, game: Path) -> None:
    play(game, 2, seed=1)
    before = head(game)
    player, options = decider(full_state(game))
    path = move_file(tmp_path, options[0] + "\n")
    stale = pamir("move", game, "--as", player, path, "--expect", "2")
    assert stale.returncode == 2
    assert "stale" in stale.stderr and "0003" in stale.stderr
    future = pamir("move", game, "--as", player, path, "--expect", "4")
    assert future.returncode == 2
    assert "out-of-order" in future.stderr
    assert head(game) == before
    assert status(game) == ""
    assert not (game / "moves" / f"0003-{player}.txt").exists()


def test_legal_prints_what_the_engine_lists_for_the_full_position(
    tmp_path: Path, game: Path
) -> None:
    played = play(game, 6, seed=3)
    assert played == 6
    state = full_state(game)
    expected = [f"{p}: {engine.format_action(a)}" for p, a in engine.legal_actions(state)]
    assert expected
    lines = pamir_ok("legal", game).splitlines()
    assert lines == expected
    # The same lines as `pamir engine legal` on the full state file.
    state_file = tmp_path / "full.json"
    state_file.write_text(engine.dumps(state), encoding="utf-8")
    assert pamir_ok("engine", "legal", state_file).splitlines() == lines
    player = lines[0].split(":", 1)[0]
    mine = pamir_ok("legal", game, "--as", player.upper()).splitlines()
    assert mine == [line for line in lines if line.startswith(f"{player}: ")]
    # The public state.json does not hold what the engine needs: it is a view.
    assert "deck" not in state_json(game)["view"]


# -- crash safety --------------------------------------------------------------------------


def test_a_crash_before_the_ref_moves_leaves_the_game_as_it_was(tmp_path: Path, game: Path) -> None:
    play(game, 1, seed=2)
    before = head(game)
    player, options = decider(full_state(game))
    path = move_file(tmp_path, options[0] + "\n")
    crashed = pamir("move", game, "--as", player, path, env={"PAMIR_FAULT": "before-ref"})
    assert crashed.returncode == 70, crashed.stderr
    assert head(game) == before
    assert status(game) == ""
    assert not (game / "moves" / f"0002-{player}.txt").exists()
    assert "ok:" in pamir_ok("verify", game)

    out = pamir_ok("move", game, "--as", player, path, "--expect", "2")
    assert "move 2 adjudicated" in out
    assert git(game, "rev-parse", f"{MAIN}^").strip() == before
    assert status(game) == ""


def test_a_crash_after_the_ref_moves_keeps_the_commit(tmp_path: Path, game: Path) -> None:
    play(game, 1, seed=2)
    before = head(game)
    player, options = decider(full_state(game))
    path = move_file(tmp_path, options[0] + "\n")
    crashed = pamir("move", game, "--as", player, path, env={"PAMIR_FAULT": "after-ref"})
    assert crashed.returncode == 70, crashed.stderr
    after = head(game)
    assert after != before
    assert git(game, "rev-parse", f"{MAIN}^").strip() == before
    assert trailer(game, "Pamir-Move") == "2"
    assert changed_files(game) == {
        f"moves/0002-{player}.txt",
        "state.json",
        "board.svg",
        "reports/0002.md",
    }
    assert "ok:" in pamir_ok("verify", game)

    # The next command brings the working tree in line, then plays on.
    nxt, options = decider(full_state(game))
    out = pamir_ok("move", game, "--as", nxt, move_file(tmp_path, options[0] + "\n", "next.txt"))
    assert "move 3 adjudicated" in out
    assert git(game, "rev-parse", f"{MAIN}^").strip() == after
    assert status(game) == ""
    assert (game / f"moves/0002-{player}.txt").exists()
    assert (game / "state.json").read_text(encoding="utf-8") == show(game, MAIN, "state.json")
