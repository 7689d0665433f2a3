"""Resigning takes the seat on every way in (games/resign.py).

Once a player resigned, the seat is the stand-in's: their page gives 410 Gone, their mail
plays no move, sends no press and pauses nothing, a move they push is refused at the push
(or put back on a forge), and `pamir move` refuses them too. Whatever way the move before
came in, the stand-in plays a resigned seat that must decide at once, rather than leaving
the game waiting for the scheduler. Real Git, real HTTP, a real SMTP server, real hooks.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest
from gitgame import (
    THREE,
    TWO,
    create,
    current_home,
    decider,
    full_state,
    git,
    head,
    isolate,
    opened,
    pamir,
    pamir_ok,
    push,
    refs,
    write_move,
)
from liveserver import fetch, serving
from mailserver import plain, reply_to
from test_forge_contract import restore_commits, verified
from test_mail_in import Table, mail_table, options
from test_private_page import form_fields, post, private_path
from test_webhooks import (
    GITEA_SECRET,
    GITHUB_SECRET,
    Hosted,
    deliver,
    host_game,
    player_clone,
    state_after_pushes,
)

import engine
from adjudicator.forge import remote
from adjudicator.games.moves import apply_submission
from adjudicator.games.outputs import Refusal
from adjudicator.games.pipeline import adjudicate_pending, submit
from adjudicator.games.registry import game_lock
from adjudicator.games.repo import GameRepo
from adjudicator.games.resign import record_resignation
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from adjudicator.games.waiting import waiting
from adjudicator.home.settings import Settings
from adjudicator.hooks import receive
from adjudicator.mail.incoming import handle_message
from adjudicator.web import create_app

RESIGNED_PAGE = "You have resigned from this game"
REPLACED_PAGE = "This link to your own page was replaced by a new one"


def resign(path: Path, player: str) -> None:
    """`player` resigns, as the mail command records it (without the stand-in's move that
    the command then plays: the tests below look at what comes next)."""
    with opened(path) as repo:
        record_resignation(repo, player, datetime.now(UTC), home=current_home())


def second_decider(path: Path) -> tuple[str, str, str]:
    """(who decides now, their first legal action, who decides after it)."""
    state = full_state(path)
    first, moves = decider(state)
    after = apply_submission(state, first, moves[0] + "\n").state
    return first, moves[0], decider(after)[0]


# -- the page --------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    root = isolate(tmp_path, monkeypatch)
    create(root / "games" / "g1", THREE)
    with serving(create_app({"home": root})) as url:
        yield root, url


def test_a_resigned_players_page_is_gone_and_takes_nothing(served: tuple[Path, str]) -> None:
    """Before, the page of a player who resigned by mail still played a turn and agreed to
    rollbacks: only the mail path knew of the resignation."""
    root, site = served
    path = root / "games" / "g1"
    player, moves = decider(full_state(path))
    old = f"{site}{private_path(root, 'g1', player)}"
    fields = form_fields(fetch(old).text)

    resign(path, player)
    resigned = head(path)

    new = f"{site}{private_path(root, 'g1', player)}"
    assert new != old  # the resignation replaced the link
    for url, says in ((old, REPLACED_PAGE), (new, RESIGNED_PAGE)):
        for reply in (fetch(url), post(url, {**fields, "move": moves[0]})):
            assert reply.status == 410, (url, reply.text)
            assert says in reply.text and "<form" not in reply.text
            assert reply.headers["Cache-Control"] == "no-store"
    assert head(path) == resigned


def test_after_a_web_move_the_standin_plays_a_resigned_seat_at_once(
    served: tuple[Path, str],
) -> None:
    """Before, a move by the web page left the game waiting (48 hours) for a player who had
    resigned: only a move by mail played the stand-in."""
    root, site = served
    path = root / "games" / "g1"
    first, move, second = second_decider(path)
    resign(path, second)
    url = f"{site}{private_path(root, 'g1', first)}"

    reply = post(url, {**form_fields(fetch(url).text), "move": move})

    assert reply.status == 200 and "Move 1 adjudicated." in reply.text
    with opened(path) as repo:
        tip = repo.repo.commit("main")
        assert str(tip.message).startswith(f"Move 2 for {second} (resigned): ")
        assert (repo.read(f"moves/0002-{second}.txt") or "").startswith(
            f"# note: {second} resigned: the stand-in plays for them"
        )
        pending = waiting(repo)
        assert pending is not None and second not in pending.players
    mails = [p.name for p in (root / "outbox").rglob("*.eml")]
    assert any("-0002-" in name for name in mails)  # the stand-in's move is reported too


# -- mail ------------------------------------------------------------------------------------


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    with mail_table(tmp_path, monkeypatch) as made:
        yield made


def newest_to(table: Table, player: str) -> EmailMessage:
    return [m for m in table.server.messages if str(m["X-Pamir-Player"]) == player][-1]


def test_mail_from_a_resigned_player_plays_no_move_no_press_no_pause(table: Table) -> None:
    deciding, report = table.deciding()
    player = "alice" if deciding == "bob" else "bob"
    before_report = [m for m in table.server.messages if str(m["X-Pamir-Player"]) == player][-1]
    resigned = handle_message(table.settings, reply_to(before_report, "resign\n"))
    assert resigned.status == "accepted", resigned.reason
    other_count = len([m for m in table.server.messages if str(m["X-Pamir-Player"]) == deciding])
    before = table.head()

    # The newest mail to the player carries their new reply address: still no seat.
    answer = newest_to(table, player)
    for body in ("pass\n", options(report)[0] + "\n", "agree rollback\n"):
        result = handle_message(table.settings, reply_to(answer, body))
        assert result.status == "refused" and result.reason.startswith("resigned: "), result
    press = handle_message(table.settings, reply_to(answer, "press:\nI am still here"))
    assert press.status == "refused" and press.reason.startswith("resigned: "), press
    pause = handle_message(table.settings, reply_to(answer, "pause 24h a trip\n"))
    assert pause.status == "refused" and pause.reason.startswith("resigned: "), pause
    told = [m for m in table.server.messages if str(m["X-Pamir-Player"]) == deciding]
    assert len(told) == other_count  # no press relayed, no pause announced
    assert not any("I am still here" in plain(m) for m in told)
    # And the address of the mails before the resignation plays nothing either.
    old = handle_message(table.settings, reply_to(before_report, "pass\n"))
    assert old.status == "refused" and "replaced reply address" in old.reason
    assert table.head() == before


# -- the command line and the pipeline -------------------------------------------------------


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = isolate(tmp_path, monkeypatch)
    return create(root / "games" / "g1", TWO)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolate(tmp_path, monkeypatch)


def test_pamir_move_and_every_submission_refuse_a_resigned_player(game: Path) -> None:
    player, moves = decider(full_state(game))
    resign(game, player)
    before = head(game)
    (game.parent / "move.txt").write_text(moves[0] + "\n", encoding="utf-8")

    done = pamir("move", game, "--as", player, game.parent / "move.txt")

    assert done.returncode == 2 and done.stderr.startswith(f"resigned: {player} has resigned")
    with opened(game) as repo:
        for text in (moves[0] + "\n", "rollback 0 let us start again\n", "agree rollback\n"):
            with pytest.raises(Refusal) as refused:
                submit(repo, player, text, home=current_home())
            assert refused.value.code == "resigned"
    assert head(game) == before


# -- pushes ----------------------------------------------------------------------------------


@pytest.mark.usefixtures("root")
def test_a_resigned_players_push_is_refused_by_the_hook(tmp_path: Path) -> None:
    """A legal move for the seat (the stand-in has not played it yet), pushed by the player
    who resigned: refused at the push, with the reason."""
    bare = create(tmp_path / "game.git", TWO, bare=True)
    receive.install(bare, current_home())
    player, moves = decider(full_state(bare))
    resign(bare, player)
    before = refs(bare)
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(bare), str(mine))
    write_move(mine, 1, player, moves[0] + "\n")

    done = push(mine)

    assert done.returncode != 0
    assert "pre-receive hook declined" in done.stderr
    assert f"moves/0001-{player}.txt: {player} has resigned: the stand-in plays" in done.stderr
    assert refs(bare) == before


@pytest.mark.usefixtures("root")
def test_a_resigned_players_push_where_no_hook_ran_is_refused_by_a_commit(tmp_path: Path) -> None:
    bare = create(tmp_path / "nohooks.git", TWO, bare=True)
    player, moves = decider(full_state(bare))
    resign(bare, player)
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(bare), str(mine))
    write_move(mine, 1, player, moves[0] + "\n")
    assert push(mine).returncode == 0  # no hook to refuse it

    with opened(bare) as repo:
        done = adjudicate_pending(repo, current_home())
        assert [d.refused for d in done] == [True]
        assert str(repo.repo.commit("main^").message).startswith(
            f"Refuse move 1 by {player}: resigned: "
        )
        # The stand-in then played the seat, and the history verifies.
        assert [f.number for f in done[0].followed] == [2]
        assert verify(repo, current_home()).ok


@pytest.mark.usefixtures("root")
def test_after_a_pushed_move_the_standin_plays_a_resigned_seat_at_once(tmp_path: Path) -> None:
    bare = create(tmp_path / "three.git", THREE, bare=True)
    receive.install(bare, current_home())
    first, move, second = second_decider(bare)
    resign(bare, second)
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(bare), str(mine))
    write_move(mine, 1, first, move + "\n")

    done = push(mine)

    assert done.returncode == 0, done.stderr
    assert "move 1 adjudicated" in done.stderr and "move 2 adjudicated" in done.stderr
    with opened(bare) as repo:
        assert str(repo.repo.commit("main").message).startswith(f"Move 2 for {second} (resigned)")
        pending = waiting(repo)
        assert pending is not None and second not in pending.players
    assert "ok:" in pamir_ok("verify", bare)


# -- a forge ---------------------------------------------------------------------------------


@pytest.fixture
def hosted(tmp_path: Path, settings: Settings) -> Hosted:
    return host_game(tmp_path, settings)


@pytest.fixture
def forge_site(home: Path) -> Iterator[str]:
    app = create_app({"home": home, "github_secret": GITHUB_SECRET, "gitea_secret": GITEA_SECRET})
    with serving(app) as url:
        yield url


def test_a_resigned_players_push_to_a_forge_is_put_back(
    forge_site: str, hosted: Hosted, settings: Settings
) -> None:
    player, moves = decider(state_after_pushes(hosted))
    with game_lock(settings, hosted.game_id):
        repo = GameRepo(hosted.service)
        record_resignation(repo, player, datetime.now(UTC), home=settings.home)
        remote.update(repo, settings.home)
        repo.repo.close()
    clone = player_clone(hosted, player)
    write_move(clone, 1, player, moves[0] + "\n")
    assert push(clone).returncode == 0  # a forge takes anything
    bad = head(clone)

    reply = deliver(forge_site, hosted, "delivery-resigned")

    assert reply.status == 200, reply.text
    assert reply.json()["restored"] == [bad]
    assert reply.json()["adjudicated"] == []
    assert restore_commits(hosted)
    assert git(hosted.origin, "ls-tree", "--name-only", "main", "moves/").strip() == ""
    verified(hosted)
    with opened(hosted.service) as repo:
        assert snapshot(repo).game.has_resigned(player)
    assert engine.pending(state_after_pushes(hosted)) is not None
