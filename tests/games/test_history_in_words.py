"""The game page's history reads as sentences, with the notation beside them."""

from __future__ import annotations

from gitgame import THREE, create, play

from adjudicator.games.wording import in_words
from adjudicator.home.settings import Settings
from adjudicator.web import create_app


def test_actions_read_as_a_sentence() -> None:
    assert in_words("loyalty afghan; purchase 54; pass") == (
        "Choose Afghan loyalty; buy Herati Bandits (54); pass, ending the turn."
    )
    assert in_words("not an action at all") == "Not an action at all."


def test_the_game_page_shows_each_move_in_words_and_notation(settings: Settings) -> None:
    path = settings.games_dir / "words"
    create(path, THREE)
    play(path, 3, seed=1)
    page = create_app({"home": settings.home}).test_client().get("/games/words").get_data(True)
    assert (
        "Choose Afghan loyalty." in page
        or "Choose British loyalty." in page
        or ("Choose Russian loyalty." in page)
    )
    assert "<code>loyalty " in page
