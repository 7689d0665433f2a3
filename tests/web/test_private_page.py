"""A player's private page, /play/GAME/PLAYER/TOKEN, through real HTTP and real Git.

The page shows its player's own view (their hand, the board, the decision and their legal
actions) and takes a move by a form, adjudicated as a mailed move is. Everything else gets
a 404 that never says which part of the address was wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from gitgame import THREE, create, decider, full_state, head, isolate, opened, play, show
from liveserver import Reply, fetch, serving
from test_web import outline, text_of

import engine
from adjudicator.games.pipeline import submit
from adjudicator.home.settings import load_settings
from adjudicator.mail.links import page_links
from adjudicator.mail.tokens import page_token, token
from adjudicator.web import create_app
from engine.cards import COURT_CARDS

GAME = "kashmir"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A game 14 moves in: every player has cards in hand."""
    with pytest.MonkeyPatch.context() as patch:
        root = isolate(tmp_path_factory.mktemp("private"), patch)
        create(root / "games" / GAME, THREE)
        play(root / "games" / GAME, 14, seed=11, whole_turn=True)
        yield root


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[str]:
    with serving(create_app({"home": home})) as url:
        yield url


def private_path(home: Path, game: str, player: str) -> str:
    """The page's path, as the links given to mail make it."""
    link = page_links(load_settings({"home": home}), game, player).private
    return "/" + link.split("/", 3)[3]


def form_fields(html: str) -> dict[str, str]:
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', html))


def post(url: str, fields: dict[str, str]) -> Reply:
    body = urlencode(fields).encode()
    return fetch(url, body, {"Content-Type": "application/x-www-form-urlencoded"})


def visible_cards(view: engine.View) -> set[int]:
    """Cards anyone may see: the market's, the courts', the discard pile's, prizes."""
    text = repr({k: v for k, v in view.items() if k != "players"})
    seen = {int(n) for n in re.findall(r"'card': (\d+)", text)}
    for player in view["players"]:
        seen |= {int(c["card"]) for c in player["court"]} | {int(c) for c in player["prizes"]}
    return seen | {int(c) for c in view["discard"]}


# -- what the page shows -------------------------------------------------------------------


def test_the_private_page_shows_that_players_hand_and_no_one_elses(site: str, home: Path) -> None:
    state = full_state(home / "games" / GAME)
    views = {name: engine.view(state, name) for name in THREE}
    hands: dict[str, list[int]] = {}
    for name, view in views.items():
        hand = next(p["hand"] for p in view["players"] if p["name"] == name)
        assert hand is not None  # a player's own view shows their hand
        hands[name] = hand
    assert all(hands.values()), hands
    public = visible_cards(engine.view(state))
    secret = 0
    for name in THREE:
        reply = fetch(f"{site}{private_path(home, GAME, name)}")
        assert reply.status == 200
        page = text_of(reply.text)
        for card in hands[name]:
            if card in COURT_CARDS:
                assert f"{card} {COURT_CARDS[card].name}" in page
        for other, hand in hands.items():
            for card in hand:
                if other != name and card in COURT_CARDS and card not in public:
                    assert COURT_CARDS[card].name not in page, (name, other, card)
                    secret += 1
        pending = views[name]["pending"]
        assert pending is not None and pending["prompt"] in page
        for option in views[name]["options"]:
            assert f"<code>{option}</code>" in reply.text
        assert "Your legal actions" in reply.text or not views[name]["options"]
    assert secret  # the test looked for some card only another player could know


def test_the_private_page_shows_the_players_own_table_and_the_other_courts(
    site: str, home: Path
) -> None:
    """Rupees, loyalty, influence, points and court of the player, each court of the
    others: what a player needs to play a turn from the page."""
    state = full_state(home / "games" / GAME)
    for name in THREE:
        me = state.players[state.seat(name)]
        page = text_of(fetch(f"{site}{private_path(home, GAME, name)}").text)
        mine = page[page.index("Your table") : page.index("Your hand")]
        assert f"Rupees {me.rupees} " in mine, mine[:200]
        for card in me.court:
            assert COURT_CARDS[card].name in mine
        others = [p for p in state.players if p.name != name]
        for other in others:
            for card in other.court:
                assert COURT_CARDS[card].name in page[page.index("Courts") :]
    assert any(p.court for p in state.players)  # the test looked at some court


def test_the_private_page_is_private_in_its_headers_and_well_formed(site: str, home: Path) -> None:
    reply = fetch(f"{site}{private_path(home, GAME, 'alice')}")
    assert reply.headers["Referrer-Policy"] == "no-referrer"
    assert reply.headers["Cache-Control"] == "no-store"
    policy = reply.headers["Content-Security-Policy"]
    assert "form-action 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "default-src 'none'" in policy and "script-src 'self';" in policy
    assert reply.headers["X-Content-Type-Options"] == "nosniff"
    shape = outline(reply.text)
    assert shape.lang == "en" and shape.headings.count(1) == 1
    assert shape.script_sources == ["/live.js"]  # no inline script: the policy forbids it
    assert '<form method="post"' in reply.text and 'href="/help"' in reply.text
    # The game's public page keeps forbidding forms.
    assert "form-action 'none'" in fetch(f"{site}/games/{GAME}").headers["Content-Security-Policy"]


def test_the_link_is_not_the_reply_token_and_differs_by_player_and_game(home: Path) -> None:
    settings = load_settings({"home": home})
    links = {page_token(settings, g, p) for g in (GAME, "other") for p in THREE}
    assert len(links) == 6
    assert token(settings, GAME, "alice") not in page_token(settings, GAME, "alice")
    assert page_token(settings, GAME, "Alice") == page_token(settings, GAME, "alice")


def test_page_links_are_absolute_from_the_base_url(home: Path) -> None:
    settings = load_settings({"home": home, "base_url": "https://pamir.example/club/"})
    links = page_links(settings, GAME, "bob", 7)
    assert links.game == f"https://pamir.example/club/games/{GAME}"
    assert links.turn == f"https://pamir.example/club/games/{GAME}/turns/7"
    assert links.private == (
        f"https://pamir.example/club/play/{GAME}/bob/{page_token(settings, GAME, 'bob')}"
    )
    assert page_links(settings, GAME, "bob").turn is None


def test_a_wrong_or_another_players_token_is_404(site: str, home: Path) -> None:
    settings = load_settings({"home": home})
    alice = page_token(settings, GAME, "alice")
    wrong = [
        f"/play/{GAME}/bob/{alice}",  # alice's token for bob
        f"/play/{GAME}/alice/{alice[:-1]}{'0' if alice[-1] != '0' else '1'}",
        f"/play/{GAME}/alice/{token(settings, GAME, 'alice')}",  # the reply token
        f"/play/{GAME}/zoe/{page_token(settings, GAME, 'zoe')}",  # no such player
        f"/play/nowhere/alice/{page_token(settings, 'nowhere', 'alice')}",  # no such game
        f"/play/{GAME}/alice/{alice.upper()}",
    ]
    bodies = set()
    for path in wrong:
        reply = fetch(f"{site}{path}")
        assert reply.status == 404, path
        assert reply.headers["Cache-Control"] == "no-store", path
        bodies.add(reply.body)
        posted = post(f"{site}{path}", {"move": "pass"})
        assert posted.status in (404, 405), path
    assert len(bodies) == 1  # one answer for all: it never says which part was wrong
    assert b"There is no such page." in bodies.pop()
    assert fetch(f"{site}/play/{GAME}/alice").status == 404


# -- moving by the form --------------------------------------------------------------------


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A new game of three, with the service on a real port."""
    root = isolate(tmp_path, monkeypatch)
    create(root / "games" / "formgame", THREE)
    with serving(create_app({"home": root})) as url:
        yield root, url


def test_a_legal_move_through_the_form_is_adjudicated_and_mailed(
    fresh: tuple[Path, str],
) -> None:
    root, site = fresh
    path = root / "games" / "formgame"
    player, options = decider(full_state(path))
    before = head(path)
    url = f"{site}{private_path(root, 'formgame', player)}"
    fields = form_fields(fetch(url).text)
    assert fields["head"] == before and fields["expected"] == "1"
    reply = post(url, {**fields, "move": f"{options[0]}\r\n"})
    assert reply.status == 200, text_of(reply.text)
    assert "Move 1 adjudicated." in reply.text
    assert 'href="/games/formgame/turns/1"' in reply.text
    assert head(path) != before
    assert show(path, "main", f"moves/0001-{player}.txt") == f"{options[0]}\n"
    with opened(path) as repo:
        commit = repo.repo.commit("main")
        assert commit.author.name == player and commit.author.email == f"{player}@example.org"
        assert str(commit.message).startswith(f"Move 1 by {player}: ")
    mails = [p.name for p in (root / "outbox").rglob("*") if p.is_file() and p.suffix == ".eml"]
    # One mail a turn (the default): the report goes at once to whoever decides next (a
    # choice of loyalty in setup ends no turn, so the others get it with the turn's end).
    after, _ = decider(full_state(path))
    assert any(f"-0001-{after}-report-" in name for name in mails), mails
    assert fields["token"] != form_fields(reply.text)["token"]  # a new form for the new head


def test_a_form_with_a_bad_token_is_refused(fresh: tuple[Path, str]) -> None:
    root, site = fresh
    path = root / "games" / "formgame"
    player, options = decider(full_state(path))
    before = head(path)
    url = f"{site}{private_path(root, 'formgame', player)}"
    fields = form_fields(fetch(url).text)
    other = next(p for p in THREE if p != player)
    others = form_fields(fetch(f"{site}{private_path(root, 'formgame', other)}").text)
    for forged in ({**fields, "token": "0" * 64}, {**fields, "token": others["token"]}, {}):
        reply = post(url, {**forged, "move": options[0]})
        assert reply.status == 403, forged
        assert "did not come from this page" in reply.text
    assert head(path) == before


def test_a_stale_form_is_refused(fresh: tuple[Path, str]) -> None:
    root, site = fresh
    path = root / "games" / "formgame"
    player, options = decider(full_state(path))
    url = f"{site}{private_path(root, 'formgame', player)}"
    fields = form_fields(fetch(url).text)
    with opened(path) as repo:  # the game moves on: that player chooses their loyalty by Git
        submit(repo, player, options[0] + "\n", home=root)
    moved = head(path)
    following, more = decider(full_state(path))
    own = f"{site}{private_path(root, 'formgame', following)}"
    reply = post(url, {**fields, "move": options[-1]})
    assert reply.status == 409 and "has moved on" in reply.text
    # A form whose token is good for the new head, but that expects the old move number.
    fresh_fields = form_fields(fetch(own).text)
    reply = post(own, {**fresh_fields, "expected": "1", "move": more[0]})
    assert reply.status == 422 and "stale" in reply.text
    assert head(path) == moved


def test_an_illegal_move_shows_the_engines_message_and_commits_nothing(
    fresh: tuple[Path, str],
) -> None:
    root, site = fresh
    path = root / "games" / "formgame"
    player, _ = decider(full_state(path))
    before = head(path)
    url = f"{site}{private_path(root, 'formgame', player)}"
    reply = post(url, {**form_fields(fetch(url).text), "move": "loyalty martians"})
    assert reply.status == 422
    page = text_of(reply.text)
    assert "unknown-coalition" in page and "martians" in page
    assert re.search(r">loyalty martians\s*</textarea>", reply.text)  # kept, to be corrected
    empty = post(url, {**form_fields(fetch(url).text), "move": "  \r\n"})
    assert empty.status == 422 and "empty" in text_of(empty.text)
    assert head(path) == before


def test_an_oversized_or_undecodable_form_is_refused(fresh: tuple[Path, str]) -> None:
    root, site = fresh
    path = root / "games" / "formgame"
    player, options = decider(full_state(path))
    before = head(path)
    url = f"{site}{private_path(root, 'formgame', player)}"
    fields = form_fields(fetch(url).text)
    limit = load_settings({"home": root}).max_move_bytes
    huge = post(url, {**fields, "move": "x" * (limit * 3 + 5000)})
    assert huge.status == 413 and huge.headers["Cache-Control"] == "no-store"
    big = post(url, {**fields, "move": "# " + "y" * limit + "\n" + options[0]})
    assert big.status == 422 and "too-large" in big.text
    latin = urlencode({**fields}).encode() + b"&move=" + b"%E9t%E9"  # not UTF-8
    bad = fetch(url, latin, {"Content-Type": "application/x-www-form-urlencoded"})
    assert bad.status == 400
    assert head(path) == before
