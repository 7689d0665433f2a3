"""One contract for every game, however hosted, end to end on a simulated forge.

A forge accepts whatever a player pushes. The service must never adjudicate on a tampered
tree: every file it owns is put back by an adjudicator commit that names the offending
commits, the players are told, and the legal move files alone are adjudicated. A
rewritten history is never accepted, however often the game is polled. Real `git push` to a
local bare repository standing in for the forge, and signed webhook deliveries.
"""

from __future__ import annotations

import email
import email.policy
import json
import tomllib
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
import tomli_w
from gitgame import SECRET, current_home, decider, full_state, git, head, opened, push, run
from gitgame import show as git_show
from liveserver import serving
from test_webhooks import (
    ADJUDICATOR,
    GITEA_SECRET,
    GITHUB_SECRET,
    Hosted,
    deliver,
    host_game,
    is_adjudicated_to,
    player_clone,
    push_move,
    state_after_pushes,
)

import engine
from adjudicator.forge import remote
from adjudicator.games.seeds import commitment
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings
from adjudicator.schedule.jobs import sync_game
from adjudicator.web import create_app

OWN_SECRET = "f" * 64


# The shared `home` fixture (conftest.py) isolates PAMIR_HOME for every test here.
pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def game(tmp_path: Path, settings: Settings) -> Hosted:
    return host_game(tmp_path, settings)


@pytest.fixture
def site(home: Path) -> Iterator[str]:
    app = create_app({"home": home, "github_secret": GITHUB_SECRET, "gitea_secret": GITEA_SECRET})
    with serving(app) as url:
        yield url


def tamper(
    game: Hosted, player: str, edit: dict[str, str | None], message: str, clone_name: str = ""
) -> str:
    """`player` commits changes to files (None deletes) in their clone and pushes them to the
    forge, which accepts anything; return the commit."""
    clone = player_clone(game, clone_name or player)
    for path, text in edit.items():
        target = clone / path
        if text is None:
            git(clone, "rm", "-q", path)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        git(clone, "add", path)
    author = f"{player} <{player}@example.org>"
    git(clone, "commit", "-q", "--allow-empty", "--author", author, "-m", message)
    done = push(clone)
    assert done.returncode == 0, done.stderr
    return head(clone)


def push_next(game: Hosted, state: engine.State | None = None) -> int:
    """The player who must decide (in `state`, by default after every pushed move) pushes a
    legal move file, committed with their own address (whatever a tampered game.toml in
    their clone says)."""
    player, options = decider(state or state_after_pushes(game))
    number = len(git(game.service, "ls-tree", "--name-only", "main", "moves/").split()) + 1
    tamper(game, player, {f"moves/{number:04d}-{player}.txt": options[0] + "\n"}, "my move")
    return number


def forge_file(game: Hosted, path: str) -> str:
    return git_show(game.origin, "main", path)


def game_toml(game: Hosted) -> dict[str, object]:
    return tomllib.loads(forge_file(game, "game.toml"))


def outbox(home: Path) -> list[str]:
    """Every message written: its To header and its plain text, decoded."""
    found: list[str] = []
    for path in (home / "outbox" / "written").glob("*.eml"):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        body = message.get_body(("plain",))
        assert body is not None
        found.append(f"To: {message['To']}\n\n{body.get_content()}")
    return found


def verified(game: Hosted) -> None:
    with opened(game.origin) as repo:
        result = verify(repo, current_home())
    assert result.ok, result.divergence


def restore_commits(game: Hosted) -> list[str]:
    return git(game.origin, "log", "--format=%H", "--grep=^Pamir-Restore:", "main").split()


def test_a_pushed_game_toml_is_restored_before_anything_is_mailed(
    site: str, game: Hosted, home: Path
) -> None:
    """A player who puts their own address on another player gets nothing of theirs."""
    original = forge_file(game, "game.toml")
    data = game_toml(game)
    players = data["players"]
    assert isinstance(players, list)
    players[0]["email"] = "mallory@example.org"  # alice's seat, bob's mailbox
    bad = tamper(game, "bob", {"game.toml": tomli_w.dumps(data)}, "fix alice's address")
    number = push_next(game)

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [number]
    assert reply.json()["restored"] == [bad]
    assert forge_file(game, "game.toml") == original
    (restore,) = restore_commits(game)
    message = git(game.origin, "log", "-1", "--format=%an <%ae>%n%B", restore)
    assert message.startswith(ADJUDICATOR)
    assert bad[:10] in message and "bob <bob@example.org>" in message
    assert is_adjudicated_to(game, number)
    mails = outbox(home)
    assert not any("mallory@example.org" in m for m in mails)
    told = [m for m in mails if bad[:10] in m and "put back" in m]
    assert {"alice", "bob"} <= {p for m in told for p in ("alice", "bob") if f"To: {p} <{p}@" in m}
    verified(game)


def test_a_pushed_game_toml_without_the_adjudicators_key_is_restored_signed(
    site: str, game: Hosted
) -> None:
    """The restore commit is signed by the key of the game.toml it puts back, not left
    unsigned because the pushed one records none (verify would fail on it for ever)."""
    data = game_toml(game)
    del data["adjudicator"]
    bad = tamper(game, "bob", {"game.toml": tomli_w.dumps(data)}, "no more signatures")

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert reply.json()["restored"] == [bad]
    assert "adjudicator" in game_toml(game)
    (restore,) = restore_commits(game)
    assert "gpgsig" in git(game.origin, "cat-file", "commit", restore)
    verified(game)


def test_a_pushed_reveal_and_commitment_do_not_decide_the_deck(site: str, game: Hosted) -> None:
    """A secret of the player's own, with the matching commitment, changes nothing."""
    data = game_toml(game)
    data["seed_commitment"] = commitment(OWN_SECRET)
    reveal = tomli_w.dumps({"secret": OWN_SECRET})
    tamper(game, "bob", {"game.toml": tomli_w.dumps(data), "reveal.toml": reveal}, "my deck")
    number = push_move(game)

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [number]
    assert game_toml(game)["seed_commitment"] == commitment(SECRET)
    assert git(game.origin, "ls-tree", "--name-only", "main", "reveal.toml").strip() == ""
    verified(game)  # every position is the one the service's own secret gives


def test_a_pushed_rollbacks_file_does_not_undo_an_opponents_move(site: str, game: Hosted) -> None:
    push_move(game)
    second = push_move(game)
    assert deliver(site, game, "delivery-1").json()["adjudicated"] == [1, second]
    truly = full_state(game.service)
    tamper(game, "alice", {"rollbacks.toml": "rollback = []\nrefused = [2]\n"}, "no")
    third = push_next(game, truly)

    reply = deliver(site, game, "delivery-2")

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [third]
    assert git(game.origin, "ls-tree", "--name-only", "main", "rollbacks.toml").strip() == ""
    assert json.loads(forge_file(game, "state.json"))["last"]["number"] == third
    verified(game)


def test_an_edited_move_number_in_state_json_does_not_stall_the_game(
    site: str, game: Hosted
) -> None:
    push_move(game)
    assert deliver(site, game, "delivery-1").status == 200
    state = json.loads(forge_file(game, "state.json"))
    state["move"] = 7
    tamper(game, "bob", {"state.json": json.dumps(state)}, "skip ahead")
    number = push_move(game)

    reply = deliver(site, game, "delivery-2")

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [number]
    assert is_adjudicated_to(game, number)
    verified(game)


def test_a_deleted_move_file_is_put_back_and_the_game_goes_on(site: str, game: Hosted) -> None:
    first = push_move(game)
    assert deliver(site, game, "delivery-1").status == 200
    path = git(game.origin, "ls-tree", "--name-only", "main", "moves/").split()[0]
    kept = forge_file(game, path)
    truly = full_state(game.service)
    tamper(game, "alice", {path: None}, "forget move 1")
    number = push_next(game, truly)

    reply = deliver(site, game, "delivery-2")

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [number]
    assert forge_file(game, path) == kept
    assert is_adjudicated_to(game, number) and number == first + 1
    verified(game)


def test_a_move_file_pushed_in_another_players_name_is_not_played(site: str, game: Hosted) -> None:
    decides, options = decider(state_after_pushes(game))
    other = "alice" if decides == "bob" else "bob"
    name = f"moves/0001-{decides}.txt"
    bad = tamper(game, other, {name: options[0] + "\n"}, "playing for them")

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == []
    assert reply.json()["restored"] == [bad]
    assert git(game.origin, "ls-tree", "--name-only", "main", "moves/").strip() == ""
    verified(game)


def test_a_move_pushed_as_the_adjudicator_is_put_back_and_verify_holds(
    site: str, game: Hosted, home: Path
) -> None:
    """A commit committed as the adjudicator would be taken for the service's own by
    `pamir verify` for ever (history cannot be rewritten): it is put back as any other
    tampering, its player told why, and the game goes on."""
    decides, options = decider(state_after_pushes(game))
    clone = player_clone(game, decides)
    name = f"moves/0001-{decides}.txt"
    (clone / "moves").mkdir(exist_ok=True)
    (clone / name).write_text(options[0] + "\n", encoding="utf-8")
    git(clone, "add", name)
    as_service = {"GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "adjudicator@pamir.invalid"}
    author = f"{decides} <{decides}@example.org>"
    done = run(["git", "commit", "-q", "--author", author, "-m", "m"], clone, env=as_service)
    assert done.returncode == 0, done.stderr
    assert push(clone).returncode == 0
    bad = head(clone)

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == []
    assert reply.json()["restored"] == [bad]
    assert git(game.origin, "ls-tree", "--name-only", "main", "moves/").strip() == ""
    told = [m for m in outbox(home) if bad[:10] in m and "the adjudicator's identity" in m]
    assert {p for m in told for p in ("alice", "bob") if f"To: {p} <{p}@" in m} == {"alice", "bob"}
    with opened(game.origin) as repo:
        result = verify(repo, current_home())
    assert result.ok, result.divergence
    assert any(bad[:10] in r and "the adjudicator's identity" in r for r in result.refused)
    # The player commits the move as themselves and pushes it again: it is played.
    git(clone, "fetch", "-q", "origin")
    git(clone, "reset", "-q", "--hard", "origin/main")
    number = push_move(game, options[0] + "\n", player=decides)
    assert deliver(site, game, "delivery-2").json()["adjudicated"] == [number] == [1]
    verified(game)


def rewrite_history(game: Hosted, who: str = "rewriter") -> str:
    """A player drops the service's last adjudication and force-pushes a history of their
    own; return the forge's main before the rewrite."""
    before = head(game.origin)
    clone = player_clone(game, who)
    git(clone, "reset", "-q", "--hard", "HEAD~2")
    git(clone, "commit", "-q", "--allow-empty", "-m", "a fresh start")
    assert push(clone, "--force", "main").returncode == 0
    assert head(game.origin) != before
    return before


def test_a_rewritten_history_is_put_back_on_every_delivery(site: str, game: Hosted) -> None:
    push_move(game)
    assert deliver(site, game, "delivery-1").status == 200
    true_main = rewrite_history(game)

    first = deliver(site, game, "delivery-2")

    assert first.status == 200, first.text
    assert head(game.origin) == true_main  # the service pushed its history back
    rewrite_history(game, "rewriter-again")
    second = deliver(site, game, "delivery-3")
    assert second.status == 200, second.text
    assert head(game.origin) == true_main
    verified(game)


def test_a_rewritten_history_that_cannot_be_put_back_holds_the_game_on_every_poll(
    site: str, game: Hosted, settings: Settings, home: Path
) -> None:
    push_move(game)
    assert deliver(site, game, "delivery-1").status == 200
    true_main = rewrite_history(game)
    git(game.origin, "config", "receive.denyNonFastForwards", "true")  # a protected branch
    rewritten = head(game.origin)
    tamper(game, "alice", {"moves/0001-alice.txt": "pass\n"}, "move 1", "late")

    for attempt in range(3):
        reply = deliver(site, game, f"delivery-{attempt + 2}")
        assert reply.status == 200, reply.text
        assert "rewritten" in reply.json()["held"]
        assert reply.json()["adjudicated"] == []
        sync_game(settings, game.game_id)  # the scheduler's poll holds it too

    assert head(game.service) == true_main
    assert head(game.origin) != true_main and head(game.origin) != rewritten
    with opened(game.service) as repo:
        held = remote.update(repo, home)
    assert held.held is not None and not held.results
    held_notices = [m for m in outbox(home) if "the game is held" in m]
    assert len(held_notices) == 2  # once to each player, not once a poll
