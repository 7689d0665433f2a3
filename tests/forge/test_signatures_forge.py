"""Signed commits on a forge-hosted game (docs/signing.md, docs/web.md).

A forge takes whatever a player pushes, so a move whose signature does not hold is put
back by a restore commit of the service, like any other breach of the contract, and
never played; a correctly signed move is. Real `git push` to a local bare repository
standing in for the forge; the service brought up to date as the scheduler's poll does.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gitgame import SECRET, decider, git, head, opened, push
from test_signatures import commit_move, make_key, public, tamper_message
from test_webhooks import Hosted, player_clone, state_after_pushes

from adjudicator.forge import newgames
from adjudicator.games.snapshot import GameError
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings
from adjudicator.schedule.jobs import sync_game

pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "player-keys"
    return {name: make_key(folder, name) for name in ("alice", "bob")}


@pytest.fixture
def game(tmp_path: Path, settings: Settings, keys: dict[str, Path]) -> Hosted:
    origin = tmp_path / "forge" / "players" / "g1.git"
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "--bare", "--initial-branch=main")
    newgames.create_remote_game(
        settings,
        str(origin),
        [("alice", "alice@example.org"), ("bob", "bob@example.org")],
        game_id="g1",
        secret=SECRET,
        signing_keys={name: public(key) for name, key in keys.items()},
    ).repo.close()
    return Hosted("g1", origin, settings.games_dir / "g1", "players/g1")


def push_signed(
    game: Hosted, keys: dict[str, Path], signer: str | None, *, tamper: bool = False
) -> tuple[str, str]:
    """The player who must decide pushes a legal move, signed by `signer`'s key ("other":
    the opponent's; None: unsigned); returns the player and the pushed commit."""
    player, options = decider(state_after_pushes(game))
    other = "bob" if player == "alice" else "alice"
    key = None if signer is None else keys[player if signer == "self" else other]
    clone = player_clone(game, player)
    number = len(git(clone, "ls-tree", "--name-only", "main", "moves/").split()) + 1
    made = commit_move(clone, number, player, options[0] + "\n", key=key)
    if tamper:
        made = tamper_message(clone)
    done = push(clone)
    assert done.returncode == 0, done.stderr
    return player, made


def restores(game: Hosted) -> list[str]:
    return git(game.origin, "log", "--format=%H", "--grep=^Pamir-Restore:", "main").split()


def moves_on_forge(game: Hosted) -> list[str]:
    return git(game.origin, "ls-tree", "--name-only", "main", "moves/").split()


def checked(game: Hosted, settings: Settings) -> list[str]:
    """`pamir verify` of the forge's history: ok; what it says was refused."""
    with opened(game.origin) as repo:
        result = verify(repo, settings.home)
    assert result.ok, result.divergence
    return result.refused


def test_a_signed_move_is_played_and_a_badly_signed_one_is_put_back(
    game: Hosted, settings: Settings, keys: dict[str, Path]
) -> None:
    player, _ = push_signed(game, keys, "self")
    sync_game(settings, "g1")
    assert moves_on_forge(game) == [f"moves/0001-{player}.txt"]
    assert not restores(game)

    player, bad = push_signed(game, keys, "other")
    sync_game(settings, "g1")
    assert moves_on_forge(game) == [moves_on_forge(game)[0]]  # not played, not kept
    assert len(restores(game)) == 1
    message = git(game.origin, "log", "-1", "--format=%B", restores(game)[0])
    assert bad in message
    assert "not " + player + "'s" in message
    refused = checked(game, settings)
    assert any(bad[:10] in line and "key, not" in line for line in refused)


@pytest.mark.parametrize(
    ("signer", "tamper", "said"),
    [(None, False, "is not signed"), ("self", True, "does not verify")],
)
def test_unsigned_and_tampered_moves_are_put_back(
    game: Hosted,
    settings: Settings,
    keys: dict[str, Path],
    signer: str | None,
    tamper: bool,
    said: str,
) -> None:
    _, bad = push_signed(game, keys, signer, tamper=tamper)
    sync_game(settings, "g1")
    assert moves_on_forge(game) == []
    assert len(restores(game)) == 1
    refused = checked(game, settings)
    assert len(refused) == 1
    assert bad[:10] in refused[0]
    assert said in refused[0]


def test_an_adopted_game_goes_on_signing_with_the_services_key(
    game: Hosted, settings: Settings, keys: dict[str, Path], tmp_path: Path
) -> None:
    shutil.rmtree(game.service)
    newgames.adopt(settings, str(game.origin)).repo.close()
    push_signed(game, keys, "self")
    sync_game(settings, "g1")
    assert len(moves_on_forge(game)) == 1
    assert "gpgsig" in git(game.origin, "cat-file", "commit", head(game.origin))
    checked(game, settings)

    shutil.rmtree(game.service)
    other_key = settings.home / "keys"
    shutil.rmtree(other_key)  # this service's key is lost: a new one would not match
    with pytest.raises(GameError, match="signed with another adjudicator's key"):
        newgames.adopt(settings, str(game.origin))
