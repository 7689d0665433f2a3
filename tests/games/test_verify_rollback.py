"""`pamir verify`, seed secrecy and the reveal, and rollbacks, on games played by a bot.

Games are played in-process through `adjudicator.games.pipeline.submit` by a seeded random bot
that takes its options from `position` + `legal_seat_actions`; what is checked runs
through the real `pamir` console script and real Git.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from gitgame import (
    MAIN,
    SECRET,
    THREE,
    changed_files,
    copy_game,
    count_commits,
    create,
    decider,
    full_state,
    git,
    head,
    isolate,
    pamir,
    pamir_ok,
    play,
    reachable_text,
    sha256,
    show,
    state_json,
    status,
)

import engine
from adjudicator.games.seeds import commitment
from adjudicator.games.snapshot import GameError

PLAYED_MOVES = 30
FORGED = "0" * 64


@dataclass(frozen=True)
class Game:
    path: Path
    home: Path  # the PAMIR_HOME that holds its secret
    moves: int


pytestmark = pytest.mark.usefixtures("home")


def module_game(
    factory: pytest.TempPathFactory, name: str, moves: int, seed: int, *, whole_turn: bool
) -> Iterator[Game]:
    """A game played by the bot in a PAMIR_HOME of its own, shared by a module's tests."""
    base = factory.mktemp(name)
    with pytest.MonkeyPatch.context() as patch:
        home = isolate(base, patch)
        path = create(base / name)
        played = play(path, moves, seed, whole_turn=whole_turn)
        yield Game(path, home, played)


@pytest.fixture(scope="module")
def played_source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Game]:
    """A two-player game after 30 moves of one action each, far from its end."""
    yield from module_game(tmp_path_factory, "played", PLAYED_MOVES, seed=11, whole_turn=False)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Game]:
    """A complete two-player game: each move file holds a whole turn."""
    for game in module_game(tmp_path_factory, "finished", 500, seed=5, whole_turn=True):
        assert game.moves < 500 and (game.path / "reveal.toml").exists(), "the game did not end"
        yield game


@pytest.fixture
def played(played_source: Game, tmp_path: Path) -> Path:
    """A copy of the played game this test may change; its secret is in this PAMIR_HOME."""
    assert played_source.moves == PLAYED_MOVES
    return copy_game(played_source.path, played_source.home, tmp_path / "played")


def json_keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in json_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in json_keys(v)}
    return set()


def states_in_history(path: Path) -> list[tuple[str, str, str]]:
    """(commit, its Pamir-State trailer, its state.json text) for every commit of main."""
    log = git(path, "log", "--format=%H %(trailers:key=Pamir-State,valueonly,separator=)", MAIN)
    rows = [line.split(" ", 1) for line in log.splitlines() if line.strip()]
    texts = [show(path, sha, "state.json") for sha, _ in rows]
    return [(sha, value.strip(), text) for (sha, value), text in zip(rows, texts, strict=True)]


def divergence(path: Path) -> str:
    done = pamir("verify", path)
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    return done.stderr


def plain_commit(path: Path, message: str) -> str:
    git(path, "commit", "-q", "-a", "-m", message)
    return head(path)


# -- verify --------------------------------------------------------------------------------


def test_verify_passes_on_a_played_game(played: Path) -> None:
    assert count_commits(played) == 1 + PLAYED_MOVES
    out = pamir_ok("verify", played)
    assert out.startswith(f"ok: {1 + PLAYED_MOVES} commits, moves up to {PLAYED_MOVES} replayed")
    assert "seed not revealed yet" in out
    # Every adjudicator commit names the hash of the state.json it holds.
    history = states_in_history(played)
    assert len(history) == 1 + PLAYED_MOVES
    for sha, value, text in history:
        assert value == sha256(text), sha
    # And each state.json is the public view of the replay after its move.
    assert state_json(played)["view"] == engine.view(full_state(played))


def test_a_hand_edited_state_is_a_divergence(played: Path) -> None:
    data = json.loads((played / "state.json").read_text(encoding="utf-8"))
    data["view"]["players"][0]["rupees"] += 5
    (played / "state.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    forged = plain_commit(played, "more rupees for me")
    message = divergence(played)
    assert forged[:10] in message
    assert "state.json" in message
    assert f"after move {PLAYED_MOVES}" in message
    assert "view" in message


def test_a_hand_edited_summary_of_the_last_move_is_a_divergence(played: Path) -> None:
    data = json.loads((played / "state.json").read_text(encoding="utf-8"))
    data["last"]["actions"] = ["pass"] if data["last"]["actions"] != ["pass"] else ["done"]
    (played / "state.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    forged = plain_commit(played, "that is not what I did")
    message = divergence(played)
    assert forged[:10] in message
    assert "'last'" in message


def test_a_hand_edited_old_report_is_caught(played: Path) -> None:
    report = played / "reports" / "0007.md"
    report.write_text(report.read_text(encoding="utf-8") + "\nbob was winning here.\n", "utf-8")
    plain_commit(played, "annotate an old report")
    message = divergence(played)
    assert "reports/0007.md" in message


def edit_move_three(played: Path) -> None:
    """Replace move 3 by another legal choice, in a plain commit after it was adjudicated."""
    player, options = decider(full_state(played, upto=2))
    path = played / "moves" / f"0003-{player}.txt"
    original = path.read_text(encoding="utf-8").strip()
    others = [o for o in options if o != original]
    assert original in options and others
    path.write_text(others[-1] + "\n", encoding="utf-8")
    plain_commit(played, "I meant the other one")


def test_an_edited_move_file_is_caught(played: Path) -> None:
    edit_move_three(played)
    divergence(played)


def test_a_move_claimed_adjudicated_that_does_not_replay_is_a_divergence(played: Path) -> None:
    """A plain commit adds an illegal move file and a state.json that says it was played."""
    player, _ = decider(full_state(played))
    number = PLAYED_MOVES + 1
    (played / "moves" / f"{number:04d}-{player}.txt").write_text("purchase 99\n", "utf-8")
    data = json.loads((played / "state.json").read_text(encoding="utf-8"))
    data["move"] = number
    (played / "state.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    git(played, "add", "moves")
    forged = plain_commit(played, "my move, adjudicated by me")
    message = divergence(played)
    assert forged[:10] in message
    assert "move cannot be replayed" in message


def test_a_history_that_no_longer_replays_is_refused(played: Path, tmp_path: Path) -> None:
    player, options = decider(full_state(played))
    edit_move_three(played)
    with pytest.raises((engine.MoveError, GameError)):  # the recorded moves no longer replay
        full_state(played)
    before = head(played)
    move = tmp_path / "next.txt"
    move.write_text(options[0] + "\n", encoding="utf-8")
    done = pamir("move", played, "--as", player, move)
    assert "Traceback" not in done.stderr
    assert done.returncode == 2
    assert head(played) == before


# -- seed secrecy --------------------------------------------------------------------------


def test_before_the_end_nothing_in_the_repository_tells_the_secret_or_the_deck(
    played: Path, home: Path
) -> None:
    assert (home / "secrets" / "played.secret").read_text(encoding="ascii").strip() == SECRET
    assert full_state(played).phase != "over"
    assert not (played / "reveal.toml").exists()
    text = git(played, "log", "--all", "-p", "--format=%H%n%B")
    assert commitment(SECRET).removeprefix("sha256:") in text  # the real history, in full
    assert SECRET not in text
    everything = reachable_text(played)
    assert SECRET not in everything
    deck = full_state(played).deck
    assert len(deck) > 5
    for spelled in (json.dumps(deck), json.dumps(deck, indent=2), ", ".join(map(str, deck))):
        assert spelled not in everything
    for sha, _, state_text in states_in_history(played):
        keys = json_keys(json.loads(state_text))
        assert "deck_size" in keys, sha
        assert not keys & {"deck", "rng", "seed", "secret"}, sha


# -- the end of the game: the reveal -------------------------------------------------------


def test_the_end_reveals_the_secret(finished: Game) -> None:
    path = finished.path
    view = state_json(path)["view"]
    assert view["phase"] == "over"
    assert view["winners"]
    reveal = tomllib.loads(show(path, MAIN, "reveal.toml"))
    assert reveal["secret"] == SECRET
    game = tomllib.loads(show(path, MAIN, "game.toml"))
    assert commitment(reveal["secret"]) == game["seed_commitment"]
    # The secret enters the repository with the move that ends the game, not before.
    assert "reveal.toml" in changed_files(path)
    assert SECRET not in git(path, "log", "-p", f"{MAIN}~1")
    assert git(path, "log", "--format=%H", f"-S{SECRET}", MAIN).split() == [head(path)]


def test_verify_a_finished_game(finished: Game) -> None:
    out = pamir_ok("verify", finished.path, env={"PAMIR_HOME": str(finished.home)})
    assert out.startswith(f"ok: {count_commits(finished.path)} commits")
    assert "secret checked against its commitment" in out


def test_anyone_can_verify_a_finished_game(finished: Game, tmp_path: Path, home: Path) -> None:
    assert not (home / "secrets").exists()
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(finished.path), str(mine))
    done = pamir("verify", mine)
    assert done.returncode == 0, done.stderr
    assert "secret checked against its commitment" in done.stdout


@pytest.fixture
def forged(finished: Game, tmp_path: Path) -> Path:
    """A copy of the finished game whose reveal.toml was replaced by a plain commit."""
    path = copy_game(finished.path, finished.home, tmp_path / "forged")
    (path / "reveal.toml").write_text(f'secret = "{FORGED}"\n', encoding="utf-8")
    plain_commit(path, "a different secret")
    return path


def test_verify_refuses_a_reveal_that_does_not_match_the_commitment(forged: Path) -> None:
    done = pamir("verify", forged)
    assert done.returncode in (2, 3), done.stdout
    assert "commitment" in done.stderr


def test_replaying_from_a_forged_reveal_is_refused(forged: Path) -> None:
    done = pamir("legal", forged)
    assert done.returncode == 2
    assert "does not match its commitment" in done.stderr


# -- rollback ------------------------------------------------------------------------------


def test_rollback_by_the_service(played: Path, tmp_path: Path) -> None:
    to = 25
    old = git(played, "rev-list", MAIN).split()
    old_head = head(played)
    then = full_state(played, upto=to)
    expected = engine.view(then)
    at_move = git(played, "log", "-1", "--format=%H", MAIN, "--", f"reports/{to:04d}.md").strip()

    out = pamir_ok("rollback", played, "--to", str(to), "--reason", "alice misclicked")
    assert f"rolled back to move {to}" in out

    # A new commit on top: nothing rewritten, every move file kept.
    assert count_commits(played) == len(old) + 1
    assert git(played, "rev-parse", f"{MAIN}^").strip() == old_head
    assert set(old) < set(git(played, "rev-list", MAIN).split())
    files = set(git(played, "ls-tree", "-r", "--name-only", MAIN, "moves").split())
    assert len(files) == PLAYED_MOVES
    assert status(played) == ""

    # The position is the one after move 25, as a replay gives it and as it was committed.
    assert state_json(played)["view"] == expected
    assert state_json(played, at_move)["view"] == expected
    rollbacks = tomllib.loads(show(played, MAIN, "rollbacks.toml"))["rollback"]
    assert len(rollbacks) == 1
    assert rollbacks[0]["to"] == to
    assert rollbacks[0]["undone"] == list(range(to + 1, PLAYED_MOVES + 1))
    assert rollbacks[0]["reason"] == "alice misclicked"

    lines = pamir_ok("log", played).splitlines()
    assert [line[:4] for line in lines] == [f"{n:04d}" for n in range(PLAYED_MOVES + 1)] + ["----"]
    for number, line in enumerate(lines[:-1]):
        assert line.endswith("(undone)") == (number > to), line
    assert "alice misclicked" in lines[-1]

    # A move that no longer counts cannot be a target.
    refused = pamir("rollback", played, "--to", "27", "--reason", "again")
    assert refused.returncode == 2
    assert "bad-rollback" in refused.stderr

    # The game goes on from move 25, numbered after the last move file.
    now = full_state(played)
    assert engine.legal_actions(now) == engine.legal_actions(then)
    player, options = decider(now)
    move = tmp_path / "next.txt"
    move.write_text(options[0] + "\n", encoding="utf-8")
    out = pamir_ok("move", played, "--as", player, move, "--expect", str(PLAYED_MOVES + 1))
    assert f"move {PLAYED_MOVES + 1} adjudicated" in out
    assert (played / "moves" / f"{PLAYED_MOVES + 1:04d}-{player}.txt").exists()
    assert "ok:" in pamir_ok("verify", played)


@pytest.fixture
def three(tmp_path: Path) -> Path:
    path = create(tmp_path / "three", THREE)
    assert play(path, 6, seed=8) == 6
    return path


def submit_cli(path: Path, player: str, text: str) -> str:
    file = path.parent / f"{player}-move.txt"
    file.write_text(text, encoding="utf-8")
    return pamir_ok("move", path, "--as", player, file)


def test_rollback_by_consent(three: Path) -> None:
    before = state_json(three)["view"]
    expected = engine.view(full_state(three, upto=3))
    assert expected != before

    out = submit_cli(three, "alice", "rollback 3 I misread the market\n")
    assert "move 7 adjudicated" in out
    proposal = tomllib.loads(show(three, MAIN, "rollbacks.toml"))["proposal"]
    assert proposal["to"] == 3 and proposal["agreed"] == ["alice"]
    assert state_json(three)["view"] == before  # nothing happens yet

    out = submit_cli(three, "bob", "agree rollback\n")
    assert "waiting for carol" in out
    assert state_json(three)["view"] == before

    submit_cli(three, "carol", "# fine by me\nagree rollback\n")
    rollbacks = tomllib.loads(show(three, MAIN, "rollbacks.toml"))
    assert "proposal" not in rollbacks
    assert rollbacks["rollback"][0]["to"] == 3
    assert {4, 5, 6} <= set(rollbacks["rollback"][0]["undone"])
    assert state_json(three)["view"] == expected
    moves = git(three, "ls-tree", "--name-only", MAIN, "moves/").split()
    assert moves[-3:] == ["moves/0007-alice.txt", "moves/0008-bob.txt", "moves/0009-carol.txt"]
    assert "ok:" in pamir_ok("verify", three)


def test_agree_without_a_proposal_is_refused(three: Path, tmp_path: Path) -> None:
    before = head(three)
    file = tmp_path / "agree.txt"
    file.write_text("agree rollback\n", encoding="utf-8")
    done = pamir("move", three, "--as", "bob", file)
    assert done.returncode == 2
    assert "no-rollback" in done.stderr
    assert head(three) == before
    assert status(three) == ""
