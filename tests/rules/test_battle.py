"""Rule cases: the battle action [Battle, p. 14; Hostage Actions, p. 12]."""

from __future__ import annotations

from positions import Position, act, options, waiting_for

from engine.invariants import violations

AKALI_SIKHS = 38  # Punjab, military, rank 2: battle
WILLIAM_MOORCROFT = 39  # Kandahar, intelligence, rank 1: move, battle
KHYBER_PASS = 29  # Punjab, economic, rank 2: tax, move
BALUCHI_CHIEFS = 44  # Kandahar, political
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]


def cati_and_hope(hope: str = "british") -> Position:
    """Cati (British) holds Akali Sikhs (rank 2 battle); Hope shares her loyalty."""
    return (
        Position({"Cati": "british", "Hope": hope})
        .market(TOP, BOTTOM)
        .favored("intelligence")
        .court("Cati", AKALI_SIKHS)
    )


def battle_in_a_region() -> Position:
    """[Battle examples: In a Region, p. 14] One British army in Kandahar, Hope's tribe, a
    Russian army and a Russian road on a border of Kandahar.
    """
    return (
        cati_and_hope()
        .armies("kandahar", "british", 1)
        .tribes("Hope", "kandahar", 1)
        .armies("kandahar", "russian", 1)
        .roads("kabul-kandahar", "russian", 1)
    )


def test_battle_example_in_a_region_the_enemy_road_or_the_enemy_army() -> None:
    """[Battle examples, p. 14] "Cati is loyal to the British coalition and uses a rank two
    battle action. ... In this region she only has one loyal army, and so can only remove a
    single unit. She cannot remove Hope's tribe (gray) because they share a loyalty. Instead,
    she may eliminate the enemy road or the enemy army."
    """
    state = battle_in_a_region().build()
    assert "battle 38 kandahar" in options(state, "Cati")
    state = act(state, "Cati", "battle 38 kandahar")
    assert waiting_for(state) == ("battle", ["Cati"])
    assert sorted(options(state, "Cati")) == [
        "remove army russian",
        "remove road kabul-kandahar russian",
    ]
    state = act(state, "Cati", "remove road kabul-kandahar russian")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.roads["kabul-kandahar"]["russian"] == 0
    assert state.armies["kandahar"] == {"afghan": 0, "british": 1, "russian": 1}
    assert state.tribes["kandahar"] == [0, 1]
    assert violations(state) == []


def test_battle_example_on_a_court_card_spies_of_the_same_loyalty_then_hostage() -> None:
    """[Battle examples, p. 14] "Cati (blue) selects a card on Hope's court. She removes two
    of Hope's spies—despite the fact that they share the same loyalty! Cati now holds the
    actions on this card hostage."
    """
    state = (
        cati_and_hope()
        .market_rupees(0, 1, 2)
        .market_rupees(1, 1, 1)
        .court("Hope", KHYBER_PASS)
        .spies("Cati", KHYBER_PASS, 2)
        .spies("Hope", KHYBER_PASS, 2)
        .build()
    )
    state = act(state, "Cati", "battle 38 29")
    assert waiting_for(state) == ("battle", ["Cati"])
    state = act(state, "Cati", "remove spy Hope")
    assert state.spies[KHYBER_PASS] == [2, 0]
    assert state.players[1].cylinders == 10
    state = act(state, "Cati", "pass")
    assert waiting_for(state) == ("turn", ["Hope"])
    state = act(state, "Hope", "tax 29")
    assert waiting_for(state) == ("bribe", ["Cati"])
    assert options(state, "Cati") == ["demand 0", "demand 1", "demand 2"]


def test_battle_no_more_removals_than_the_rank() -> None:
    """[Battle, p. 14] "remove any combination of tribes, spies, roads, or armies equal to
    the acting card's rank."
    """
    state = (
        cati_and_hope()
        .court("Cati", WILLIAM_MOORCROFT)
        .armies("kandahar", "british", 3)
        .armies("kandahar", "russian", 3)
        .build()
    )
    state = act(state, "Cati", "battle 39 kandahar")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.armies["kandahar"]["russian"] == 2


def test_battle_no_more_removals_than_your_spies_on_the_card() -> None:
    """[Battle, p. 14] "You cannot remove more units than you yourself have armies or spies
    in that battle."
    """
    state = (
        cati_and_hope("russian")
        .court("Hope", KHYBER_PASS)
        .spies("Cati", KHYBER_PASS, 1)
        .spies("Hope", KHYBER_PASS, 3)
        .build()
    )
    state = act(state, "Cati", "battle 38 29")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.spies[KHYBER_PASS] == [1, 2]


def test_battle_never_armies_or_roads_of_your_loyalty() -> None:
    """[Battle, p. 14] "You cannot remove armies or roads that are of your loyalty."."""
    state = (
        cati_and_hope("russian")
        .armies("kandahar", "british", 2)
        .roads("kandahar-punjab", "british", 1)
        .armies("kandahar", "afghan", 1)
        .roads("herat-kandahar", "afghan", 1)
        .build()
    )
    state = act(state, "Cati", "battle 38 kandahar")
    assert sorted(options(state, "Cati")) == [
        "remove army afghan",
        "remove road herat-kandahar afghan",
    ]


def test_battle_only_roads_on_the_borders_of_the_region() -> None:
    """[Battle, p. 14] "At the site of the battle, remove any combination of tribes, spies,
    roads, or armies" — a road on a border not touching Kandahar is not at the site.
    """
    state = battle_in_a_region().roads("herat-kabul", "russian", 1).build()
    state = act(state, "Cati", "battle 38 kandahar")
    assert "remove road herat-kabul russian" not in options(state, "Cati")


def test_battle_tribes_of_players_of_another_loyalty_with_the_overthrow_rule() -> None:
    """[Battle, p. 14] "You cannot remove tribes belonging to players that share your
    loyalty" — Hope is Russian, so her tribe may go; it is her last in Kandahar, so her
    Kandahar political card is discarded [The Overthrow Rule, p. 8].
    """
    state = (
        cati_and_hope("russian")
        .armies("kandahar", "british", 2)
        .tribes("Hope", "kandahar", 1)
        .court("Hope", BALUCHI_CHIEFS)
        .build()
    )
    state = act(state, "Cati", "battle 38 kandahar")
    assert state.tribes["kandahar"] == [0, 0]
    assert state.players[1].court == []
    assert BALUCHI_CHIEFS in state.discard


def test_battle_only_where_you_have_armies_or_spies() -> None:
    """[Battle, p. 14] "You cannot remove more units than you yourself have armies or spies
    in that battle" — with none at a site, no battle there.
    """
    state = (
        cati_and_hope("russian")
        .armies("kandahar", "russian", 1)
        .armies("kabul", "british", 1)
        .court("Hope", KHYBER_PASS)
        .spies("Hope", KHYBER_PASS, 1)
        .build()
    )
    battles = [o for o in options(state, "Cati") if o.startswith("battle")]
    assert battles == []
