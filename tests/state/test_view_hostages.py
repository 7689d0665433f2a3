"""The views show who holds each court card hostage [Hostage Actions, p. 12], as they show
each region's ruler, and the turn report shows it from the public view.
"""

from __future__ import annotations

from positions import Position

import engine
from adjudicator.games.reports import public_report
from engine.view_types import CourtCardRecord

NIKOLAI_IGNATIEV = 40  # in Hope's court in these cases


def court_entry(view: engine.View, owner: str, card: int) -> CourtCardRecord:
    player = next(p for p in view["players"] if p["name"] == owner)
    return next(c for c in player["court"] if c["card"] == card)


def spied(cati: int, hope: int, kaz: int = 0) -> engine.State:
    """Nikolai Ignatiev in Hope's court with the given spies of Cati, Hope and Kaz."""
    position = Position({"Cati": "british", "Hope": "russian", "Kaz": "afghan"}).court(
        "Hope", NIKOLAI_IGNATIEV
    )
    for name, count in (("Cati", cati), ("Hope", hope), ("Kaz", kaz)):
        if count:
            position.spies(name, NIKOLAI_IGNATIEV, count)
    return position.build()


def test_hostage_the_public_view_names_the_holder() -> None:
    """[Hostage Actions, p. 12] "To hold a card hostage, a single enemy player must have more
    spies on the card than each other player." (The rulebook's example: Cati has two spies on
    Hope's card, Hope one, so Cati holds it hostage.) Every view shows it, the public one too.
    """
    state = spied(cati=2, hope=1)
    for viewer in (None, "Cati", "Hope", "Kaz"):
        entry = court_entry(engine.view(state, viewer), "Hope", NIKOLAI_IGNATIEV)
        assert entry["hostage"] == "Cati"
        assert entry["spies"] == {"Cati": 2, "Hope": 1}


def test_hostage_none_on_a_tie_or_when_the_owner_leads() -> None:
    """[Hostage Actions, p. 12] "a single enemy player must have more spies on the card than
    each other player": two players tied for the most spies, or the owner with the most, or no
    spies at all, and nobody holds the card hostage.
    """
    for cati, hope, kaz in ((1, 0, 1), (2, 2, 0), (1, 2, 0), (0, 0, 0)):
        entry = court_entry(engine.view(spied(cati, hope, kaz)), "Hope", NIKOLAI_IGNATIEV)
        assert entry["hostage"] is None, (cati, hope, kaz)


def test_hostage_shown_in_the_turn_report() -> None:
    """The report is rendered from the public view: a card held hostage says by whom."""
    state = spied(cati=2, hope=1)
    report = public_report("g", "A game", engine.view(state), [], None)
    assert "[spies: Cati 2, Hope 1] [hostage of Cati]" in report
    calm = public_report("g", "A game", engine.view(spied(1, 2)), [], None)
    assert "hostage of" not in calm
