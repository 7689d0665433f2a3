"""The pages in the visitor's language (docs/i18n.md), over real HTTP: `Accept-Language`
picks Polish, the switch (`?lang=`) overrides it and is remembered, and no page covered
leaves a Polish visitor a word of English outside what it quotes from the record, which it
marks with its own `lang` (a committed report, the engine's prompt and log, card texts).

Covered: the list of games, a game's page, a move's page, the notation help, the cards, a
card, the error pages and a player's private page (in the player's language unless the
switch says otherwise), and the board drawn on a game's page, a move's page and the private
page: its labels, titles and description.
"""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest
from gitgame import create, isolate, play
from liveserver import fetch, serving
from test_i18n import NAMES, english_left

from adjudicator.games.codes import CODES
from adjudicator.home.settings import load_settings
from adjudicator.home.translations import Words
from adjudicator.mail.tokens import page_token
from adjudicator.web import create_app

GAME = "herat"
PAGES = [
    "/",
    "/help",
    f"/games/{GAME}",
    f"/games/{GAME}/turns/5",
    "/cards",
    "/cards/43",
    "/nowhere",
]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        root = isolate(tmp_path_factory.mktemp("i18n-pages"), patch)
        create(root / "games" / GAME, NAMES)
        play(root / "games" / GAME, 12, seed=4, whole_turn=True)
        yield root


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[str]:
    with serving(create_app({"home": home})) as url:
        yield url


def private(home: Path, player: str) -> str:
    settings = load_settings({"home": home})
    return f"/play/{GAME}/{player}/{page_token(settings, GAME, player)}"


@pytest.mark.parametrize("player", NAMES)
def test_a_players_private_page_is_in_polish(site: str, home: Path, player: str) -> None:
    """An English player's page speaks English to any browser; the switch makes it Polish."""
    path = private(home, player)
    english = fetch(site + path, headers={"Accept-Language": "pl"})
    assert visible(english.body, "en")[1] == "en"
    polish = fetch(site + path + "?lang=pl")
    assert polish.status == english.status == 200
    text, english_text = visible(polish.body, "pl")[0], visible(english.body, "en")[0]
    assert english_left(text, english_text) == [], text


class Visible(HTMLParser):
    """The text a visitor reads in the page's language: what is inside an element whose
    `lang` is another language and code are left out (the board's drawing is read: its
    labels, titles and description are in the page's language)."""

    SKIPPED: ClassVar = {"code", "style", "script"}
    VOID: ClassVar = {"br", "img", "input", "meta", "link", "hr", "wbr", "source", "area", "col"}

    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language
        self.stack: list[bool] = []  # per open element: whether its text is left out
        self.text: list[str] = []
        self.page_language: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "html":
            self.page_language = found.get("lang")
        if tag in self.VOID:
            return
        other = found.get("lang") not in (None, self.language)
        self.stack.append(other or tag in self.SKIPPED or bool(self.stack and self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not (self.stack and self.stack[-1]):
            self.text.append(data)


def visible(body: bytes, language: str) -> tuple[str, str | None]:
    parser = Visible(language)
    parser.feed(body.decode("utf-8"))
    return " ".join(parser.text), parser.page_language


@pytest.mark.parametrize("path", PAGES)
def test_every_page_covered_is_in_the_visitors_language(site: str, path: str) -> None:
    polish = fetch(site + path, headers={"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"})
    english = fetch(site + path, headers={"Accept-Language": "en-GB,en;q=0.9"})
    assert polish.status == english.status
    assert "Accept-Language" in polish.headers["Vary"]
    text, lang = visible(polish.body, "pl")
    english_text, english_lang = visible(english.body, "en")
    assert (lang, english_lang) == ("pl", "en")
    assert text != english_text
    assert english_left(text, english_text) == [], text


def test_the_switch_overrides_accept_language_and_is_remembered(site: str) -> None:
    chosen = fetch(site + "/?lang=pl", headers={"Accept-Language": "en"})
    assert visible(chosen.body, "pl")[1] == "pl"
    cookie = chosen.headers["Set-Cookie"].split(";")[0]
    assert cookie == "lang=pl"
    later = fetch(site + "/cards", headers={"Accept-Language": "en", "Cookie": cookie})
    assert visible(later.body, "pl")[1] == "pl"
    # The switch offers the other language on every page.
    assert b'href="?lang=en"' in later.body and b'<strong lang="pl">polski</strong>' in later.body
    # A language the service does not speak is ignored.
    unknown = fetch(site + "/?lang=xx", headers={"Accept-Language": "en"})
    assert visible(unknown.body, "en")[1] == "en" and "Set-Cookie" not in unknown.headers


def test_a_language_nobody_speaks_here_gets_english(site: str) -> None:
    page = fetch(site + "/", headers={"Accept-Language": "de-DE,de;q=0.9,fr;q=0.5"})
    assert visible(page.body, "en")[1] == "en"


def test_the_record_keeps_its_language_on_a_polish_page(site: str) -> None:
    """The committed report is the public record, in the game's language (English here)."""
    page = fetch(site + f"/games/{GAME}/turns/5", headers={"Accept-Language": "pl"})
    assert b'<article aria-label="Raport" lang="en">' in page.body
    assert b"## Now" not in page.body and b"Favored suit" in page.body


def test_the_switch_keeps_no_other_parameter(site: str, tmp_path: Path) -> None:
    """`?lang=` links are relative to the page: the path stays, the query is replaced."""
    page = fetch(site + f"/games/{GAME}?page=1", headers={"Accept-Language": "pl"})
    assert b'href="?lang=en"' in page.body


def test_the_prompt_and_the_last_moves_log_are_in_the_visitors_language(site: str) -> None:
    """state.json keeps them as phrases too: a Polish page says them in Polish."""
    polish = fetch(site + f"/games/{GAME}", headers={"Accept-Language": "pl"}).body
    english = fetch(site + f"/games/{GAME}", headers={"Accept-Language": "en"}).body
    assert b'<li lang="pl">' in polish and b'<li lang="en">' not in polish
    assert b'<li lang="en">' in english
    index = fetch(site + "/", headers={"Accept-Language": "pl"}).body
    assert b'<span lang="en">' not in index and b'<span lang="pl">' in index


def test_the_cards_the_polish_rulebook_names_are_named_so_on_the_pages(site: str) -> None:
    polish = fetch(site + "/cards", headers={"Accept-Language": "pl"}).body.decode()
    english = fetch(site + "/cards", headers={"Accept-Language": "en"}).body.decode()
    assert "30 Kupcy sikhijscy w Lahore" in polish and "Sikh Merchants" not in polish
    assert "30 Sikh Merchants in Lahore" in english
    assert "Sprawdzenie dominacji" in polish and "Mohan Lal" in polish
    card = fetch(site + "/cards/30", headers={"Accept-Language": "pl"}).body.decode()
    assert "<h1>30 Kupcy sikhijscy w Lahore</h1>" in card


def test_a_card_faces_labels_are_in_the_visitors_words(site: str) -> None:
    """The labels of a face (on a card's page, the market and the courts of a game's page)
    are the visitor's; the card's own words stay as printed, in English."""
    for path in ("/cards/1", f"/games/{GAME}"):
        polish = fetch(site + path, headers={"Accept-Language": "pl"}).body.decode()
        english = fetch(site + path, headers={"Accept-Language": "en"}).body.decode()
        assert '<span lang="pl">Akcje:</span>' in polish and "Actions:" not in polish, path
        assert "Actions: " in english and "Akcje" not in english, path
    # A card's page names its rows in the visitor's words too; the card's own stay English.
    polish = fetch(site + "/cards/1", headers={"Accept-Language": "pl"}).body.decode()
    english = fetch(site + "/cards/1", headers={"Accept-Language": "en"}).body.decode()
    assert '<dt lang="pl">Aspekt</dt>' in polish and '<dt lang="en">Suit</dt>' in english
    assert '<dt lang="pl">Zdolność specjalna: Indispensable Advisors</dt>' in polish
    assert '<dt lang="en">Special ability: Indispensable Advisors</dt>' in english
    event = fetch(site + "/cards/105", headers={"Accept-Language": "pl"}).body.decode()
    assert '<span lang="pl">Po odrzuceniu ze skrajnej lewej kolumny rynku</span>' in event
    assert "If discarded" not in event


def test_a_state_json_without_phrases_is_shown_in_english(home: Path) -> None:
    """A game committed before state.json kept phrases: its prompt and log are shown as
    recorded, marked as English."""
    from adjudicator.web import languages
    from adjudicator.web.pages import Position

    view: Any = {"pending": {"prompt": "bob must choose a loyalty", "players": ["bob"]}}
    last = {"number": 1, "player": "ala", "log": ["ala chose afghan loyalty"]}
    app = create_app({"home": home})
    with app.test_request_context("/?lang=pl"):
        old = Position("g", ["ala", "bob"], 1, view, last, None, 0, 48)
        assert languages._prompt(old) == languages.Shown("bob must choose a loyalty", "en")
        assert languages._log(old) == [languages.Shown("ala chose afghan loyalty", "en")]
        # A phrase that does not say what the record says is not shown either.
        forged = {"log": [{"message": "ala won", "params": {}}], "prompt": None}
        new = Position("g", ["ala", "bob"], 1, view, last, None, 0, 48, forged)
        assert languages._log(new) == [languages.Shown("ala chose afghan loyalty", "en")]
        said = {"message": "%(who)s chose %(coalition)s loyalty", "params": {}}
        said["params"] = {"who": "ala", "coalition": {"term": "afghan", "message": "Afghan"}}
        good = Position("g", ["ala", "bob"], 1, view, last, None, 0, 48, {"log": [said]})
        (line,) = languages._log(good)
        assert line.language == "pl" and "afgańsk" in line.text
        # A refused move's reason is quoted; its code's meaning is given in Polish.
        meaning = languages._refusal_meaning("line 1: not-in-hand: card 43 is not in hand")
        assert meaning == "not-in-hand: " + Words("pl")(CODES["not-in-hand"])
    with app.test_request_context("/?lang=en"):
        assert languages._refusal_meaning("line 1: not-in-hand: card 43 is not in hand") == ""
