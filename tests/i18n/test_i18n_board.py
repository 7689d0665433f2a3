"""The board drawing in the reader's language (docs/i18n.md): every label, title and the
description a screen reader says, strictly in Polish for a Polish reader (the approach of
tests/i18n/test_i18n.py: no English word of the English drawing left in the Polish one); the
English drawing byte for byte what it was; and where the board is drawn, the language it
is drawn in: board.svg in the game's, each report mail's picture and its alternative text
in its reader's (made once per language), the pages in the visitor's (test_i18n_pages.py).
"""

from __future__ import annotations

import copy
import hashlib
import random
import xml.etree.ElementTree as ET
from email.message import EmailMessage
from pathlib import Path

import pytest
from gitgame import SECRET, bot_submission
from mailserver import email_of, html, mail_server, needs_cairo, settings_for
from test_i18n import english_left

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.drawing.description import describe
from adjudicator.games.newgame import create_game
from adjudicator.games.outputs import BOARD_FILE, Adjudication
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import _board_agrees, verify
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words
from adjudicator.mail import pictures, report_mails
from engine.game import legal_seat_actions, step

PL, EN = Words("pl"), Words()
NAMES = ("ala", "bob", "cyd")  # the names test_i18n.english_left knows as names


def played(players: tuple[str, ...], seed: int, steps: int) -> engine.State:
    state = engine.new_game(list(players), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.phase == "over":
            break
        seat, action = rng.choice(legal_seat_actions(state))
        step(state, seat, action)
    return state


def text(svg_text: str) -> str:
    """Everything the drawing says: its texts, every `<title>` and the `<desc>`."""
    return " ".join(ET.fromstring(svg_text).itertext())


# Positions of three-player games: the setup, mid-game ones and finished ones.
POSITIONS = [(1, 0), (5, 60), (5, 150), (3, 250), (9, 400), (11, 600)]


@pytest.fixture(scope="module")
def views() -> list[engine.View]:
    found: list[engine.View] = []
    for seed, steps in POSITIONS:
        state = played(NAMES, seed, steps)
        found += [engine.view(state), engine.view(state, "bob")]
    return found


def test_a_polish_board_has_no_english_label_left(views: list[engine.View]) -> None:
    for view in views:
        polish, english = text(board_svg(view, PL)), text(board_svg(view))
        assert polish != english
        assert english_left(polish, english) == [], polish


def test_the_polish_boards_tested_show_every_kind_of_label(views: list[engine.View]) -> None:
    """The strict test above sees every label: pieces of each kind, rulers, roads, hands,
    the setup, a turn and the end (else it could pass by not drawing them)."""
    english = " ".join(text(board_svg(view)) for view in views)
    for label in ("tribe of", "army", "armies", "road", "ruled by", "ruler:", "no ruler"):
        assert label in english, label
    for label in ("bob's hand", "Setup:", "to play", "The game is over", "victory points"):
        assert label in english, label


def test_the_polish_board_counts_in_three_forms() -> None:
    view = engine.view(played(NAMES, 5, 60))
    titles = {}
    for n in (1, 2, 5):
        changed = copy.deepcopy(view)
        changed["regions"]["kabul"]["armies"] = {"british": n}
        changed["regions"]["kabul"]["tribes"] = {"ala": n}
        titles[n] = text(board_svg(changed, PL))
    assert "1 brytyjska armia" in titles[1] and "1 plemię gracza ala" in titles[1]
    assert "2 brytyjskie armie" in titles[2] and "2 plemiona gracza ala" in titles[2]
    assert "5 brytyjskich armii" in titles[5] and "5 plemion gracza ala" in titles[5]
    assert "Kabul: " in titles[5] and "armie: 5 brytyjskich" in titles[5]


def test_the_polish_board_uses_the_rulebooks_words(views: list[engine.View]) -> None:
    polish = " ".join(text(board_svg(view, PL)) for view in views)
    for word in ("Zakaspie", "Persja", "Pendżab", "Sprawdzenia dominacji", "Preferowany aspekt"):
        assert word in polish, word
    for word in ("Punkty zwycięstwa", "Piony w zapasie", "Obowiązujące wydarzenia", "władca"):
        assert word in polish, word


# sha256 of board_svg and describe in English, as the drawing gave them before it spoke
# other languages (players alice.., positions of tests/drawing/test_drawing_board.py; None: the
# public view, else bob's): English drawings, and every board.svg of an English game,
# keep their bytes.
ENGLISH_DIGESTS = {
    ((2, 1, 0), None): ("c4d6e195700d045c", "b48f520972ababe3"),
    ((2, 1, 0), "bob"): ("3b81f2ea944c44d0", "2fcc592e97416aba"),
    ((3, 5, 120), None): ("2d895ebd6d5523c5", "f78c0a999287c4c8"),
    ((3, 5, 120), "bob"): ("d89f75b3138ded8d", "0a5174ff42071ba8"),
    ((4, 3, 200), None): ("739bcfc0e531cd56", "577b23b1e8927e17"),
    ((4, 3, 200), "bob"): ("a8371088ef9e65b6", "80e7b7798d06aacd"),
    ((5, 9, 400), None): ("e5bf6642fa5b4185", "1e70f33e34cab282"),
    ((5, 9, 400), "bob"): ("725396294a13a86b", "1889e95dca8af457"),
    ((5, 5, 400), None): ("150633ee65592391", "91f8f8367e0a3195"),
    ((5, 5, 400), "bob"): ("05cf19efe7aec763", "feb7371978c5ae49"),
}


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:16]


@pytest.mark.parametrize("where", sorted(ENGLISH_DIGESTS, key=str), ids=str)
def test_the_english_board_is_byte_identical_to_before(
    where: tuple[tuple[int, int, int], str | None],
) -> None:
    (players, seed, steps), viewer = where
    state = played(("alice", "bob", "carol", "dave", "erin")[:players], seed, steps)
    view = engine.view(state) if viewer is None else engine.view(state, viewer)
    assert (digest(board_svg(view)), digest(describe(view))) == ENGLISH_DIGESTS[where]
    assert board_svg(view, EN) == board_svg(view)


# -- board.svg in the game repository: the game's language --------------------------------


def game_of(home: Path, language: str) -> GameRepo:
    repo = create_game(
        home / "games" / f"g-{language}",
        [(n, email_of(n)) for n in NAMES],
        home=home,
        secret=SECRET,
        language=language,
    )
    rng = random.Random(3)
    for _ in range(4):
        state = position(snapshot(repo), home)
        player, move = bot_submission(state, rng, whole_turn=True)
        submit(repo, player, move, home=home)
    return repo


def test_a_polish_games_board_svg_is_in_polish_and_verifies(home: Path) -> None:
    repo = game_of(home, "pl")
    view = engine.view(position(snapshot(repo), home))
    committed = repo.read(BOARD_FILE) or ""
    assert committed == board_svg(view, PL)
    assert english_left(text(committed), text(board_svg(view))) == []
    assert verify(repo, home).ok


def test_an_english_games_board_svg_is_the_english_drawing(home: Path) -> None:
    repo = game_of(home, "en")
    view = engine.view(position(snapshot(repo), home))
    assert repo.read(BOARD_FILE) == board_svg(view)
    assert verify(repo, home).ok


def test_a_polish_game_keeps_the_english_boards_it_committed_before() -> None:
    """A Polish game begun when every board was drawn in English still verifies; another
    language's drawing or another position does not."""
    view = engine.view(played(NAMES, 5, 60))
    drawn = view
    assert _board_agrees(board_svg(drawn), view, "pl")
    assert _board_agrees(board_svg(drawn, PL), view, "pl")
    assert not _board_agrees(board_svg(drawn, PL), view, "en")
    other = engine.view(played(NAMES, 3, 250))
    assert not _board_agrees(board_svg(other), view, "pl")


# -- the report mails: each reader's language, each picture made once per language ----------


def report_mails_of_a_move(
    home: Path, rasterize: pictures.Rasterize
) -> tuple[dict[str, EmailMessage], engine.PublicView]:
    """The report mails of a move of a game where ala reads Polish and bob and cyd English;
    the public view after it."""
    with mail_server() as server:
        settings: Settings = settings_for(home, server.port)
        repo = create_game(
            settings.games_dir / "g1",
            [(n, email_of(n)) for n in NAMES],
            home=home,
            secret=SECRET,
            languages={"ala": "pl"},
        )
        state = position(snapshot(repo), home)
        player, move = bot_submission(state, random.Random(5), whole_turn=True)
        result: Adjudication = submit(repo, player, move, home=home)
        report_mails.notify(settings, repo, [result], rasterize=rasterize)
        mails = {str(m["X-Pamir-Player"]): m for m in server.messages}
    assert sorted(mails) == list(NAMES)
    return mails, engine.view(position(snapshot(repo), home))


def png_of(message: EmailMessage) -> bytes:
    [part] = [p for p in message.walk() if p.get_content_type() == "image/png"]
    data = part.get_content()
    assert isinstance(data, bytes)
    return data


def alt_of(message: EmailMessage) -> str:
    body = html(message)
    start = body.index('alt="') + len('alt="')
    return body[start : body.index('"', start)]


@needs_cairo
def test_a_polish_players_mail_shows_the_polish_board(home: Path) -> None:
    drawn: list[str] = []

    def rasterize(svg_text: str, width: int) -> bytes:
        drawn.append(svg_text)
        return pictures.cairo_png(svg_text, width)

    mails, view = report_mails_of_a_move(home, rasterize)
    polish, english = board_svg(view, PL), board_svg(view)
    # Once per language among the readers, whatever their number.
    assert sorted(drawn) == sorted([polish, english])
    assert png_of(mails["ala"]) == pictures.recompress(pictures.cairo_png(polish, 800))
    assert (
        png_of(mails["bob"])
        == png_of(mails["cyd"])
        == pictures.recompress(pictures.cairo_png(english, 800))
    )
    alt, english_alt = alt_of(mails["ala"]), alt_of(mails["bob"])
    assert alt.startswith("Plansza po ruchu 1: ") and "punkty zwycięstwa" in alt
    assert english_alt.startswith("The board after move 1: ") and "victory points" in english_alt
    assert english_left(alt, english_alt) == [], alt
