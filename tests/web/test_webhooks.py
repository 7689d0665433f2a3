"""Push webhooks end to end: a forge simulated by a local bare repository, real Git, real HTTP.

Each game's service clone lives in PAMIR_HOME/games/<id> with the bare repository as its
`origin`. Players clone the bare repository and push move files with real `git push`; the
test then delivers the push event the way GitHub or Gitea would (their headers, their
payload, an HMAC signature) to the application served on 127.0.0.1, and checks what
reached the forge.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
import tomli_w
from gitgame import (
    SECRET,
    count_commits,
    counting_git,
    current_home,
    decider,
    full_state,
    git,
    head,
    opened,
    player_email,
    push,
    status,
)
from gitgame import show as git_show
from liveserver import Reply, fetch, gitea_headers, github_headers, push_payload, serving

import engine
from adjudicator.forge import newgames, remote
from adjudicator.forge.deliveries import DeliveryLog
from adjudicator.games import hosting, pipeline
from adjudicator.games.outputs import Adjudication
from adjudicator.games.registry import game_lock
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import GameError, replay, snapshot
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings
from adjudicator.web import create_app

GITHUB_SECRET = "github-webhook-secret"
GITEA_SECRET = "gitea-webhook-secret"
ADJUDICATOR = "pamir adjudicator <adjudicator@pamir.invalid>"


pytestmark = pytest.mark.usefixtures("home")


@dataclass
class Hosted:
    """A game on the simulated forge, and the service's clone of it."""

    game_id: str
    origin: Path
    service: Path
    full_name: str

    @property
    def url(self) -> str:
        return str(self.origin)


def host_game(tmp_path: Path, settings: Settings, game_id: str = "g1") -> Hosted:
    origin = tmp_path / "forge" / "players" / f"{game_id}.git"
    origin.mkdir(parents=True)
    git(origin, "init", "-q", "--bare", "--initial-branch=main")
    repo = newgames.create_remote_game(
        settings,
        str(origin),
        [("alice", "alice@example.org"), ("bob", "bob@example.org")],
        game_id=game_id,
        secret=SECRET,
    )
    repo.repo.close()
    return Hosted(game_id, origin, settings.games_dir / game_id, f"players/{game_id}")


@pytest.fixture
def game(tmp_path: Path, settings: Settings) -> Hosted:
    return host_game(tmp_path, settings)


@pytest.fixture
def site(home: Path) -> Iterator[str]:
    app = create_app({"home": home, "github_secret": GITHUB_SECRET, "gitea_secret": GITEA_SECRET})
    with serving(app) as url:
        yield url


def player_clone(game: Hosted, name: str) -> Path:
    target = game.origin.parent.parent.parent / f"{game.game_id}-{name}"
    if target.exists():
        git(target, "pull", "-q", "--ff-only", "origin", "main")
    else:
        git(game.origin.parent, "clone", "-q", str(game.origin), str(target))
    return target


def state_after_pushes(game: Hosted) -> engine.State:
    """The position once every move file on the forge's main is played, pending or not."""
    with opened(player_clone(game, "reader")) as repo:
        return replay(snapshot(repo), current_home())[0]


def push_move(game: Hosted, text: str | None = None, *, player: str | None = None) -> int:
    """A player pushes the next move file (a legal one unless `text` is given); its number."""
    if text is None or player is None:
        decides, options = decider(state_after_pushes(game))
        player, text = player or decides, text or options[0] + "\n"
    clone = player_clone(game, player)
    number = len(git(clone, "ls-tree", "--name-only", "main", "moves/").split()) + 1
    moves = clone / "moves"
    moves.mkdir(exist_ok=True)
    (moves / f"{number:04d}-{player}.txt").write_text(text, encoding="utf-8")
    git(clone, "add", "moves")
    author = f"{player} <{player_email(clone, player)}>"  # the contract: by its player
    git(clone, "commit", "-q", "--author", author, "-m", f"{player}: move {number}")
    done = push(clone)
    assert done.returncode == 0, done.stderr
    return number


def deliver(
    site: str,
    game: Hosted,
    delivery: str,
    *,
    forge: str = "github",
    secret: str | None = None,
    event: str = "push",
    ref: str = "refs/heads/main",
    body: bytes | None = None,
) -> Reply:
    body = body or push_payload(game.full_name, game.url, head(game.origin), ref)
    if forge == "github":
        headers = github_headers(secret or GITHUB_SECRET, body, delivery, event)
    else:
        headers = gitea_headers(secret or GITEA_SECRET, body, delivery, event)
    return fetch(f"{site}/webhooks/{forge}", body, headers)


def last_subject(path: Path) -> str:
    return git(path, "log", "-1", "--format=%s", "main").strip()


def is_adjudicated_to(game: Hosted, number: int) -> bool:
    return int(json.loads(git_show(game.origin, "main", "state.json"))["move"]) == number


# -- the happy paths -----------------------------------------------------------------------


@pytest.mark.parametrize("forge", ["github", "gitea"])
def test_a_signed_push_is_adjudicated_and_pushed_back_to_the_forge(
    site: str, game: Hosted, forge: str
) -> None:
    number = push_move(game)
    pushed = head(game.origin)

    reply = deliver(site, game, "delivery-1", forge=forge)

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [number]
    assert reply.json()["game"] == "g1"
    assert head(game.origin) != pushed
    assert git(game.origin, "rev-parse", "main^").strip() == pushed  # on top of the player's
    who = git(game.origin, "log", "-1", "--format=%an <%ae>", "main").strip()
    assert who == ADJUDICATOR
    assert git(game.origin, "log", "-1", "--format=%(trailers:key=Pamir-Move,valueonly)")
    assert is_adjudicated_to(game, number)
    assert head(game.service) == head(game.origin)
    with opened(game.origin) as repo:
        assert verify(repo, current_home()).ok


def test_several_moves_in_one_push_are_adjudicated_in_order(site: str, game: Hosted) -> None:
    first = push_move(game)
    second = push_move(game)
    reply = deliver(site, game, "delivery-1", forge="gitea")
    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [first, second]
    assert is_adjudicated_to(game, second)
    subjects = git(game.origin, "log", "--format=%s", "-2", "main").splitlines()
    assert subjects[0].startswith(f"Adjudicate move {second} ")
    assert subjects[1].startswith(f"Adjudicate move {first} ")


def test_a_delivery_starts_git_only_to_fetch_push_and_check_out(site: str, game: Hosted) -> None:
    """Refs move in the service's process; the network and the checkout are git's."""
    push_move(game)
    deliver(site, game, "delivery-1")  # the first delivery opens the game (GitPython's own)
    number = push_move(game)
    body = push_payload(game.full_name, game.url, head(game.origin))
    with counting_git() as started:
        reply = deliver(site, game, "delivery-2", body=body)
    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [number]
    assert started == ["fetch", "push", "reset"]  # the files after the forge has the commit
    assert head(game.service) == head(game.origin)
    assert git(game.service, "rev-parse", "refs/remotes/origin/main").strip() == head(game.origin)
    assert status(game.service) == ""


def test_several_moves_in_one_push_are_checked_out_once(site: str, game: Hosted) -> None:
    created = head(game.origin)
    push_move(game)
    push_move(game)
    pushed = head(game.origin)
    body = push_payload(game.full_name, game.url, head(game.origin))
    with counting_git() as started:
        reply = deliver(site, game, "delivery-1", body=body)
    assert len(reply.json()["adjudicated"]) == 2
    assert started.count("reset") == 1
    assert status(game.service) == ""  # the files and the index are main's
    assert git(game.service, "diff", "--cached", "--name-only", "main").strip() == ""
    assert "reset: moving to refs/heads/main" in git(game.service, "reflog", "-1", "HEAD")
    adjudications = git(game.service, "rev-list", "-2", "main").split()
    logged = git(game.service, "reflog", "--format=%H", "main").split()
    assert logged == [*adjudications, pushed, created]  # main's moves, newest first


# -- signatures, events, refs --------------------------------------------------------------


def test_deliveries_without_a_valid_signature_change_nothing(site: str, game: Hosted) -> None:
    push_move(game)
    before = head(game.origin)
    body = push_payload(game.full_name, game.url, before)

    unsigned = github_headers(None, body, "d-1")
    assert fetch(f"{site}/webhooks/github", body, unsigned).status == 401
    wrong = github_headers("not-the-secret", body, "d-2")
    assert fetch(f"{site}/webhooks/github", body, wrong).status == 403
    other_body = github_headers(GITHUB_SECRET, body + b" ", "d-3")
    assert fetch(f"{site}/webhooks/github", body, other_body).status == 403
    gitea_style = github_headers(GITHUB_SECRET, body, "d-4")
    gitea_style["X-Hub-Signature-256"] = gitea_style["X-Hub-Signature-256"].removeprefix("sha256=")
    assert fetch(f"{site}/webhooks/github", body, gitea_style).status == 403
    assert fetch(f"{site}/webhooks/gitea", body, gitea_headers(None, body, "d-5")).status == 401
    crossed = gitea_headers(GITHUB_SECRET, body, "d-6")  # the other forge's secret
    assert fetch(f"{site}/webhooks/gitea", body, crossed).status == 403

    assert head(game.origin) == before
    assert last_subject(game.origin).endswith("move 1")  # the player's, not adjudicated


def test_a_forge_without_a_configured_secret_is_refused(home: Path, game: Hosted) -> None:
    push_move(game)
    before = head(game.origin)
    app = create_app({"home": home, "github_secret": GITHUB_SECRET})
    with serving(app) as site:
        body = push_payload(game.full_name, game.url, before)
        reply = fetch(f"{site}/webhooks/gitea", body, gitea_headers("", body, "d-1"))
    assert reply.status == 403
    assert "secret" in reply.json()["error"]
    assert head(game.origin) == before


def test_other_events_and_branches_are_acknowledged_and_ignored(site: str, game: Hosted) -> None:
    push_move(game)
    before = head(game.origin)
    ping = deliver(site, game, "d-1", event="ping")
    assert ping.status == 202 and "ping" in ping.json()["ignored"]
    branch = deliver(site, game, "d-2", ref="refs/heads/feature")
    assert branch.status == 202 and "refs/heads/feature" in branch.json()["ignored"]
    tag = deliver(site, game, "d-3", forge="gitea", ref="refs/tags/v1")
    assert tag.status == 202
    deleted = json.loads(push_payload(game.full_name, game.url, "0" * 40))
    deleted["deleted"] = True
    gone = deliver(site, game, "d-4", body=json.dumps(deleted).encode())
    assert gone.status == 202
    assert head(game.origin) == before


def test_unknown_repositories_and_unreadable_payloads_are_refused(site: str, game: Hosted) -> None:
    push_move(game)
    before = head(game.origin)
    elsewhere = push_payload("someone/else", "https://forge.example/someone/else.git", "f" * 40)
    assert deliver(site, game, "d-1", body=elsewhere).status == 404
    assert deliver(site, game, "d-2", body=b"{not json").status == 400
    assert deliver(site, game, "d-3", body=b'{"ref": "refs/heads/main"}').status == 400
    form = urlencode({"payload": push_payload(game.full_name, game.url, before)}).encode()
    headers = github_headers(GITHUB_SECRET, form, "d-4")
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    assert head(game.origin) == before
    assert fetch(f"{site}/webhooks/github", form, headers).status == 200  # the form variant
    assert is_adjudicated_to(game, 1)


# -- at least once, serialized, retried ----------------------------------------------------


def test_a_redelivered_event_changes_nothing(site: str, game: Hosted) -> None:
    push_move(game)
    assert deliver(site, game, "delivery-A").json()["adjudicated"] == [1]
    second = push_move(game)
    before = head(game.origin)

    again = deliver(site, game, "delivery-A")  # the forge delivers the same event again

    assert again.status == 200
    assert again.json()["duplicate"] is True
    assert head(game.origin) == before  # move 2 waits for its own delivery
    fresh = deliver(site, game, "delivery-B")
    assert fresh.json()["adjudicated"] == [second]
    same_id_other_forge = deliver(site, game, "delivery-A", forge="gitea")
    assert same_id_other_forge.json().get("duplicate") is None  # ids are per forge


def test_a_push_while_adjudicating_is_caught_up_by_a_retry(
    site: str, game: Hosted, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = push_move(game)
    real = pipeline.adjudicate_pending
    pushed: list[int] = []

    def adjudicate_while_a_player_pushes(repo: GameRepo, home: Path) -> list[Adjudication]:
        if not pushed:  # the forge moves on while the service adjudicates move 1
            pushed.append(push_move(game))
        return real(repo, home)

    monkeypatch.setattr(pipeline, "adjudicate_pending", adjudicate_while_a_player_pushes)

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert reply.json()["attempts"] == 2
    assert reply.json()["adjudicated"] == [first, pushed[0]]
    assert is_adjudicated_to(game, pushed[0])
    assert git(game.origin, "rev-list", "--merges", "main").strip() == ""  # linear history
    assert count_commits(game.origin) == 5  # new game, two moves, two adjudications
    with opened(game.origin) as repo:
        assert verify(repo, current_home()).ok


def test_concurrent_deliveries_for_one_game_are_serialized(site: str, game: Hosted) -> None:
    moves = [push_move(game), push_move(game), push_move(game)]
    start = threading.Barrier(4)
    replies: list[Reply] = []

    def post(delivery: str) -> None:
        start.wait()
        replies.append(deliver(site, game, delivery, forge="gitea"))

    threads = [threading.Thread(target=post, args=(f"d-{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert [r.status for r in replies] == [200] * 4, [r.text for r in replies]
    adjudicated = sorted(n for r in replies for n in r.json()["adjudicated"])
    assert adjudicated == moves  # each move exactly once, by whichever delivery came first
    assert count_commits(game.origin) == 1 + 2 * len(moves)
    assert head(game.service) == head(game.origin)
    with opened(game.origin) as repo:
        assert verify(repo, current_home()).ok


def test_a_delivery_waits_for_its_game_while_other_games_proceed(
    site: str, tmp_path: Path, settings: Settings, game: Hosted
) -> None:
    other = host_game(tmp_path, settings, "g2")
    push_move(game)
    push_move(other)
    replies: dict[str, Reply] = {}
    waiting = threading.Thread(target=lambda: replies.setdefault("g1", deliver(site, game, "a")))
    with game_lock(settings, "g1"):
        waiting.start()
        time.sleep(0.5)
        assert "g1" not in replies  # held back by the lock
        replies["g2"] = deliver(site, other, "b")  # not held back
        assert "g1" not in replies
        assert not is_adjudicated_to(game, 1)
    waiting.join(timeout=30)
    assert replies["g2"].json()["adjudicated"] == [1]
    assert replies["g1"].json()["adjudicated"] == [1]


def test_unpushed_service_moves_are_submitted_again_on_top(
    site: str, game: Hosted, settings: Settings
) -> None:
    """A move the service committed itself (by email, say) while the forge moved on."""
    with opened(game.service) as repo:
        decides, options = decider(full_state(game.service))
        # Move 1, not on the forge yet.
        pipeline.submit(repo, decides, options[0] + "\n", home=current_home())
    other = "alice" if decides == "bob" else "bob"
    push_move(game, "pass\n", player=other)  # move 1 on the forge, not playable now

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert len(reply.json()["adjudicated"]) == 2  # the forge's move 1, then ours as move 2
    assert reply.json()["refused"] == [1]
    files = git(game.origin, "ls-tree", "--name-only", "main", "moves/").split()
    assert files == [f"moves/0001-{other}.txt", f"moves/0002-{decides}.txt"]
    assert is_adjudicated_to(game, 2)
    with opened(game.origin) as repo:
        assert verify(repo, current_home()).ok


def test_an_unpushed_service_move_that_no_longer_applies_is_dropped(
    site: str, game: Hosted
) -> None:
    with opened(game.service) as repo:
        decides, options = decider(full_state(game.service))
        # By email, say; not on the forge.
        pipeline.submit(repo, decides, options[0] + "\n", home=current_home())
    push_move(game, options[1] + "\n", player=decides)  # the same decision, pushed first

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert reply.json()["adjudicated"] == [1]
    assert reply.json()["refused"] == [None]  # ours: its author is told
    files = git(game.origin, "ls-tree", "--name-only", "main", "moves/").split()
    assert files == [f"moves/0001-{decides}.txt"]
    assert git_show(game.origin, "main", files[0]) == options[1] + "\n"
    assert head(game.service) == head(game.origin)


# -- refusals and mail ---------------------------------------------------------------------


def test_an_illegal_pushed_move_is_recorded_as_refused_and_mailed(
    site: str, game: Hosted, home: Path
) -> None:
    pytest.importorskip("adjudicator.mail.outbox", reason="the mail module is not installed")
    decides, _ = decider(full_state(game.service))
    push_move(game, "loyalty nowhere\n", player=decides)

    reply = deliver(site, game, "delivery-1")

    assert reply.status == 200, reply.text
    assert reply.json()["refused"] == [1]
    assert last_subject(game.origin).startswith(f"Refuse move 1 by {decides}")
    written = home / "outbox" / "written"
    mails = [p.read_text(encoding="utf-8") for p in written.glob("*.eml")]
    assert any("your move was not accepted" in m and "loyalty nowhere" in m for m in mails)
    assert any(f"{decides}@example.org" in m and "not accepted" in m for m in mails)


def test_a_forge_that_cannot_be_reached_gives_500_and_the_delivery_is_not_remembered(
    site: str, game: Hosted, tmp_path: Path
) -> None:
    push_move(game)
    body = push_payload(game.full_name, game.url, head(game.origin))
    moved = tmp_path / "moved.git"
    game.origin.rename(moved)
    failed = deliver(site, game, "delivery-1", body=body)
    assert failed.status == 500
    assert str(moved.parent) not in failed.text  # details stay in the log
    moved.rename(game.origin)
    reply = deliver(site, game, "delivery-1", body=body)  # the forge tries the delivery again
    assert reply.status == 200 and reply.json()["adjudicated"] == [1]


# -- mapping repositories to games; setting games up ----------------------------------------


def test_urls_of_one_repository_compare_equal() -> None:
    same = {
        hosting.normalize_url(u)
        for u in (
            "https://github.com/Players/G1.git",
            "https://token:x-oauth@github.com/players/g1",
            "git@github.com:players/g1.git",
            "ssh://git@github.com:22/players/g1.git",
            "https://github.com/players/g1/",
        )
    }
    assert same == {"github.com/players/g1"}
    assert hosting.normalize_url("file:///srv/forge/g1.git") == hosting.normalize_url(
        "/srv/forge/g1"
    )
    assert hosting.normalize_url("https://gitea.example/players/g1") != "github.com/players/g1"


def test_a_game_is_found_by_its_origin_or_by_its_remote_option(
    game: Hosted, settings: Settings
) -> None:
    assert remote.find_game(settings, "x/y", [f"file://{game.origin}"]) == "g1"
    assert remote.find_game(settings, "players/g1", ["https://forge.example/p/g1.git"]) is None
    with opened(game.service) as repo:
        data = tomllib.loads((game.service / "game.toml").read_text(encoding="utf-8"))
        data["options"] = {"remote": "Players/G1"}
        repo.commit({"game.toml": tomli_w.dumps(data).encode()}, "Forge", parent=repo.head())
    assert remote.find_game(settings, "players/g1", ["https://forge.example/p/g1.git"]) == "g1"
    assert remote.find_game(settings, "players/g2", ["https://forge.example/p/g2.git"]) is None


def test_adopt_clones_a_forge_hosted_game_into_the_service(
    site: str, game: Hosted, settings: Settings, home: Path
) -> None:
    shutil.rmtree(game.service)
    secret = home / "secrets" / "g1.secret"
    kept = secret.read_text(encoding="ascii")
    secret.unlink()
    with pytest.raises(GameError):
        newgames.adopt(settings, str(game.origin))
    assert not game.service.exists()
    secret.write_text(kept, encoding="ascii")

    newgames.adopt(settings, str(game.origin)).repo.close()

    assert hosting.normalize_url(git(game.service, "remote", "get-url", "origin")) == (
        hosting.normalize_url(str(game.origin))
    )
    push_move(game)
    assert deliver(site, game, "delivery-1").json()["adjudicated"] == [1]
    with pytest.raises(GameError):
        newgames.adopt(settings, str(game.origin))  # already there


def test_the_delivery_log_is_bounded(tmp_path: Path) -> None:
    log = DeliveryLog(tmp_path / "deliveries.txt", limit=3)
    for key in ("a", "b", "c", "d"):
        log.remember(key)
    log.remember("d")
    assert [log.seen(k) for k in ("a", "b", "c", "d")] == [False, True, True, True]
    assert (tmp_path / "deliveries.txt").read_text().split() == ["b", "c", "d"]
