"""The web pages, settings, health check and inbound email, over real HTTP.

The application runs on Werkzeug's server on 127.0.0.1 at a free port; requests go through
urllib. The games are real game repositories in the test's PAMIR_HOME, played by seeded
random bots through the pipeline.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path

import pytest
from gitgame import (
    SECRET,
    THREE,
    create,
    current_home,
    decider,
    full_state,
    git,
    isolate,
    opened,
    play,
    state_json,
)
from liveserver import fetch, serving

from adjudicator.games import pipeline
from adjudicator.home.settings import load_settings
from adjudicator.mail.tokens import reply_address
from adjudicator.web import create_app
from adjudicator.web.rendering import is_safe_url, report_html
from engine.cards import COURT_CARDS

GAME = "khyber"


# Not conftest's `home`: one PAMIR_HOME per module, with games already played in it, so
# that the read-only tests do not replay a game each.
@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One PAMIR_HOME for the read-only tests: a game 14 moves in, and a new bare game."""
    with pytest.MonkeyPatch.context() as patch:
        root = isolate(tmp_path_factory.mktemp("web"), patch)
        create(root / "games" / GAME, THREE)
        play(root / "games" / GAME, 14, seed=11, whole_turn=True)
        create(root / "games" / "fresh.git", ("dara", "emil"), bare=True)
        yield root


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[str]:
    with serving(create_app({"home": home})) as url:
        yield url


class Outline(HTMLParser):
    """What an accessibility checker looks at first: headings, captions, header cells."""

    def __init__(self) -> None:
        super().__init__()
        self.lang: str | None = None
        self.headings: list[int] = []
        self.tables = 0
        self.captions = 0
        self.th_without_scope = 0
        self.scripts = 0
        self.script_sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.lang = values.get("lang")
        elif re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))
        elif tag == "table":
            self.tables += 1
        elif tag == "caption":
            self.captions += 1
        elif tag == "th" and values.get("scope") not in ("col", "row"):
            self.th_without_scope += 1
        elif tag == "script":
            self.scripts += 1
            self.script_sources.append(values.get("src") or "")


def outline(html: str) -> Outline:
    parser = Outline()
    parser.feed(html)
    return parser


def text_of(html: str) -> str:
    """The page's text without tags (block ones become spaces), whitespace collapsed."""
    inline = re.sub(r"</?(?:a|strong|em|i|b|code)\b[^>]*>", "", html)
    return " ".join(re.sub(r"<[^>]+>", " ", inline).split())


# -- the list of games ---------------------------------------------------------------------


def test_the_index_lists_every_game_with_its_players_turn_and_who_is_awaited(
    site: str, home: Path
) -> None:
    reply = fetch(f"{site}/")
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/html")
    page = text_of(reply.text)
    view = state_json(home / "games" / GAME)["view"]
    awaited = " and ".join(view["pending"]["players"])
    assert f'href="/games/{GAME}"' in reply.text
    assert "alice, bob and carol" in page
    assert f"{view['turn']} (move 14)" in page
    assert f"{awaited}, by " in page and view["pending"]["prompt"] in page
    assert 'href="/games/fresh"' in reply.text and "dara and emil" in page


def test_the_index_is_paged_and_a_page_reads_its_own_games_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many games the service has, a page of the list reads INDEX_PAGE_SIZE of
    them: a broken game on page 2 is not even looked at for page 1."""
    from adjudicator.games import needs_host  # this test's own look at the marks
    from adjudicator.web import pages

    root = isolate(tmp_path, monkeypatch)
    for name in ("a1", "a2", "a3"):
        create(root / "games" / name, ("dara", "emil"))
    broken = root / "games" / "a3"
    (broken / "game.toml").write_text("not = [toml\n", encoding="utf-8")
    git(broken, "commit", "-q", "-am", "a host's slip")
    monkeypatch.setattr(pages, "INDEX_PAGE_SIZE", 2)
    with serving(create_app({"home": root})) as url:
        first = fetch(f"{url}/")
        assert 'href="/games/a1"' in first.text and 'href="/games/a2"' in first.text
        assert 'href="/games/a3"' not in first.text
        assert "page 1 of 2" in text_of(first.text) and 'href="/?page=2"' in first.text
        assert needs_host.marked(root, "a3") is None  # never read for page 1
        second = fetch(f"{url}/?page=2")
        assert 'href="/games/a3"' in second.text and "needs the host" in text_of(second.text)
        assert 'href="/?page=1"' in second.text and 'href="/games/a1"' not in second.text
        assert fetch(f"{url}/?page=9").text == second.text  # past the last: the last
        assert fetch(f"{url}/?page=x").status == 404


# -- a game's page ---------------------------------------------------------------------------


def test_the_game_page_shows_the_public_position(site: str, home: Path) -> None:
    reply = fetch(f"{site}/games/{GAME}")
    assert reply.status == 200
    html, page = reply.text, text_of(reply.text)
    view = state_json(home / "games" / GAME)["view"]
    assert f"Game {GAME}" in page
    for name in ("Transcaspia", "Persia", "Herat", "Kabul", "Kandahar", "Punjab"):
        assert f'<th scope="row">{name}</th>' in html
    for region in view["regions"].values():
        if region["ruler"]:
            assert region["ruler"] in page
    for row in view["market"]:
        for slot in row:
            if slot and slot["card"] in COURT_CARDS:
                assert f"{slot['card']} {COURT_CARDS[slot['card']].name}" in page
    assert "Cost: " in page and "Rupees on it: " in page
    for player in view["players"]:
        name, loyalty, vp = player["name"], player["loyalty"], player["vp"]
        assert f'<th scope="row">{name}</th><td>{loyalty}</td><td>{vp}</td>' in html
        for card in player["court"]:
            assert f"{card['card']} {card['name']}" in page
    assert f"Favored suit {view['favored']}" in page
    assert "Events in force" in page
    assert f"Waiting for {' and '.join(view['pending']['players'])}, by " in page
    assert re.search(r"by \d{4}-\d\d-\d\d \d\d:\d\d UTC", page)


def test_the_game_page_links_every_move_and_shows_the_latest_report(site: str, home: Path) -> None:
    """The history links each move's page; only the newest report is on the game's page
    (a long game's page stays small), every other one on its move's page."""
    html = fetch(f"{site}/games/{GAME}").text
    for number in range(15):
        assert f'href="/games/{GAME}/turns/{number}"' in html
    assert html.count("<details") == 1 and '<details id="move-14" open>' in html
    # the report's own headings sit under the page's: "# game: title" becomes an h3
    assert f"<h3>{GAME}: move 14 by " in html
    assert "<h4>Board</h4>" in html and "<h4>Market</h4>" in html
    report = (home / "games" / GAME / "reports" / "0003.md").read_text(encoding="utf-8")
    happened = next(line for line in report.splitlines() if line.startswith("- "))[2:]
    turn = fetch(f"{site}/games/{GAME}/turns/3").text
    assert happened.replace("'", "&#39;") in turn or happened in turn


def test_pages_are_structured_for_screen_readers(site: str) -> None:
    for url in ("/", f"/games/{GAME}", f"/games/{GAME}/turns/5", "/games/nowhere"):
        shape = outline(fetch(f"{site}{url}").text)
        assert shape.lang == "en", url
        assert shape.headings and shape.headings[0] == 1, url
        assert shape.headings.count(1) == 1, url
        jumps = [b - a for a, b in zip(shape.headings, shape.headings[1:], strict=False)]
        assert max(jumps, default=0) <= 1, (url, shape.headings)  # no skipped levels
        assert shape.captions == shape.tables, url
        assert shape.th_without_scope == 0, url
        # Everything works without JavaScript: the one script, from this site, only
        # refreshes a game's page when the game moves (live.js), and no script is inline.
        assert shape.script_sources in ([], ["/live.js"]), url


def test_pages_never_show_the_secret_the_deck_private_sections_or_addresses(
    site: str, home: Path
) -> None:
    pages = "".join(
        fetch(f"{site}{url}").text
        for url in ("/", f"/games/{GAME}", f"/games/{GAME}/turns/14", f"/games/{GAME}/turns/0")
    )
    assert SECRET not in pages
    assert "sha256:" not in pages  # not even the commitment
    assert "@example.org" not in pages
    private = (home / "private" / GAME / "0014-alice.md").read_text(encoding="utf-8")
    assert private.splitlines()[0].lstrip("# ") not in pages  # "For alice only"
    assert "Your hand" not in pages
    deck = [c for c in full_state(home / "games" / GAME).deck[:8] if c in COURT_CARDS]
    assert deck
    for card in deck:
        assert f"{card} {COURT_CARDS[card].name}" not in pages


# -- one move's report ---------------------------------------------------------------------


def test_a_turn_page_shows_that_moves_report_with_links_either_side(site: str, home: Path) -> None:
    reply = fetch(f"{site}/games/{GAME}/turns/7")
    assert reply.status == 200
    report = (home / "games" / GAME / "reports" / "0007.md").read_text(encoding="utf-8")
    title = report.splitlines()[0].removeprefix("# ")
    assert f"<h2>{title}</h2>" in reply.text
    assert f'href="/games/{GAME}/turns/6"' in reply.text
    assert f'href="/games/{GAME}/turns/8"' in reply.text
    assert '<th scope="col">Region</th>' in reply.text  # the report's tables, made accessible
    first = fetch(f"{site}/games/{GAME}/turns/0")
    assert first.status == 200 and "the new game" in first.text
    assert f'href="/games/{GAME}/turns/-1"' not in first.text


@pytest.mark.parametrize(
    "url",
    [
        "/games/nowhere",
        "/games/nowhere/turns/1",
        f"/games/{GAME}/turns/15",
        f"/games/{GAME}/turns/99999",
        "/games/..",
        "/games/%2e%2e%2fsecrets",
        "/games/KHYBER",
        "/no/such/page",
    ],
)
def test_unknown_games_and_turns_are_404_pages(site: str, url: str) -> None:
    reply = fetch(f"{site}{url}")
    assert reply.status == 404
    assert "<h1>404 Not Found</h1>" in reply.text
    assert 'lang="en"' in reply.text


def test_the_health_check(site: str) -> None:
    reply = fetch(f"{site}/healthz")
    assert reply.status == 200
    assert reply.json() == {"status": "ok", "games": True, "needs_host": []}


# -- what players wrote is shown as text ---------------------------------------------------


def test_player_text_in_refusals_and_reports_cannot_inject_markup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = isolate(tmp_path, monkeypatch)
    path = create(root / "games" / "hostile")
    player, _ = decider(full_state(path))
    hostile = [
        '<script>alert("x")</script>',
        "loyalty [click](javascript:alert(1))",
        "purchase <img/src=x/onerror=alert(1)>",
    ]
    with opened(path) as repo:
        files: dict[str, bytes | None] = {
            f"moves/{n:04d}-{player}.txt": f"{t}\n".encode() for n, t in enumerate(hostile, 1)
        }
        repo.commit(files, "pushed moves", parent=repo.head())
        # Each recorded as refused, quoting it.
        refused = pipeline.adjudicate_pending(repo, current_home())
    assert len(refused) == 3
    with serving(create_app({"home": root})) as site:
        urls = ["/", "/games/hostile", *(f"/games/hostile/turns/{n}" for n in (1, 2, 3))]
        pages = [fetch(f"{site}{u}") for u in urls]
    assert "&lt;script&gt;alert(" in pages[1].text  # quoted, as text
    assert "[click](javascript:alert(1))" in pages[3].text
    assert "&lt;img/src=x/onerror=alert(1)&gt;" in pages[4].text
    for page in pages:
        assert page.status == 200
        # The one script is the page's own live.js, in its head: none came from a player.
        body = page.text.lower().split("</head>", 1)[1]
        assert "<script" not in body
        assert page.text.lower().count("<script") <= 1
        assert "<img" not in page.text.lower()
        assert 'href="javascript' not in page.text.lower()


def test_markdown_links_and_raw_html_are_defused() -> None:
    html = str(
        report_html(
            "# T\n\n<div onclick=x>raw</div>\n\n[a](javascript:alert(1)) [b](JaVa\tScRiPt:x) "
            "[c](https://example.org/) [d](/games/x) ![e](http://x/y.png)\n"
        )
    )
    assert "<div" not in html and "&lt;div onclick=x&gt;raw&lt;/div&gt;" in html
    assert 'href="https://example.org/"' in html and 'href="/games/x"' in html
    assert "<a>a</a>" in html and "<a>b</a>" in html
    assert "<img" not in html and "<span>e</span>" in html
    assert [is_safe_url(u) for u in ("mailto:a@b", "vbscript:x", "data:text/html,x", "x:y")] == [
        True,
        False,
        False,
        False,
    ]


def test_one_text_rendered_leaves_nothing_to_the_next() -> None:
    """Each thread keeps its Markdown converter from one text to the next: a reference a
    player's note defined, or raw HTML it stashed, must not reach the next report."""
    first = str(report_html("[x]: https://tracker.example/\n\n<b>stashed</b>\n"))
    second = str(report_html("[look][x]\n"))
    assert "stashed" not in second and "tracker" not in second
    assert "[look][x]" in second and "&lt;b&gt;stashed&lt;/b&gt;" in first


# -- settings --------------------------------------------------------------------------------


def test_settings_come_from_defaults_the_instance_file_variables_and_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = isolate(tmp_path, monkeypatch)
    default = create_app().extensions["pamir.settings"]
    assert default.home == root and default.base_url == "http://localhost:8000"
    (root / "pamir.toml").write_text(
        'base_url = "https://pamir.example"\nreply_domain = "file.example"\n', encoding="utf-8"
    )
    monkeypatch.setenv("PAMIR_REPLY_DOMAIN", "env.example")
    app = create_app({"github_secret": "s3", "TESTING": True})
    settings = app.extensions["pamir.settings"]
    assert settings.base_url == "https://pamir.example"  # the instance file
    assert settings.reply_domain == "env.example"  # a variable beats the file
    assert settings.github_secret.get_secret_value() == "s3"  # config beats both
    assert app.config["TESTING"] is True
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert create_app({"home": other}).extensions["pamir.settings"].games_dir == (
        other.resolve() / "games"
    )


# -- inbound email ---------------------------------------------------------------------------


def test_inbound_email_is_size_limited_and_needs_a_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = isolate(tmp_path, monkeypatch)
    with serving(create_app({"home": root, "max_inbound_bytes": 2000})) as site:
        big = fetch(f"{site}/inbound/email", b"x" * 2001, {"Content-Type": "message/rfc822"})
        empty = fetch(f"{site}/inbound/email", b"", {"Content-Type": "message/rfc822"})
        wrong_method = fetch(f"{site}/inbound/email")
    assert big.status == 413 and "2000 bytes" in big.json()["error"]
    assert empty.status == 400
    assert wrong_method.status == 405


def test_an_emailed_move_is_adjudicated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("adjudicator.mail.incoming", reason="the mail module is not installed")
    root = isolate(tmp_path, monkeypatch)
    path = create(root / "games" / "bymail")
    player, options = decider(full_state(path))
    settings = load_settings({"home": root})
    message = EmailMessage()
    message["From"] = f"{player} <{player}@example.org>"
    message["To"] = reply_address(settings, "bymail", player)
    message["Subject"] = "Re: bymail"
    message["Message-ID"] = "<move-1@example.org>"
    message.set_content(options[0] + "\n")
    with serving(create_app({"home": root})) as site:
        reply = fetch(
            f"{site}/inbound/email", message.as_bytes(), {"Content-Type": "message/rfc822"}
        )
        again = fetch(f"{site}/inbound/email", message.as_bytes())
    assert reply.status == 200, reply.text
    assert reply.json()["result"]["status"] == "accepted"
    assert state_json(path)["move"] == 1
    assert json.dumps(again.json()["result"]["duplicate"]) == "true"


def test_two_applications_in_one_process_keep_their_data_folders_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An application finds a game's secret, and writes the private sections, in its own
    home: making another application (with another home) later in the same process
    changes neither that nor PAMIR_HOME."""
    first = isolate(tmp_path, monkeypatch)
    second = tmp_path / "second-home"
    second.mkdir()
    path = create(first / "games" / "twohomes")
    player, options = decider(full_state(path))
    message = EmailMessage()
    message["From"] = f"{player} <{player}@example.org>"
    message["To"] = reply_address(load_settings({"home": first}), "twohomes", player)
    message["Subject"] = "Re: twohomes"
    message["Message-ID"] = "<two-homes-1@example.org>"
    message.set_content(options[0] + "\n")
    app = create_app({"home": first})
    create_app({"home": second})
    assert Path(os.environ["PAMIR_HOME"]) == first
    with serving(app) as site:
        reply = fetch(
            f"{site}/inbound/email", message.as_bytes(), {"Content-Type": "message/rfc822"}
        )
    assert reply.status == 200, reply.text
    assert reply.json()["result"]["status"] == "accepted"
    assert state_json(path)["move"] == 1
    assert sorted(p.name for p in (first / "private" / "twohomes").iterdir())[-1].startswith(
        "0001-"
    )
    assert not (second / "private").exists()
