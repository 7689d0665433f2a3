"""Rule cases: the move action [Move, p. 14]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

from engine.invariants import violations

FARAH_ROAD = 63  # Herat, economic, rank 3: move
AFGHAN_HANDICRAFTS = 9  # Kabul, economic, rank 1: tax, move
KHYBER_PASS = 29  # Punjab, economic, rank 2
KARAKUL_SHEEP = 61  # Herat, economic, rank 2
BANK = 46  # Kandahar, economic, rank 2
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]


def move_example() -> Position:
    """[Move example, p. 14] Blake (Russian) holds Farah Road (rank 3). The courts, in seat
    order, form the track 63 | 29 61 | 46; Blake has a spy on Hope's Bank and a Russian army
    in Herat, with a yellow (Russian) road to Kabul.
    """
    return (
        Position({"Blake": "russian", "Cati": "british", "Hope": "afghan"})
        .market(TOP, BOTTOM)
        .favored("intelligence")
        .court("Blake", FARAH_ROAD)
        .court("Cati", KHYBER_PASS, KARAKUL_SHEEP)
        .court("Hope", BANK)
        .spies("Blake", BANK, 1)
        .armies("herat", "russian", 1)
        .roads("herat-kabul", "russian", 1)
    )


def test_move_example_spy_two_cards_then_the_army_across_a_yellow_road() -> None:
    """[Move example, p. 14] "Blake (red) takes a rank three move action. He is loyal to the
    Russian coalition. With his first two moves, he moves his spy two cards counter-
    clockwise. Then, with his final move, he moves his army to an adjacent region using a
    yellow road."
    """
    state = act(move_example().build(), "Blake", "move 63")
    assert waiting_for(state) == ("move", ["Blake"])
    assert sorted(options(state, "Blake")) == [
        "march army herat kabul",
        "march spy 46 61",
        "march spy 46 63",
    ]
    state = act(state, "Blake", "march spy 46 61", "march spy 61 29")
    assert state.spies == {KHYBER_PASS: [1, 0, 0]}
    state = act(state, "Blake", "march army herat kabul")
    assert state.armies["herat"]["russian"] == 0
    assert state.armies["kabul"]["russian"] == 1
    assert waiting_for(state) == ("turn", ["Blake"])
    assert state.actions_used == 1
    assert violations(state) == []


def test_move_army_needs_a_road_of_its_coalition_on_the_border() -> None:
    """[Move, p. 14] "To move an army from one region to an adjacent region there must be a
    road matching the loyalty of the moving army on the border being crossed."
    """
    state = (
        move_example()
        .roads("herat-kandahar", "british", 1)
        .roads("herat-persia", "afghan", 1)
        .roads("herat-transcaspia", "russian", 1)
        .build()
    )
    state = act(state, "Blake", "move 63")
    armies = sorted(o for o in options(state, "Blake") if o.startswith("march army"))
    assert armies == ["march army herat kabul", "march army herat transcaspia"]


def test_move_only_loyal_armies_move() -> None:
    """[Move, p. 14] "For each rank of the acting card you may move one loyal army or spy."
    The Afghan army on an Afghan road is not Blake's to move.
    """
    state = (
        move_example()
        .armies("persia", "afghan", 1)
        .roads("herat-persia", "afghan", 1)
        .roads("persia-transcaspia", "afghan", 1)
        .build()
    )
    state = act(state, "Blake", "move 63")
    assert not [o for o in options(state, "Blake") if "persia" in o]


def test_move_roads_may_be_crossed_in_either_direction() -> None:
    """[Move, p. 14] "there must be a road matching the loyalty of the moving army on the
    border being crossed" — whichever way it is crossed.
    """
    state = move_example().armies("kabul", "russian", 1).build()
    state = act(state, "Blake", "move 63")
    assert "march army kabul herat" in options(state, "Blake")


def test_move_the_same_unit_can_be_moved_multiple_times() -> None:
    """[Move, p. 14] "The same unit can be moved multiple times on a single turn."."""
    state = move_example().roads("kabul-punjab", "russian", 1).build()
    state = act(state, "Blake", "move 63", "march army herat kabul", "march army kabul punjab")
    assert state.armies["punjab"]["russian"] == 1
    state = act(state, "Blake", "march army punjab kabul")
    assert state.armies["kabul"]["russian"] == 1
    assert waiting_for(state) == ("turn", ["Blake"])


def test_move_one_move_per_rank() -> None:
    """[Move, p. 14] "For each rank of the acting card you may move one loyal army or
    spy." A rank-1 card gives one move.
    """
    state = move_example().court("Blake", AFGHAN_HANDICRAFTS).build()
    state = act(state, "Blake", "move 9", "march spy 46 61")
    assert waiting_for(state) == ("turn", ["Blake"])
    assert state.spies == {KARAKUL_SHEEP: [1, 0, 0]}
    assert state.armies["herat"]["russian"] == 1


def test_move_spies_travel_from_one_court_to_the_next() -> None:
    """[Move, p. 14] "Spies move along cards in the players' courts (clockwise or
    counter-clockwise), as if they formed a single continuous track around the area of
    play." From the right end of Blake's court the next card is the left end of Cati's.
    """
    state = move_example().spies("Blake", FARAH_ROAD, 1).build()
    state = act(state, "Blake", "move 63")
    spies = sorted(o for o in options(state, "Blake") if o.startswith("march spy 63"))
    assert spies == ["march spy 63 29", "march spy 63 46"]
    state = act(state, "Blake", "march spy 63 29")
    assert state.spies[KHYBER_PASS] == [1, 0, 0]


def test_move_spies_track_wraps_around_the_area_of_play() -> None:
    """[Move, p. 14] "as if they formed a single continuous track around the area of play":
    past the last player's court the track goes on with the first player's.
    """
    state = act(move_example().build(), "Blake", "move 63", "march spy 46 63")
    assert state.spies == {FARAH_ROAD: [1, 0, 0]}
    state = act(state, "Blake", "march spy 63 46")
    assert state.spies == {BANK: [1, 0, 0]}


def test_move_no_move_action_with_nothing_to_move() -> None:
    """[Move, p. 14] "you may move one loyal army or spy" — with none, no move action."""
    state = (
        Position({"Blake": "russian", "Cati": "british"})
        .market(TOP, BOTTOM)
        .court("Blake", FARAH_ROAD)
        .court("Cati", KHYBER_PASS)
        .armies("herat", "russian", 1)
        .build()
    )
    assert "move 63" not in options(state, "Blake")
