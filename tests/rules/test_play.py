"""Rule cases: the play action, bribes, impact icons and loyalty [Play, p. 11; p. 7]."""

from __future__ import annotations

import pytest
from positions import Position, act, options, waiting_for

import engine
from engine import IllegalActionError
from engine.invariants import violations

SIKH_MERCHANTS = 30  # Punjab, economic: road, spy, leverage
PAOLO_AVITABILE = 26  # Punjab, political: tribe, army
KHYBER_PASS = 29  # Punjab, economic: road, road
SIR_JOHN_KEANE = 51  # Kandahar, British patriot: British army
LAPIS_LAZULI_MINE = 11  # Kabul, Afghan patriot: two Afghan roads
CHARLES_STODDART = 4  # Kabul, Afghan prize
CITY_OF_GHAZNI = 12  # Kabul: road, road, road, army


def play_example(cati_rupees: int = 4) -> Position:
    """Cati (British) holds Sikh Merchants in Lahore; Hope rules Punjab with two tribes."""
    return (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", SIKH_MERCHANTS, KHYBER_PASS)
        .court("Hope", PAOLO_AVITABILE)
        .tribes("Hope", "punjab", 2)
        .rupees("Cati", cati_rupees)
    )


def test_play_example_ruler_commands_a_bribe_up_to_her_tribes() -> None:
    """[Play example, p. 11] "That card is based in Punjab, so to play the card she will
    first need to pay a bribe to the ruler of the Punjab, Hope (gray). Since Hope has two
    tribes in the region, she can command a bribe of up to two rupees".
    """
    state = act(play_example().build(), "Cati", "play sikh left")
    assert waiting_for(state) == ("bribe", ["Hope"])
    assert options(state, "Hope") == ["demand 0", "demand 1", "demand 2"]
    assert state.players[0].hand == [SIKH_MERCHANTS, KHYBER_PASS]


def test_play_example_bribe_road_spy_and_leverage() -> None:
    """[Play example, p. 11] "she can command a bribe of up to two rupees, which she does.
    Cati decides it is worth the expense. ... place a road on either of the connections
    adjacent to Punjab ... As she is loyal to the British, the road will be pink. Then Cati
    will place a spy on any court card associated with Punjab. She opts to place the spy on
    one of Hope's court cards. ... Finally, as the played card is leveraged, Cati will take
    two rupees from the bank."
    """
    state = play_example().build()
    bank = state.bank
    state = act(state, "Cati", "play sikh left")
    state = act(state, "Hope", "demand 2")
    assert waiting_for(state) == ("pay", ["Cati"])
    state = act(state, "Cati", "pay")
    assert waiting_for(state) == ("road", ["Cati"])
    assert sorted(options(state, "Cati")) == ["road kabul-punjab", "road kandahar-punjab"]
    state = act(state, "Cati", "road kandahar-punjab")
    assert waiting_for(state) == ("spy", ["Cati"])
    assert sorted(options(state, "Cati")) == ["spy 26", "spy 30"]
    state = act(state, "Cati", "spy 26")
    cati, hope = state.players
    assert cati.court == [SIKH_MERCHANTS]
    assert state.roads["kandahar-punjab"]["british"] == 1
    assert state.spies[PAOLO_AVITABILE] == [1, 0]
    assert hope.rupees == 4 + 2
    assert cati.rupees == 4 - 2 + 2
    assert state.bank == bank - 2
    assert state.actions_used == 1
    assert waiting_for(state) == ("turn", ["Cati"])
    assert violations(state) == []


def test_play_example_declining_the_bribe_loses_no_action() -> None:
    """[Play example, p. 11] "If she had declined to pay, Cati would not lose an action."
    [Play, p. 11] "If the bribe is not paid (or waived), play continues as if the action had
    never been taken."
    """
    state = act(
        play_example().build(),
        "Cati",
        "play sikh left",
    )
    state = act(state, "Hope", "demand 2")
    state = act(state, "Cati", "refuse")
    cati, hope = state.players
    assert cati.hand == [SIKH_MERCHANTS, KHYBER_PASS]
    assert cati.court == []
    assert cati.rupees == 4 and hope.rupees == 4
    assert state.actions_used == 0
    assert waiting_for(state) == ("turn", ["Cati"])
    assert "play 30 right" in options(state, "Cati")


def test_play_example_road_may_join_other_roads_on_the_border() -> None:
    """[Play example, p. 11] "Cati can place a road on either of the connections adjacent to
    Punjab (even if there are other roads there!)."
    """
    state = play_example().roads("kabul-punjab", "russian", 2).build()
    state = act(
        state,
        "Cati",
        "play sikh left",
    )
    state = act(state, "Hope", "waive")
    assert "road kabul-punjab" in options(state, "Cati")
    state = act(state, "Cati", "road kabul-punjab")
    assert state.roads["kabul-punjab"] == {"afghan": 0, "british": 1, "russian": 2}


def test_play_ruler_may_demand_less_than_the_full_bribe() -> None:
    """[Play, p. 11] "Any portion of this cost can be waived with the permission of the
    ruler."
    """
    state = act(play_example().build(), "Cati", "play sikh right")
    state = act(state, "Hope", "demand 1")
    state = act(state, "Cati", "pay")
    assert state.players[0].court == [SIKH_MERCHANTS]
    assert state.players[1].rupees == 5


def test_play_ruler_may_waive_the_bribe() -> None:
    """[Play, p. 11] "If the bribe is not paid (or waived)" — a waived bribe lets the play
    go ahead with nothing to pay.
    """
    state = act(play_example().build(), "Cati", "play khyber left")
    state = act(state, "Hope", "waive")
    assert waiting_for(state) == ("road", ["Cati"])
    assert state.players[0].court == [KHYBER_PASS]
    assert state.players[1].rupees == 4


def test_play_bribe_demand_above_the_tribes_is_illegal() -> None:
    """[Play, p. 11] "a bribe of rupees ... equal to the number of the ruler's tribes"."""
    state = act(play_example().build(), "Cati", "play sikh left")
    with pytest.raises(IllegalActionError):
        act(state, "Hope", "demand 3")


def test_play_bribe_counts_tribes_not_armies() -> None:
    """[Play, p. 11] "a bribe of rupees to them that is equal to the number of the ruler's
    tribes in that region."
    """
    state = play_example().armies("punjab", "russian", 3).build()
    state = act(state, "Cati", "play khyber left")
    assert options(state, "Hope") == ["demand 0", "demand 1", "demand 2"]


def test_play_bribe_counts_the_ruler_s_tribes_not_every_player_s() -> None:
    """[Play, p. 11] "you must pay a bribe of rupees to them that is equal to the number of
    the ruler's tribes in that region." Cati and Ana have a tribe each in Punjab beside
    Hope's two: Hope still rules it, and may demand two rupees, not four.
    """
    state = (
        Position({"Cati": "british", "Hope": "russian", "Ana": "afghan"})
        .hand("Cati", KHYBER_PASS)
        .court("Hope", PAOLO_AVITABILE)
        .tribes("Hope", "punjab", 2)
        .tribes("Cati", "punjab", 1)
        .tribes("Ana", "punjab", 1)
        .rupees("Cati", 6)
        .build()
    )
    state = act(state, "Cati", "play khyber left")
    assert waiting_for(state) == ("bribe", ["Hope"])
    assert options(state, "Hope") == ["demand 0", "demand 1", "demand 2"]


def test_play_bribe_the_player_cannot_pay_means_no_play() -> None:
    """[Play, p. 11] "If the bribe is not paid (or waived), play continues as if the action
    had never been taken."
    """
    state = act(play_example(cati_rupees=1).build(), "Cati", "play sikh left")
    state = act(state, "Hope", "demand 2")
    assert state.players[0].hand == [SIKH_MERCHANTS, KHYBER_PASS]
    assert state.players[0].rupees == 1
    assert state.actions_used == 0
    assert waiting_for(state) == ("turn", ["Cati"])


def test_play_the_ruler_plays_freely_in_her_own_region() -> None:
    """[Play, p. 11] "If you are the ruler of that card's region ... you can freely play the
    card."
    """
    state = play_example().hand("Hope", 25).active("Hope").build()
    state = act(state, "Hope", "play 25 right")
    assert waiting_for(state) == ("turn", ["Hope"])
    assert state.players[1].court == [PAOLO_AVITABILE, 25]
    assert state.players[1].rupees == 4


def test_play_no_ruler_no_bribe() -> None:
    """[Play, p. 11] "if no one rules the region, you can freely play the card."."""
    state = play_example().tribes("Cati", "punjab", 2).build()
    state = act(state, "Cati", "play khyber left")
    assert waiting_for(state) == ("road", ["Cati"])
    assert state.players[0].rupees == 4


@pytest.mark.parametrize(
    ("side", "court"), [("left", [KHYBER_PASS, 61, 62]), ("right", [61, 62, KHYBER_PASS])]
)
def test_play_to_the_left_or_right_end_of_the_court(side: str, court: list[int]) -> None:
    """[Play, p. 11] "The played card may be added to either the left or right end of your
    court."
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", KHYBER_PASS)
        .court("Cati", 61, 62)
        .build()
    )
    state = act(state, "Cati", f"play khyber {side}", "road kabul-punjab", "road kabul-punjab")
    assert state.players[0].court == court


def test_play_only_a_card_in_hand() -> None:
    """[Play, p. 11] "Play any card from your hand to your court."."""
    state = play_example().build()
    with pytest.raises(IllegalActionError) as caught:
        act(state, "Cati", "play 26 left")
    assert caught.value.code == "not-in-hand"


def test_play_court_may_exceed_its_limit_during_the_turn() -> None:
    """[Your Court, p. 6] "While your court can grow to any size during your turn, during
    cleanup you must discard cards from your court".
    """
    state = (
        Position({"Cati": "british", "Hope": "russian"})
        .hand("Cati", 63)
        .court("Cati", 61, 62, 64)
        .build()
    )
    state = act(state, "Cati", "play 63 right", *["road herat-kabul"] * 3)
    assert len(state.players[0].court) == 4
    assert waiting_for(state) == ("turn", ["Cati"])


def test_loyalty_change_example_playing_a_foreign_patriot() -> None:
    """[Loyalty Change Example, p. 7] "Blake is loyal to the Afghan coalition. He has one
    gift, one prize, and one patriot. Nevertheless, he decides to change loyalty. He plays
    the patriot "Sir John Keane." At this moment, he loses his gift, his prize, and his
    patriot." [Play, p. 11] "If the card is a patriot that does not match your loyalty,
    discard all of your patriots and prizes, and remove any gifts. Then adjust your loyalty
    dial to match that of the patriot."
    """
    state = (
        Position({"Blake": "afghan", "Hope": "russian"})
        .hand("Blake", SIR_JOHN_KEANE)
        .court("Blake", LAPIS_LAZULI_MINE, 61)
        .prizes("Blake", CHARLES_STODDART)
        .gifts("Blake", 1)
        .build()
    )
    assert engine.view(state)["players"][0]["influence"] == 4
    state = act(state, "Blake", "play sir john keane right")
    blake = state.players[0]
    assert blake.loyalty == "british"
    assert blake.gifts == [False, False, False]
    assert blake.cylinders == 10
    assert blake.prizes == []
    assert blake.court == [61, SIR_JOHN_KEANE]
    assert {LAPIS_LAZULI_MINE, CHARLES_STODDART} <= set(state.discard)
    assert state.armies["kandahar"] == {"afghan": 0, "british": 1, "russian": 0}
    assert engine.view(state)["players"][0]["influence"] == 2
    assert violations(state) == []


def test_play_patriot_of_own_coalition_keeps_gifts_prizes_and_patriots() -> None:
    """[Loyalty and Influence, p. 7] "your total influence is the sum of one plus the number
    of patriots in your court, the number of your prizes, and the number of your gifts."
    Only a patriot of a different coalition changes loyalty [p. 11].
    """
    state = (
        Position({"Blake": "afghan", "Hope": "russian"})
        .hand("Blake", 58)
        .court("Blake", LAPIS_LAZULI_MINE)
        .prizes("Blake", CHARLES_STODDART)
        .gifts("Blake", 1)
        .build()
    )
    state = act(state, "Blake", "play 58 left")
    blake = state.players[0]
    assert blake.loyalty == "afghan"
    assert blake.prizes == [CHARLES_STODDART]
    assert blake.gifts == [True, False, False]
    assert blake.court == [58, LAPIS_LAZULI_MINE]
    assert engine.view(state)["players"][0]["influence"] == 5


def test_play_non_patriot_does_not_change_loyalty() -> None:
    """[Play, p. 11] only "a patriot that does not match your loyalty" changes it."""
    state = (
        Position({"Blake": "afghan", "Hope": "russian"})
        .hand("Blake", 61)
        .court("Blake", LAPIS_LAZULI_MINE)
        .gifts("Blake", 2)
        .build()
    )
    state = act(state, "Blake", "play 61 left", "road herat-kabul", "road herat-kabul")
    assert state.players[0].loyalty == "afghan"
    assert state.players[0].gifts == [True, True, False]
    assert state.players[0].court == [61, LAPIS_LAZULI_MINE]


def test_play_impact_icons_resolve_from_top_to_bottom() -> None:
    """[Play, p. 11] "After a card is played, resolve each impact icon on the right side of
    the card from top to bottom." (City of Ghazni: road, road, road, army.)
    """
    state = Position({"Cati": "british", "Hope": "russian"}).hand("Cati", CITY_OF_GHAZNI).build()
    state = act(state, "Cati", "play city of ghazni left")
    for placed in range(3):
        assert waiting_for(state) == ("road", ["Cati"])
        assert sum(r["british"] for r in state.roads.values()) == placed
        assert state.armies["kabul"]["british"] == 0
        state = act(state, "Cati", "road kabul-punjab")
    assert state.roads["kabul-punjab"]["british"] == 3
    assert state.armies["kabul"]["british"] == 1


def test_play_road_icon_any_border_of_the_card_region() -> None:
    """[Play, p. 11] road icon: "Place one coalition block of your loyalty on any border of
    this region. This piece is now a road."
    """
    state = Position({"Cati": "british", "Hope": "russian"}).hand("Cati", CITY_OF_GHAZNI).build()
    state = act(state, "Cati", "play city of ghazni left")
    assert sorted(options(state, "Cati")) == [
        "road herat-kabul",
        "road kabul-kandahar",
        "road kabul-punjab",
        "road kabul-transcaspia",
    ]
    state = act(state, "Cati", "road kabul-transcaspia")
    assert state.roads["kabul-transcaspia"]["british"] == 1
    assert state.block_supply["british"] == 11


def test_play_army_icon_places_a_block_of_your_loyalty_in_the_region() -> None:
    """[Play, p. 11] army icon: "Place one coalition block of your loyalty in this region.
    This piece is now an army."
    """
    state = Position({"Cati": "afghan", "Hope": "russian"}).hand("Cati", 15).build()
    state = act(state, "Cati", "play 15 left")
    assert state.armies["kabul"] == {"afghan": 1, "british": 0, "russian": 0}
    assert state.block_supply["afghan"] == 11


def test_play_tribe_icon_places_a_cylinder_in_the_region() -> None:
    """[Play, p. 11] tribe icon: "Place one of your cylinders in this region. This piece is
    now a tribe."
    """
    state = Position({"Cati": "afghan", "Hope": "russian"}).hand("Cati", 57).build()
    state = act(state, "Cati", "play 57 left")
    assert state.tribes["herat"] == [1, 0]
    assert state.players[0].cylinders == 9


def test_play_spy_icon_any_court_card_of_the_region_in_any_court() -> None:
    """[Play, p. 11] spy icon: "Place one of your cylinders on a card in any player's court
    that matches the played card's region. This piece is now a spy."
    """
    state = (
        Position({"Cati": "british", "Hope": "russian", "Blake": "afghan"})
        .hand("Cati", 39)
        .court("Cati", 40, 61)
        .court("Hope", 41, 62)
        .court("Blake", 43)
        .build()
    )
    state = act(state, "Cati", "play 39 right")
    assert sorted(options(state, "Cati")) == ["spy 39", "spy 40", "spy 41", "spy 43"]
    state = act(state, "Cati", "spy 43")
    assert state.spies[43] == [1, 0, 0]
    assert state.players[0].cylinders == 9


def test_play_leverage_icon_takes_two_rupees_from_the_bank() -> None:
    """[Play, p. 11] leverage icon: "Take two rupees from the bank. This card is leveraged." """
    state = Position({"Cati": "british", "Hope": "russian"}).hand("Cati", 27).build()
    bank = state.bank
    state = act(state, "Cati", "play 27 left")
    assert state.players[0].rupees == 6
    assert state.bank == bank - 2


@pytest.mark.parametrize(
    ("card", "suit"), [(10, "military"), (19, "economic"), (31, "intelligence")]
)
def test_play_favored_suit_icon_moves_the_marker(card: int, suit: str) -> None:
    """[Play, p. 11] "Move the favored suit marker to the suit indicated."."""
    state = Position({"Cati": "british", "Hope": "russian"}).hand("Cati", card).build()
    state = act(state, "Cati", f"play {card} left")
    while (waiting := waiting_for(state)) is None or waiting[0] in ("road", "spy"):
        assert waiting is not None, "the game ended"
        state = act(state, "Cati", options(state, "Cati")[0])
    assert state.favored == suit


def test_play_policy_waive_makes_the_ruler_decision_automatic() -> None:
    """[Play, p. 11] "Any portion of this cost can be waived with the permission of the
    ruler" — given in advance as a standing policy, `policy waive PLAYER`.
    """
    state = play_example().build()
    hope = state.seat("Hope")
    state = engine.apply(state, "Hope", engine.parse_action("policy waive Cati", state, hope))
    state = act(state, "Cati", "play sikh left")
    assert waiting_for(state) == ("road", ["Cati"])
    assert state.players[0].court == [SIKH_MERCHANTS]
    assert state.players[1].rupees == 4


def test_play_policy_demand_caps_the_bribe() -> None:
    """[Play, p. 11] the ruler may demand part of the bribe: `policy demand PLAYER N`."""
    state = play_example().build()
    state = engine.apply(state, "Hope", engine.Action("policy", ("demand", "Cati", 1)))
    state = act(state, "Cati", "play sikh left")
    assert waiting_for(state) == ("pay", ["Cati"])
    state = act(state, "Cati", "pay")
    assert state.players[1].rupees == 5


def test_play_policy_pay_pays_bribes_up_to_the_limit() -> None:
    """[Play, p. 11] the player decides whether to pay; `policy pay 1` pays bribes up to 1."""
    state = play_example().build()
    cati = state.seat("Cati")
    state = engine.apply(state, "Cati", engine.parse_action("policy pay 1", state, cati))
    state = act(state, "Cati", "play sikh left")
    state = act(state, "Hope", "demand 1")
    assert waiting_for(state) == ("road", ["Cati"])
    assert state.players[1].rupees == 5
    assert state.players[0].court == [SIKH_MERCHANTS]


def test_play_policy_pay_refuses_larger_bribes() -> None:
    """[Play, p. 11] "If the bribe is not paid ... play continues as if the action had never
    been taken" — `policy pay 1` refuses a bribe of 2.
    """
    state = play_example().build()
    state = engine.apply(state, "Cati", engine.Action("policy", ("pay", 1)))
    state = act(state, "Cati", "play sikh left")
    state = act(state, "Hope", "demand 2")
    assert waiting_for(state) == ("turn", ["Cati"])
    assert state.players[0].hand == [SIKH_MERCHANTS, KHYBER_PASS]
    assert state.players[1].rupees == 4
    assert state.actions_used == 0


def test_play_policy_clear_asks_again() -> None:
    """A standing policy can be withdrawn (`policy clear`); the ruler is then asked."""
    state = play_example().build()
    state = engine.apply(state, "Hope", engine.Action("policy", ("demand", "Cati", 0)))
    state = engine.apply(state, "Hope", engine.Action("policy", ("clear",)))
    state = act(state, "Cati", "play sikh left")
    assert waiting_for(state) == ("bribe", ["Hope"])


def test_loyalty_change_discarded_patriots_follow_the_discard_rules() -> None:
    """[Loyalty and Influence, p. 7] "discard any prizes and patriots you had previously
    accumulated"; [Discarding a Card in Your Court, p. 8] a leveraged card costs two rupees;
    [The Overthrow Rule, p. 8] losing the last political card of a region removes the tribes
    there. (Barakzai Sadars: Afghan patriot, Kandahar, political, leveraged.)
    """
    state = (
        Position({"Blake": "afghan", "Hope": "russian"})
        .hand("Blake", SIR_JOHN_KEANE)
        .court("Blake", 42)
        .tribes("Blake", "kandahar", 2)
        .rupees("Blake", 5)
        .build()
    )
    state = act(state, "Blake", "play sir john keane left")
    blake = state.players[0]
    assert blake.loyalty == "british"
    assert blake.court == [SIR_JOHN_KEANE]
    assert 42 in state.discard
    assert state.tribes["kandahar"] == [0, 0]
    assert blake.rupees == 3
    assert state.armies["kandahar"]["british"] == 1
