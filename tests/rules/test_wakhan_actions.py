"""Rule cases: Wakhan's card-based actions, card priority and impact icons
[Playing with Wakhan: Card Priority, p. 16; Radicalize, p. 17; Card-Based Actions, p. 18].
"""

from __future__ import annotations

import pytest
from positions import waiting_for
from test_wakhan import WAKHAN, WakhanPosition, logged, wakhan_does, wakhan_turn, wseat

import engine
from engine import Action
from engine.cards import Coalition
from engine.rules.wakhan_deck import arrow_target, red_arrow
from engine.rules.wakhan_priority import best_card

EMPTY = [None] * 6
IMPERIAL_SURVEYORS = 87  # Transcaspia, intelligence, rank 1: move, gift, build
GHILZAI_NOMADS = 13  # Kabul, economic, rank 2: tax, move


def test_card_priority_opponents_card_then_favored_suit_and_so_on() -> None:
    """[Card Priority, p. 16] "High: Opponent's card, Matches favored suit, Patriot of the
    dominant coalition, Has a prize that matches the dominant coalition, Other Patriot,
    Leveraged, Highest Ranking, Low: Highest numbered card."
    """
    position = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 5, 84)  # her own cards
        .court("alice", 9, 13, 14, 37, 24)
        .favored("political")
        .armies("kabul", "british", 5)  # the British are dominant
    )
    state = position.build()
    w = wseat(state)
    assert best_card(state, w, [5, 84, 9]) == 9  # an opponent's card first
    assert best_card(state, w, [9, 24]) == 24  # political is favored
    state.favored = "military"
    assert best_card(state, w, [9, 13, 14, 37, 24]) == 37  # military, British patriot
    state.favored = "intelligence"
    assert best_card(state, w, [9, 13, 14, 37]) == 37  # patriot of the dominant coalition
    assert best_card(state, w, [9, 13, 14]) == 14  # leveraged before rank
    assert best_card(state, w, [9, 13]) == 13  # the higher rank
    assert best_card(state, w, [5, 84]) == 84  # her own: another patriot


def test_card_priority_the_favored_suit_before_a_patriot_of_the_dominant_coalition() -> None:
    """[Card Priority, p. 16] "Wakhan will first look for cards with her spies on her
    opponent's courts. If there is more than one option, she will prioritize those that match
    the favored suit. If there is still more than one option, she will look for patriots of
    the dominant coalition etc." The British are dominant and economic is favored: of
    alice's Ghilzai Nomads (economic) and Seaforth Highlanders (military, a British
    patriot), she betrays Ghilzai Nomads.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 16)  # Bala Hissar: betray
        .court("alice", 37, 13)  # Seaforth Highlanders; Ghilzai Nomads (Russian prize)
        .spies(WAKHAN, 37, 1)
        .spies(WAKHAN, 13, 1)
        .armies("kabul", "british", 5)  # the British are dominant
        .favored("economic")
        .rupees(WAKHAN, 2)
        .build()
    )
    w = wseat(state)
    assert best_card(state, w, [37, 13]) == 13
    state, _ = wakhan_does(state, "betray")
    assert state.players[wseat(state)].prizes == [13]
    assert state.players[0].court == [37]


def test_she_uses_the_highest_priority_card_that_could_take_the_action() -> None:
    """[Card-Based Actions, p. 18] "When selecting which card on her court will be used to
    take the listed action, Wakhan will always use the highest priority card among those
    that could legally take the action." Kabul Bazaar (rank 2) before Afghan Handicrafts.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 9, 8)
        .market(EMPTY, [62, *EMPTY[1:]])
        .market_rupees(1, 0, 3)
        .build()
    )
    state, kind = wakhan_does(state, "tax")
    assert kind == "core"
    assert logged(state, "Wakhan will tax with Kabul Bazaar")
    assert state.players[wseat(state)].rupees == 6


# -- tax ---------------------------------------------------------------------------------------


def tax_position(humans: dict[str, Coalition]) -> WakhanPosition:
    """Wakhan rules Kabul and taxes with Kabul Bazaar (rank 2); rupees lie on the market."""
    position = (
        WakhanPosition(humans)
        .court(WAKHAN, 7, 8)  # Dost Mohammad keeps her Kabul tribe; Kabul Bazaar taxes
        .tribes(WAKHAN, "kabul", 1)
        .market([61, 62, *EMPTY[2:]], EMPTY)
        .market_rupees(0, 0, 2)
    )
    for name in humans:
        position.court(name, 16 if name == "alice" else 15)  # Kabul military cards
    return position


def test_tax_players_before_market_cards_the_richest_first() -> None:
    """[Tax, p. 18] "Wakhan will always tax players instead of market cards if able. She
    will always tax from players with the most rupees first."
    """
    position = tax_position({"alice": "british", "bob": "afghan"}).rupees("alice", 3)
    state = position.rupees("bob", 6).build()
    state, _ = wakhan_does(state, "tax")
    assert [state.players[state.seat(n)].rupees for n in ("alice", "bob")] == [3, 4]
    assert state.market_rupees[0][0] == 2


def test_tax_ties_between_players_go_by_the_red_arrow() -> None:
    """[Tax, p. 18] "If both players are tied, use the red arrow to determine which player
    is targeted." The red arrow's "top" points at the human who plays just before her.
    """
    position = tax_position({"alice": "british", "bob": "afghan"}).rupees("alice", 5)
    state = position.rupees("bob", 5).build()
    target = arrow_target(state)
    n = state.num_players
    assert target == (wseat(state) + (-1 if red_arrow(state) == "top" else 1)) % n
    state, _ = wakhan_does(state, "tax")
    # The first rupee comes from the arrow's player; the second from the other, now richer.
    assert [p.rupees for s, p in enumerate(state.players) if s != wseat(state)] == [4, 4]
    assert logged(state, f"wakhan took a rupee from {state.name(target)}")
    first = next(line for line in state.log if line.startswith("wakhan took a rupee"))
    assert first.endswith(state.name(target))


def test_tax_the_market_when_no_player_can_be_taxed_leftmost_cards_first() -> None:
    """[Tax, p. 18] "If no players can be taxed, she will tax from the market, taking rupees
    from the leftmost market cards and using the red arrow to determine ties." Red arrow
    top: the top row first.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 8)
        .market([None, None, 61, None, 63, None], [None, None, 62, None, None, None])
        .market_rupees(0, 2, 1)
        .market_rupees(1, 2, 1)
        .market_rupees(0, 4, 1)
        .build()
    )
    assert red_arrow(state) == "top"
    state, _ = wakhan_does(state, "tax")
    assert state.market_rupees[0][2] == state.market_rupees[1][2] == 0
    assert state.market_rupees[0][4] == 1


@pytest.mark.parametrize(("face_up", "following", "arrow"), [(1, 2, "top"), (3, 4, "bottom")])
def test_tax_the_market_ties_the_red_arrow_s_row_first(
    face_up: int, following: int, arrow: str
) -> None:
    """[Tax, p. 18] "she will tax from the market, taking rupees from the leftmost market
    cards and using the red arrow to determine ties." Both cards of column 2 hold two
    rupees; Kabul Bazaar (rank 2) takes both of the red arrow's row and none of the other.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .ai(face_up, following)
        .court(WAKHAN, 8)
        .market([None, None, 61, *EMPTY[3:]], [None, None, 62, *EMPTY[3:]])
        .market_rupees(0, 2, 2)
        .market_rupees(1, 2, 2)
        .build()
    )
    assert red_arrow(state) == arrow
    state, _ = wakhan_does(state, "tax")
    left = [state.market_rupees[row][2] for row in (0, 1)]
    assert left == ([0, 2] if arrow == "top" else [2, 0])


# -- build, gift -------------------------------------------------------------------------------


def test_build_armies_in_the_leftmost_region_she_rules_spending_as_much_as_possible() -> None:
    """[Build, p. 18] "Wakhan will build armies in the leftmost region as listed on the AI
    card that she rules. She will spend as much of her money as possible." AI card 1 lists
    transcaspia, kabul, kandahar, ...; she rules Kandahar and Punjab.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 44, 24, 49)  # Kandahar and Punjab political cards; Kandahari Markets
        .tribes(WAKHAN, "kandahar", 1)
        .tribes(WAKHAN, "punjab", 1)
        .rupees(WAKHAN, 5)
        .build()
    )
    state, _ = wakhan_does(state, "build")
    assert state.armies["kandahar"]["russian"] == 2
    assert state.armies["punjab"]["russian"] == 0
    assert state.players[wseat(state)].rupees == 1
    assert logged(state, "she builds armies in kandahar")


def test_build_is_not_valid_where_she_rules_nothing() -> None:
    state = WakhanPosition({"alice": "british"}).court(WAKHAN, 49).rupees(WAKHAN, 5).build()
    state, kind = wakhan_does(state, "build")
    assert kind is None and state.players[wseat(state)].rupees == 5


def test_may_abilities_infrastructure_is_always_used() -> None:
    """[General Rules, p. 16] "If Wakhan's court cards have a Special Ability that says she
    'may' do something, Wakhan always will." Civic Improvements: a free block after a build.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 75, 78)  # Abbas Mirza keeps her Persia tribe; Civic Improvements
        .tribes(WAKHAN, "persia", 1)
        .rupees(WAKHAN, 2)
        .build()
    )
    state, _ = wakhan_does(state, "build")
    assert state.armies["persia"]["russian"] == 2
    assert state.players[wseat(state)].rupees == 0


def test_gift_the_cheapest_gift_she_can_afford() -> None:
    """[Gift, p. 18] "Wakhan will buy the cheapest gift she can afford to buy, placing it on
    her aid card." Her 2-rupee space is taken: the 4-rupee gift needs 4 rupees.
    """
    position = WakhanPosition({"alice": "british"}).court(WAKHAN, 58).gifts(WAKHAN, 1)
    position.favored("political").ai(9, 7, 5).market(EMPTY, EMPTY)
    state = wakhan_turn(position.rupees(WAKHAN, 3).build())
    assert state.players[wseat(state)].gifts == [True, False, False]
    state = wakhan_turn(position.rupees(WAKHAN, 4).build())
    assert state.players[wseat(state)].gifts == [True, True, False]


# -- move --------------------------------------------------------------------------------------


def test_move_armies_without_roads_towards_other_players_tribes() -> None:
    """[Move, p. 18] "Wakhan only moves armies and does not require any roads to facilitate
    movement. ... she will only move her armies to adjacent regions where other players have
    tribes ... She will seek to have only as many armies as there are tribes in that
    region." Ghilzai Nomads (rank 2) may move twice; one army is enough in Punjab.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 13)
        .armies("kabul", "russian", 2)
        .tribes("alice", "punjab", 1)
        .build()
    )
    state, kind = wakhan_does(state, "move")
    assert kind == "core"
    assert state.armies["kabul"]["russian"] == 1
    assert state.armies["punjab"]["russian"] == 1


def test_move_never_loses_her_a_region_she_rules() -> None:
    """[Move, p. 18] "Wakhan will not move Armies if doing so would cause her to lose a
    ruler token." In Kabul she has a tribe and three Russian armies against alice's tribe and
    two British armies: one army fewer and she would rule no more.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 13, 7)
        .tribes(WAKHAN, "kabul", 1)
        .armies("kabul", "russian", 3)
        .tribes("alice", "kabul", 1)
        .armies("kabul", "british", 2)
        .tribes("alice", "punjab", 1)
        .build()
    )
    state, kind = wakhan_does(state, "move")
    assert kind is None
    assert state.armies["kabul"]["russian"] == 3


# -- betray ------------------------------------------------------------------------------------


def test_betray_the_highest_priority_card_with_a_prize_and_take_the_prize() -> None:
    """[Betray, p. 18] "Wakhan will betray the highest priority card with a loyalty prize
    where she also has a spy, including those in her court. She will always take the loyalty
    prize." An opponent's card first; her loyalty does not change.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 16, 44)  # Bala Hissar (betray); Baluchi Chiefs (Russian prize)
        .court("alice", 25, 9)  # Josiah Harlan (British prize); Afghan Handicrafts (none)
        .spies(WAKHAN, 25, 1)
        .spies(WAKHAN, 9, 1)
        .spies(WAKHAN, 44, 1)
        .rupees(WAKHAN, 2)
        .build()
    )
    state, _ = wakhan_does(state, "betray")
    wakhan = state.players[wseat(state)]
    assert wakhan.prizes == [25] and 25 not in state.players[0].court
    assert wakhan.loyalty == "russian"
    assert logged(state, "Wakhan always takes the loyalty prize")


def test_betray_a_card_in_her_own_court() -> None:
    """[Betray, p. 18] "... including those in her court."."""
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 16, 44)
        .spies(WAKHAN, 44, 1)
        .rupees(WAKHAN, 2)
        .build()
    )
    state, _ = wakhan_does(state, "betray")
    assert state.players[wseat(state)].prizes == [44]


# -- battle ------------------------------------------------------------------------------------


def test_battle_in_the_leftmost_region_tribes_then_armies_then_roads() -> None:
    """[Battle, p. 18] "Wakhan will battle in the region where another player has pieces
    (tribes, loyal armies or roads) and she has at least one army. ... use the leftmost
    region as listed on the AI card. Once the region is chosen she will try to destroy
    tribes, armies, and roads in that order." AI card 3 lists Punjab first. The Afghan army
    is no other player's: she leaves it.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .ai(3, 4)
        .court(WAKHAN, 35)  # Hari Singh Nalwa: battle, rank 2
        .armies("punjab", "russian", 3)
        .armies("kabul", "russian", 3)
        .tribes("alice", "kabul", 1)
        .roads("kandahar-punjab", "british", 1)
        .armies("punjab", "afghan", 1)
        .tribes("alice", "punjab", 1)
        .build()
    )
    state, _ = wakhan_does(state, "battle")
    assert logged(state, "punjab is the leftmost region on her AI card where she can battle")
    assert state.tribes["punjab"][0] == 0
    assert state.roads["kandahar-punjab"]["british"] == 0
    assert state.armies["punjab"]["afghan"] == 1
    assert state.tribes["kabul"][0] == 1


def test_battle_the_red_arrow_decides_whose_pieces_go_first() -> None:
    """[Battle, p. 18] "If multiple players can be targeted in a battle action, use the red
    arrow to determine which player is targeted." Rank 1: one tribe goes.
    """
    state = (
        WakhanPosition({"alice": "british", "bob": "afghan"})
        .ai(3, 4)
        .court(WAKHAN, 34)  # Sindhi Warriors: battle, rank 1
        .armies("punjab", "russian", 2)
        .tribes("alice", "punjab", 1)
        .tribes("bob", "punjab", 1)
        .build()
    )
    target = arrow_target(state)
    state, _ = wakhan_does(state, "battle")
    assert state.tribes["punjab"][target] == 0
    assert sum(state.tribes["punjab"]) == 1


def test_battle_on_a_court_card_when_no_region_qualifies() -> None:
    """[Battle, p. 18] "If no region is chosen, she will battle on the highest priority
    court card where she and another player have spies."
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 34)
        .court("alice", 9, 13)
        .spies(WAKHAN, 9, 1)
        .spies("alice", 9, 1)
        .spies(WAKHAN, 13, 1)
        .build()
    )
    state, _ = wakhan_does(state, "battle")
    assert 9 not in state.spies or state.spies[9][0] == 0
    assert logged(state, "Afghan Handicrafts is the card she battles on")


def test_battle_not_on_a_card_whose_spies_indispensable_advisors_protects() -> None:
    """[Battle, p. 18] "she will battle on the highest priority court card where she and
    another player have spies." [Mohan Lal (1), Indispensable Advisors] "Your spies cannot
    be removed when a battle is fought against other spies." alice holds Mohan Lal: her spy
    on Ghilzai Nomads (rank 2) cannot be removed, so Wakhan battles on Afghan Handicrafts
    (rank 1), where bob's spy can be; without bob's spy there, she has no battle to take.
    """

    def advised(bob_spies: int) -> WakhanPosition:
        position = (
            WakhanPosition({"alice": "british", "bob": "afghan"})
            .court(WAKHAN, 34)  # Sindhi Warriors: battle, rank 1
            .court("alice", 1, GHILZAI_NOMADS)  # Mohan Lal: Indispensable Advisors
            .court("bob", 9)  # Afghan Handicrafts
            .spies(WAKHAN, GHILZAI_NOMADS, 1)
            .spies("alice", GHILZAI_NOMADS, 1)
            .spies(WAKHAN, 9, 1)
        )
        return position.spies("bob", 9, bob_spies) if bob_spies else position

    state, kind = wakhan_does(advised(bob_spies=1).build(), "battle")
    assert kind == "core"
    assert logged(state, "Afghan Handicrafts is the card she battles on")
    alice, bob = state.seat("alice"), state.seat("bob")
    assert state.spies[9][bob] == 0
    assert state.spies[GHILZAI_NOMADS][alice] == 1
    state, kind = wakhan_does(advised(bob_spies=0).build(), "battle")
    assert kind is None
    assert not logged(state, "Wakhan will battle")


def test_battle_on_the_most_spied_card_where_she_has_a_spy() -> None:
    """AI cards 14, 16, 22, 24: "Battle on a court card where Wakhan has at least one spy:
    the one with the most spies, highest card priority first."
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 34)
        .court("alice", 13, 9)
        .spies(WAKHAN, 13, 1)
        .spies("alice", 13, 1)
        .spies(WAKHAN, 9, 1)
        .spies("alice", 9, 2)
        .build()
    )
    state, kind = wakhan_does(state, "battle_on_most_spied_card_with_wakhan_spy")
    assert kind == "core"
    assert state.spies[9] == [1, 1] and state.spies[13] == [1, 1]


# -- impact icons and abilities ----------------------------------------------------------------


def test_spies_on_the_highest_priority_cards_where_she_does_not_have_the_most_spies() -> None:
    """[Radicalize, p. 17] "Wakhan's Spies. Place spies on the highest priority cards
    associated with the played card's region where Wakhan does not have the most spies."
    Ghilzai Nomads (rank 2) comes first, but her spy there is already the most.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court("alice", 9, 13)
        .spies(WAKHAN, 13, 1)
        .market([4, *EMPTY[1:]], EMPTY)  # Charles Stoddart: Kabul, one spy icon
        .build()
    )
    state, _ = wakhan_does(state, "radicalize_any_intelligence")
    assert state.spies[9] == [0, 1]
    assert logged(state, "where she does not have the most spies")


def test_roads_on_consecutive_borders_following_the_region_priority() -> None:
    """[Radicalize, p. 17] "Wakhan's Roads. Place roads on consecutive borders following the
    region priority on the AI card (leftmost first)." City of Ghazni (Kabul, three roads);
    AI card 1: transcaspia, kabul, kandahar, persia, herat, punjab.
    """
    state = WakhanPosition({"alice": "british"}).market([12, *EMPTY[1:]], EMPTY).build()
    state, _ = wakhan_does(state, "radicalize_most_armies_roads")
    roads = {b: c["russian"] for b, c in state.roads.items() if c["russian"]}
    assert roads == {"kabul-transcaspia": 1, "kabul-kandahar": 1, "herat-kabul": 1}


def test_she_pays_a_hostage_bribe_like_any_player() -> None:
    """[General Rules, p. 16] "Wakhan must pay all costs, including bribes, just like a
    regular player." alice holds Kabul Bazaar hostage: she is asked how much to demand.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 8)
        .spies("alice", 8, 1)
        .market([61, *EMPTY[1:]], EMPTY)
        .market_rupees(0, 0, 2)
        .build()
    )
    state, _ = wakhan_does(state, "tax")
    assert waiting_for(state) == ("bribe", ["alice"])
    state = engine.apply(state, "alice", Action("demand", (1,)))
    assert logged(state, "wakhan paid alice a bribe of 1")
    assert state.players[wseat(state)].rupees == 4 - 1 + 2


def test_may_abilities_safe_house_saves_her_spy() -> None:
    """[General Rules, p. 16] "may" abilities are always used: alice removes Wakhan's spy in
    a battle; Wakhan's Claude Wade (Safe House) takes it in.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 72)
        .court("alice", 34, 9)
        .spies("alice", 9, 1)
        .spies(WAKHAN, 9, 1)
        .build()
    )
    state = engine.apply(state, "alice", Action("battle", (34, 9)))
    assert state.spies[72] == [0, 1]
    assert logged(state, "a spy on Claude Wade")


def test_may_abilities_blackmail_at_the_start_of_her_turn() -> None:
    """[General Rules, p. 16] Giljee Nobles (Blackmail, Kandahar): she always puts a spy on
    a Kandahar court card with no spies, the highest-priority one.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .ai(9, 7, 5)
        .market(EMPTY, EMPTY)
        .court(WAKHAN, 43)
        .court("alice", 49)
        .build()
    )
    state = wakhan_turn(state)
    assert state.spies[49] == [0, 1]
    assert logged(state, "wakhan blackmails (kandahar)")


def test_move_wakhan_takes_armies_from_any_region_she_would_not_stop_ruling() -> None:
    """[Wakhan's Card-Based Actions: Move, p. 18] "When moving, Wakhan will only move her
    armies to adjacent regions where other players have tribes ... She will seek to have
    only as many armies as there are tribes in that region. Wakhan will not move Armies if
    doing so would cause her to lose a ruler token."

    Losing a ruler token is the only limit on where her armies come from: her one army in
    Kabul, where alice has two tribes, goes to Herat, where alice has one and she has none.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, IMPERIAL_SURVEYORS)
        .armies("kabul", "russian", 1)
        .tribes("alice", "kabul", 2)
        .tribes("alice", "herat", 1)
        .build()
    )
    state, kind = wakhan_does(state, "move")
    assert kind == "core"
    assert state.armies["kabul"]["russian"] == 0
    assert state.armies["herat"]["russian"] == 1


def test_move_wakhan_counts_every_tribe_of_the_destination_hers_included() -> None:
    """[Wakhan's Card-Based Actions: Move, p. 18] "She will seek to have only as many armies
    as there are tribes in that region": in Punjab alice and Wakhan have a tribe each, so
    one army there is not enough and a second comes from Kabul.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, GHILZAI_NOMADS)
        .armies("kabul", "russian", 2)
        .tribes("alice", "punjab", 1)
        .tribes(WAKHAN, "punjab", 1)
        .armies("punjab", "russian", 1)
        .build()
    )
    state, kind = wakhan_does(state, "move")
    assert kind == "core"
    assert state.armies["punjab"]["russian"] == 2
    assert state.armies["kabul"]["russian"] == 1
