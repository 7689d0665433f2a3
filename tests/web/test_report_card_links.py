"""Card names in the reports shown on the pages link to their card pages: `76 Fath-Ali Shah`
in tables and `Herati Bandits (54)` in sentences, and nothing else."""

from __future__ import annotations

from gitgame import THREE, create, play

from adjudicator.home.settings import Settings
from adjudicator.web import create_app
from adjudicator.web.rendering import link_cards


def test_card_names_are_linked_and_nothing_else() -> None:
    html = (
        "<td>76 Fath-Ali Shah</td><p>bought Herati Bandits (54) and Shah's Guard (83); "
        "3 rupees; 54 Fath-Ali Shah; Fath-Ali Shah (54); "
        '<a href="https://example.org/76 Fath-Ali Shah">76 Fath-Ali Shah</a></p>'
    )
    linked = link_cards(html)
    assert '<td><a href="/cards/76">76 Fath-Ali Shah</a></td>' in linked
    assert '<a href="/cards/54">Herati Bandits (54)</a>' in linked
    assert '<a href="/cards/83">Shah\'s Guard (83)</a>' in linked
    # A number and a name that do not belong together, and plain numbers, stay text.
    assert "3 rupees; 54 Fath-Ali Shah; Fath-Ali Shah (54);" in linked
    # An existing link is left whole, its address included.
    assert linked.endswith(
        '<a href="https://example.org/76 Fath-Ali Shah">76 Fath-Ali Shah</a></p>'
    )


def test_a_turn_page_links_the_cards_its_report_names(settings: Settings) -> None:
    path = settings.games_dir / "named"
    create(path, THREE)
    play(path, 6, seed=2, whole_turn=True)
    client = create_app({"home": settings.home}).test_client()
    pages = [client.get(f"/games/named/turns/{n}").get_data(True) for n in range(1, 7)]
    assert any('<a href="/cards/' in page.split("<article", 1)[-1] for page in pages)
