"""The position cache (adjudicator/games/positions.py): a submission starts from the cached
position of the last adjudicated commit, never from an entry that disagrees with the
committed state.json, and `pamir verify` never reads it."""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path

import pytest

import engine
from adjudicator.games import positions
from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.seeds import secret_path
from adjudicator.games.snapshot import GameError, replay, snapshot
from adjudicator.games.verify import verify
from adjudicator.home.paths import positions_dir

PLAYERS = [("alice", "alice@example.org"), ("bob", "bob@example.org")]


def new(home: Path) -> GameRepo:
    return create_game(home / "games" / "g", PLAYERS, home=home, secret="cache test secret")


def play(repo: GameRepo, home: Path, moves: int) -> None:
    """Submit the first legal action, `moves` times."""
    for _ in range(moves):
        state = position(snapshot(repo), home)
        player, action = engine.legal_actions(state)[0]
        submit(repo, player, engine.format_action(action) + "\n", home=home)


def entries(home: Path) -> list[Path]:
    return sorted(positions_dir(home, "g").glob("*.json"))


def test_each_adjudicated_commit_leaves_its_position_outside_the_repository(home: Path) -> None:
    repo = new(home)
    play(repo, home, 3)
    snap = snapshot(repo)
    key = positions.basis(snap)
    assert key is not None and (positions_dir(home, "g") / f"{key}.json").exists()
    assert not any("cache" in part for part in repo.repo.git.ls_files().split())
    folder = positions_dir(home, "g")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # it holds the deck order
    assert len(entries(home)) <= positions.KEEP
    cached = positions.load(snap, home)
    assert cached is not None
    assert engine.dumps(cached) == engine.dumps(replay(snap, home, upto=snap.adjudicated)[0])


def test_a_submission_starts_from_the_cache_not_from_the_seed(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    repo = new(home)
    play(repo, home, 2)
    with caplog.at_level(logging.DEBUG, logger="adjudicator.games.positions"):
        play(repo, home, 2)
    assert caplog.text.count("from the cache") == 4  # each play reads it twice
    assert snapshot(repo).adjudicated == 4


def test_without_the_secret_the_cache_does_not_stand_in_for_it(home: Path) -> None:
    repo = new(home)
    play(repo, home, 2)
    secret_path(home, "g").rename(home / "secret.away")
    with pytest.raises(GameError, match="secret seed"):
        position(snapshot(repo), home)


def test_a_position_is_replayed_when_the_cache_is_gone(home: Path) -> None:
    repo = new(home)
    play(repo, home, 2)
    for entry in entries(home):
        entry.unlink()
    play(repo, home, 1)  # a miss replays, and fills the cache again
    assert positions.load(snapshot(repo), home) is not None


def test_an_entry_that_disagrees_with_state_json_is_not_trusted(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    repo = new(home)
    play(repo, home, 3)
    snap = snapshot(repo)
    key = positions.basis(snap)
    # The position of an earlier commit, filed under the latest commit's basis.
    earlier = replay(snap, home, upto=1)[0]
    path = positions_dir(home, "g") / f"{key}.json"
    entry = json.loads(path.read_text())
    entry["state"] = engine.to_dict(earlier)
    path.write_text(json.dumps(entry))
    with caplog.at_level(logging.WARNING):
        assert positions.load(snap, home) is None
    assert "disagrees" in caplog.text
    right = replay(snap, home, upto=snap.adjudicated)[0]
    assert engine.dumps(position(snap, home)) == engine.dumps(right)


@pytest.mark.parametrize(
    "damage",
    [
        "",  # what a crash may leave: entries are written without a flush to disk
        "not json",
        json.dumps({"format": 1, "engine": "0.0.0-other", "state": {}}),
        json.dumps({"format": 1, "engine": engine.__version__, "state": {"phase": 7}}),
        json.dumps([1, 2]),
    ],
)
def test_an_unreadable_entry_is_a_miss(home: Path, damage: str) -> None:
    repo = new(home)
    play(repo, home, 1)
    snap = snapshot(repo)
    (positions_dir(home, "g") / f"{positions.basis(snap)}.json").write_text(damage)
    assert positions.load(snap, home) is None
    play(repo, home, 1)  # the submission replays
    assert snapshot(repo).adjudicated == 2


def test_a_pushed_move_waiting_for_the_adjudicator_keeps_the_basis(home: Path) -> None:
    repo = new(home)
    play(repo, home, 1)
    before = snapshot(repo)
    state = position(before, home)
    player, action = engine.legal_actions(state)[0]
    commit = repo.commit(
        {f"moves/0002-{player}.txt": (engine.format_action(action) + "\n").encode()},
        f"Move 2 by {player}",
        parent=before.commit,
    )
    after = snapshot(repo, commit)
    assert after.pending() and positions.basis(after) == positions.basis(before)


def test_verify_replays_and_never_reads_the_cache(home: Path) -> None:
    repo = new(home)
    play(repo, home, 3)
    for entry in entries(home):
        entry.write_text("damaged")
    assert verify(repo, home).ok


def test_the_raw_tree_reading_names_every_move_file(home: Path) -> None:
    repo = new(home)
    play(repo, home, 3)
    ids = repo.ids("moves")
    assert sorted(ids) == repo.names("moves") and len(ids) == 3
    blob = repo.repo.commit(repo.head()).tree / "moves" / repo.names("moves")[0]
    assert ids[repo.names("moves")[0]] == f"100644 {blob.hexsha}"
    assert repo.ids("no-such-folder") == {}
