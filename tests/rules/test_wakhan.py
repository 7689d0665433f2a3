"""Rule cases: playing with Wakhan, the automated opponent [Playing with Wakhan, pp. 16-18].

Setting up, her general rules, her turn, her state, views and the commands. Her actions are
in test_wakhan_actions.py, radicalize in test_wakhan_radicalize.py, the stand-in for absent
players in test_wakhan_standin.py and random games in test_wakhan_fuzz.py. `WakhanPosition`
below builds positions for all of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Self

import pytest
from positions import Position, act, waiting_for

import engine
from engine import Action
from engine.cards import WAKHAN_CARDS, Coalition
from engine.invariants import violations
from engine.rules.flow import run
from engine.rules.loyalty import influence
from engine.rules.ruling import ruler
from engine.rules.turn import begin_turn
from engine.rules.wakhan import take_listed_action
from engine.rules.wakhan_deck import next_back, pragmatic_loyalty, sync_pragmatic_loyalty
from engine.state import State

WAKHAN = "wakhan"
TOP = [62, 63, 64, 65, 60, 61]
BOTTOM = [67, 9, 10, 12, 13, 14]


class WakhanPosition(Position):
    """Humans against Wakhan, loyalties chosen, a human's turn pending, nothing played yet.

    The face-up AI card is card 1 and the AI deck's top card is card 2 unless `ai` says
    otherwise; the market and deck hold court cards only (see `Position`).
    """

    def __init__(self, humans: dict[str, Coalition], seed: int = 1, *, backs: str = "standard"):
        names = list(humans)
        state = engine.new_game(names, seed, {"wakhan": True, "wakhan_backs": backs})
        for player in state.players:
            if player.name != WAKHAN:
                player.loyalty = humans[player.name]
        first = state.seat(names[0])
        state.phase, state.turn, state.active = "play", 1, first
        state.stack = [{"kind": "turn", "player": first}]
        self.state = state
        self._quiet()
        self.ai(1, 2)

    def ai(self, face_up: int, *deck_top: int) -> Self:
        """The face-up AI card, and the cards on top of the AI deck (the next one first)."""
        w = self.state.wakhan
        assert w is not None
        rest = [c for c in sorted(WAKHAN_CARDS) if c != face_up and c not in deck_top]
        w.discard, w.deck = [face_up], [*deck_top, *rest]
        sync_pragmatic_loyalty(self.state)
        self.state.log = []
        return self

    def build(self) -> State:
        state = super().build()
        state.log = []
        return state


def wseat(state: State) -> int:
    return state.seat(WAKHAN)


def wakhan_does(state: State, action: str) -> tuple[State, str | None]:
    """Wakhan takes one action of an AI card's list now; the game runs until a human decides.

    Returns the new state and "core", "bonus" or None (the action was not valid).
    """
    state = state.copy()
    state.log = []
    state.active = wseat(state)
    kind = take_listed_action(state, wseat(state), action)
    run(state)
    return state, kind


def wakhan_turn(state: State) -> State:
    """Wakhan plays a whole turn, drawing the AI deck's top card, until a human decides."""
    state = state.copy()
    state.log = []
    state.stack = []
    begin_turn(state, wseat(state))
    run(state)
    return state


def logged(state: State, text: str) -> bool:
    return any(text in line for line in state.log)


# -- setting up --------------------------------------------------------------------------------


def seed_where_first_chooser_is(name: str) -> int:
    for seed in range(50):
        state = engine.new_game(["alice", "bob"], seed, {"wakhan": True})
        if state.log[0].startswith(f"{name} chooses loyalty first"):
            return seed
    raise AssertionError(name)


def choose_loyalties(state: State, *coalitions: str) -> State:
    for coalition in coalitions:
        decision = engine.pending(state)
        assert decision is not None and decision.kind == "loyalty"
        state = engine.apply(state, decision.seats[0], Action("loyalty", (coalition,)))
    return state


def test_setup_wakhan_is_an_extra_player_named_wakhan() -> None:
    """[Playing with Wakhan, p. 16] "Wakhan can be faced by one or two human players."
    With the option `wakhan`, she is an extra seat called `wakhan`, a reserved name.
    """
    one = engine.new_game(["alice"], 3, {"wakhan": True})
    assert [p.name for p in one.players] == ["alice", WAKHAN]
    two = engine.new_game(["alice", "bob"], 3, {"wakhan": True})
    assert sorted(p.name for p in two.players) == ["alice", "bob", WAKHAN]
    assert engine.new_game(["alice", "bob"], 3).wakhan is None  # the old signature works
    for humans in ([], ["a", "b", "c"]):
        with pytest.raises(ValueError, match="1 or 2 human players"):
            engine.new_game(humans, 3, {"wakhan": True})
    with pytest.raises(ValueError, match="word of the notation"):
        engine.new_game(["Wakhan", "bob"], 3)
    with pytest.raises(ValueError, match="unknown option"):
        engine.new_game(["alice"], 3, {"wakhn": True})
    with pytest.raises(ValueError, match="needs the option 'wakhan'"):
        engine.new_game(["alice", "bob"], 3, {"wakhan_backs": "alternative"})


def test_setup_include_wakhan_as_a_player_when_determining_the_size_of_the_deck() -> None:
    """[Setting Up, p. 16] "Include Wakhan as a player when determining the size of the
    deck." [Setup, p. 4] Six piles of five court cards plus one per player, and ten events.
    """
    for humans, players in ((["alice"], 2), (["alice", "bob"], 3)):
        state = engine.new_game(humans, 5, {"wakhan": True})
        assert len(state.deck) + 12 == 6 * (5 + players) + 10
        assert state.bank == 36 - 4 * players  # she takes her four rupees too


def ai_deck(seed: int) -> tuple[int, ...]:
    """The AI deck of a new game against Wakhan."""
    wakhan = engine.new_game(["alice"], seed, {"wakhan": True}).wakhan
    assert wakhan is not None
    return tuple(wakhan.deck)


def test_setup_shuffle_the_deck_of_24_ai_cards() -> None:
    """[Setting Up, p. 16] "Shuffle the deck of 24 AI cards and place them in a stack face
    down." The game's generator shuffles them: the same seed, the same AI deck.
    """
    decks = {ai_deck(seed) for seed in range(5)}
    assert len(decks) == 5
    for deck in decks:
        assert sorted(deck) == sorted(WAKHAN_CARDS)
    again = engine.new_game(["alice"], 0, {"wakhan": True})
    assert engine.dumps(again) == engine.dumps(engine.new_game(["alice"], 0, {"wakhan": True}))


@pytest.mark.parametrize("first", ["alice", "bob"])
def test_setup_wakhan_sits_to_the_right_of_the_last_player_to_choose_and_plays_first(
    first: str,
) -> None:
    """[Setting Up, p. 16] "Place Wakhan's pieces to the right of the player who chooses
    their loyalty last. Wakhan will take the first turn of the game." Play goes clockwise,
    so the last human to choose a loyalty plays right after her (docs/rules.md).
    """
    state = engine.new_game(["alice", "bob"], seed_where_first_chooser_is(first), {"wakhan": True})
    last = "bob" if first == "alice" else "alice"
    names = [p.name for p in state.players]
    assert names[(names.index(WAKHAN) + 1) % 3] == last
    assert waiting_for(state) == ("loyalty", [first])
    state = choose_loyalties(state, "british", "russian")
    assert state.turn == 2 and logged(state, "Wakhan drew AI card")
    seat_after = (wseat(state) + 1) % 3
    assert waiting_for(state) == ("turn", [names[seat_after]])
    assert names[seat_after] == last


def wakhan_game_where_first_to_choose_is(first: str) -> engine.State:
    for seed in range(50):
        state = engine.new_game(["alice", "bob"], seed, {"wakhan": True})
        if state.log[0].startswith(f"{first} chooses loyalty first"):
            return state
    raise AssertionError(first)


def test_setting_up_wakhan_sits_to_the_right_of_the_last_to_choose_loyalty() -> None:
    """[Playing with Wakhan: Setting Up, p. 16] "Place Wakhan's pieces to the right of the
    player who chooses their loyalty last. Wakhan will take the first turn of the game."
    [Sequence of Play, p. 9] "play continues clockwise to the next player".

    Clockwise, the player to Wakhan's left plays after her: the last to choose a loyalty
    plays second and the first to choose plays third.
    """
    for first, last in (("alice", "bob"), ("bob", "alice")):
        state = wakhan_game_where_first_to_choose_is(first)
        assert waiting_for(state) == ("loyalty", [first])
        state = choose_loyalties(state, "british", "russian")
        assert state.turn == 2
        assert waiting_for(state) == ("turn", [last])
        state = act(state, last, "pass")
        assert waiting_for(state) == ("turn", [first])


# -- general rules -----------------------------------------------------------------------------


def test_pragmatic_loyalty_is_the_leftmost_loyalty_not_shared_by_any_other_player() -> None:
    """[General Rules, p. 16] "Wakhan's Pragmatic Loyalty is always the leftmost loyalty on
    the AI card that is not shared by any other player." AI card 1 reads russian, afghan,
    british.
    """
    assert WAKHAN_CARDS[1].front.pragmatic_loyalty == ("russian", "afghan", "british")
    state = WakhanPosition({"alice": "british"}).build()
    assert state.players[wseat(state)].loyalty == "russian"
    state = WakhanPosition({"alice": "russian", "bob": "afghan"}).build()
    assert pragmatic_loyalty(state) == "british"
    assert state.players[wseat(state)].loyalty == "british"


def test_pragmatic_loyalty_follows_a_human_change_of_loyalty() -> None:
    """[General Rules, p. 16] Her pragmatic loyalty is never one a human holds: when alice
    turns Russian by playing a Russian patriot, Wakhan's loyalty moves on to Afghan.
    """
    state = WakhanPosition({"alice": "british"}).hand("alice", 95).build()  # Russian patriot
    assert state.players[wseat(state)].loyalty == "russian"
    state = engine.apply(state, "alice", Action("play", (95, "left")))
    assert state.players[0].loyalty == "russian"
    assert state.players[wseat(state)].loyalty == "afghan"


def test_wakhan_places_blocks_of_her_pragmatic_loyalty_not_the_patriot_colour() -> None:
    """[Radicalize, p. 17] "Wakhan's Patriots. Wakhan always places blocks based on pragmatic
    loyalty. Ignore the colour of the Patriot Impact Icons for armies and roads." She plays
    British Regulars (a British patriot with two army icons) while her loyalty is Russian.
    """
    position = WakhanPosition({"alice": "afghan"}).market([50, *TOP[1:]], BOTTOM)
    state, kind = wakhan_does(position.rupees(WAKHAN, 0).build(), "radicalize_most_armies_roads")
    assert kind == "core"
    assert 50 in state.players[wseat(state)].court
    assert state.armies["kandahar"] == {"afghan": 0, "british": 0, "russian": 2}
    assert state.players[wseat(state)].loyalty == "russian"


def test_wakhan_holds_patriots_and_prizes_of_different_coalitions() -> None:
    """[General Rules, p. 16] "Wakhan can hold loyalty prizes and patriots belonging to
    different coalitions." Playing a patriot changes nothing for her.
    """
    position = (
        WakhanPosition({"alice": "afghan"})
        .court(WAKHAN, 84)  # Russian Regulars, a Russian patriot
        .prizes(WAKHAN, 36, 60)  # prizes: afghan, russian
        .gifts(WAKHAN, 1)
        .market([50, *[None] * 5], [None] * 6)  # British Regulars, a British patriot
    )
    state, _ = wakhan_does(position.build(), "radicalize_most_armies_roads")
    wakhan = state.players[wseat(state)]
    assert wakhan.court == [50, 84] or wakhan.court == [84, 50]
    assert wakhan.prizes == [36, 60] and wakhan.gifts == [True, False, False]
    assert logged(state, "her loyalty does not change")


def test_ruling_counts_her_tribes_and_only_the_most_numerous_armies_of_one_coalition() -> None:
    """[General Rules, p. 16] "when assessing whether Wakhan is competing for control of a
    region, count her tribes and only the most numerous Armies of a single coalition in
    that region towards the number of her ruling pieces."
    """
    position = (
        WakhanPosition({"alice": "british"})
        .tribes(WAKHAN, "kabul", 1)
        .armies("kabul", "afghan", 2)
        .armies("kabul", "russian", 1)
        .tribes("alice", "kabul", 1)
        .armies("kabul", "british", 1)
    )
    state = position.build()
    assert ruler(state, "kabul") == wseat(state)  # 1 + 2 afghan against 1 + 1
    position.armies("kabul", "british", 1)
    assert ruler(position.build(), "kabul") is None  # 3 against 1 + 2


def test_gifts_on_her_aid_card_count_as_influence_in_every_coalition() -> None:
    """[Gift, p. 18] "Remember: this Gift will count as influence in all three coalitions."
    Her influence in a coalition is 1, its patriots, its prizes, and all her gifts.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .gifts(WAKHAN, 2)
        .court(WAKHAN, 84)  # a Russian patriot
        .prizes(WAKHAN, 36)  # an Afghan prize
        .build()
    )
    w = wseat(state)
    assert {c: influence(state, w, c) for c in ("afghan", "british", "russian")} == {
        "afghan": 4,
        "british": 3,
        "russian": 4,
    }


def test_wakhan_scores_in_any_successful_dominance_check() -> None:
    """[Dominance Checks and Victory, p. 18] "Remember that Wakhan is loyal to all
    coalitions so she will be in the running no matter which coalition is dominant." The
    British are dominant: alice (British, influence 2) scores 3, Wakhan (influence 3 with
    the British: a British patriot and a gift) scores 5.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .market([101, *TOP[1:]], BOTTOM)
        .court("alice", 37)  # Seaforth Highlanders, British patriot
        .court(WAKHAN, 50)  # British Regulars, British patriot
        .gifts(WAKHAN, 1)
        .armies("punjab", "british", 5)
        .build()
    )
    state = engine.apply(state, "alice", Action("purchase", (101,)))
    assert [p.vp for p in state.players] == [3, 5]
    assert logged(state, "the british coalition is dominant")


def test_wakhan_demands_the_full_bribe_she_is_owed() -> None:
    """[General Rules, p. 16] Decisions other players' actions require of her are answered
    by the engine: she demands the full bribe (two tribes) for alice's play in Kabul.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 7)  # Dost Mohammad, a Kabul political card
        .tribes(WAKHAN, "kabul", 2)
        .hand("alice", 9)
        .build()
    )
    state = engine.apply(state, "alice", Action("play", (9, "left")))
    assert waiting_for(state) == ("pay", ["alice"])
    frame = state.stack[-1]
    assert frame["kind"] == "pay" and frame["demand"] == 2
    assert logged(state, "Wakhan demands the full bribe")


def test_wakhan_discards_for_an_event_by_her_cleanup_order() -> None:
    """[General Rules, p. 16] Her discards are answered by the engine, in her cleanup order
    [Cleanup, p. 18] (non-political cards first): Confidence Failure, discarded from the
    market at the end of alice's turn, makes everyone discard a card from hand at once.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .market([114, *TOP[1:]], BOTTOM)
        .hand(WAKHAN, 5, 13)  # Shah Shujah Durrani (political), Ghilzai Nomads
        .hand("alice", 9, 16)
        .build()
    )
    state = engine.apply(state, "alice", Action("pass"))
    assert waiting_for(state) == ("discard_each", ["alice"])
    assert state.players[wseat(state)].hand == [5]
    assert logged(state, "Wakhan discards Ghilzai Nomads")


def test_no_one_acts_or_sets_policies_for_wakhan() -> None:
    """[Playing with Wakhan, p. 16] Her turn and her answers need no person: an action or a
    policy given for her is refused.
    """
    state = WakhanPosition({"alice": "british"}).build()
    for action in (Action("pass"), Action("policy", ("pay", 3))):
        with pytest.raises(engine.IllegalActionError) as caught:
            engine.apply(state, WAKHAN, action)
        assert caught.value.code == "not-your-decision"
    assert engine.default_action(state, wseat(state)) is None


def test_the_leverage_exception_she_discards_nothing() -> None:
    """[General Rules, p. 16] "If Wakhan must discard a Leveraged card and has no coins,
    Wakhan does not need to discard cards (just as if she had 2 cards in her hand instead)."
    alice betrays Wakhan's leveraged Money Lenders; Wakhan has no rupees.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .court(WAKHAN, 14, 9)  # Money Lenders (leveraged), Afghan Handicrafts
        .court("alice", 16)  # Bala Hissar: betray
        .spies("alice", 14, 1)
        .rupees(WAKHAN, 0)
        .rupees("alice", 2)
        .build()
    )
    state = engine.apply(state, "alice", Action("betray", (16, 14)))
    assert state.players[wseat(state)].court == [9]
    assert logged(state, "discards no card")
    assert waiting_for(state) == ("turn", ["alice"])


# -- her turn ----------------------------------------------------------------------------------


def test_turn_draw_an_ai_card_and_read_the_next_back() -> None:
    """[Wakhan's Turn, p. 16] "On Wakhan's turn, draw an AI card and place it face up to
    the immediate right of the AI card draw deck in a discard pile. You will use this face-up
    card and the back of the card now on top of the draw deck to make decisions."
    """
    state = WakhanPosition({"alice": "british"}).ai(1, 6, 5).build()
    state = wakhan_turn(state)
    w = state.wakhan
    assert w is not None and w.discard == [1, 6] and w.deck[0] == 5
    assert next_back(state) == WAKHAN_CARDS[5].back
    assert logged(state, "Wakhan drew AI card 6: radicalize any intelligence, move, radicalize")


def test_turn_reshuffle_when_the_ai_deck_is_empty() -> None:
    """[Wakhan's Turn, p. 16] "If the draw deck is empty, reshuffle the entire discard pile
    (including the card just drawn) to create a new draw deck and draw again."
    """
    position = WakhanPosition({"alice": "british"})
    w = position.state.wakhan
    assert w is not None
    w.discard, w.deck = [c for c in sorted(WAKHAN_CARDS) if c != 7], [7]
    state = wakhan_turn(position.build())
    w = state.wakhan
    assert w is not None and len(w.deck) == 23 and len(w.discard) == 1
    assert logged(state, "reshuffled")
    assert violations(state) == []


def test_turn_two_actions_from_the_top_of_the_list_starting_again_at_the_top() -> None:
    """[Wakhan's Turn, p. 17] "start at top action and work down, performing each valid
    action in turn until Wakhan has performed the allotted two-action limit. If Wakhan still
    has an action left after performing the bottom action, start again at the top." AI card
    4: radicalize for net rupees (not valid: she has 2 rupees or more), build (not valid: she
    rules nowhere), radicalize; then again from the top.
    """
    position = WakhanPosition({"alice": "british"}).ai(9, 4, 5).market(TOP, BOTTOM)
    state = wakhan_turn(position.rupees(WAKHAN, 9).build())
    steps = [
        line.split(":")[0]
        for line in state.log
        if line.startswith(("Wakhan skips", "Wakhan radicalizes"))
    ]
    assert [step.split(" ")[1] for step in steps] == ["skips", "skips", "radicalizes"] * 2
    assert steps[0] == "Wakhan skips radicalize most net rupees if under 2 rupees"
    assert steps[1] == "Wakhan skips build"


def test_turn_bonus_actions_do_not_count_against_her_two_actions() -> None:
    """[Wakhan's Turn, p. 17] "as per the regular rules, actions taken with cards in the
    favored suit are bonus actions and do not count against her two-action limit." AI card
    8 lists tax, betray, radicalize; her tax card is political, the favored suit.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .ai(9, 8, 5)
        .market(TOP, BOTTOM)
        .market_rupees(0, 1, 2)
        .court(WAKHAN, 25)  # Josiah Harlan: political, tax
        .rupees(WAKHAN, 9)
        .build()
    )
    state = wakhan_turn(state)
    assert logged(state, "Wakhan will tax with Josiah Harlan")
    assert len([line for line in state.log if line.startswith("Wakhan radicalizes")]) == 2


def test_turn_no_valid_action_left_then_bonus_actions() -> None:
    """[Wakhan's Turn, p. 17] "Once both actions are used, or if there are no valid choices
    available, Wakhan will take any available bonus actions from the court cards in her
    tableau that have not yet been used for actions. ... start with the leftmost, unused
    card on her court and take the leftmost action on the card, skipping any actions that
    cannot be taken." AI card 7 (build, move, radicalize) with nothing to buy, build or move;
    her favored (political) cards: Ishaqzai Chiefs (gift, build) and Josiah Harlan (tax).
    """
    state = (
        WakhanPosition({"alice": "british"})
        .ai(9, 7, 5)
        .market([*[None] * 5, 61], [None] * 6)  # too dear for her
        .market_rupees(0, 5, 1)
        .court(WAKHAN, 91, 58, 25)  # Allah Quli Bahadur (betray: no target), Ishaqzai, Harlan
        .rupees(WAKHAN, 2)
        .build()
    )
    state = wakhan_turn(state)
    log = state.log
    assert "Wakhan has no valid action left on her AI card" in log
    gift = log.index(next(line for line in log if line.startswith("Wakhan will gift")))
    tax = log.index(next(line for line in log if line.startswith("Wakhan will tax")))
    assert gift < tax
    assert "Ishaqzai Chiefs (her leftmost unused bonus card for it)" in log[gift]
    assert state.players[wseat(state)].gifts == [True, False, False]


def test_wakhans_ambition_she_buys_the_dominance_check_when_she_would_score_the_most() -> None:
    """[Wakhan's Turn, p. 17] "Wakhan's Ambition. If Wakhan is able to purchase the
    Dominance Check and score the most victory points and/or win the game, she will use her
    action to do that, regardless of the actions listed on her AI card." No coalition is
    dominant and she has the most cylinders in play.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .ai(9, 8, 5)
        .market([61, 101, *TOP[2:]], BOTTOM)
        .tribes(WAKHAN, "kabul", 2)
        .build()
    )
    state = wakhan_turn(state)
    assert logged(state, "Wakhan's Ambition: she buys the Dominance Check")
    assert state.players[wseat(state)].vp == 3
    assert 101 in state.discard


def test_wakhans_ambition_not_when_another_player_would_score_as_much() -> None:
    """[Wakhan's Turn, p. 17] Her Ambition needs her to score the most: with as many
    cylinders in play as alice, she does not buy the check.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .ai(9, 8, 5)
        .market([61, 101, *TOP[2:]], BOTTOM)
        .tribes(WAKHAN, "kabul", 1)
        .tribes("alice", "punjab", 1)
        .build()
    )
    state = wakhan_turn(state)
    assert not logged(state, "Ambition")
    assert 101 in [c for row in state.market for c in row]


def test_cleanup_discard_order_of_her_court() -> None:
    """[Cleanup, p. 18] "discard non-political cards first, then non-patriots, then
    non-leveraged cards, then cards with the most player spies more than Wakhan spies,
    fewest spies, lowest rank, not matching the favored suit, and then lowest card number."
    Her court of five holds one political card (limit 3 + 1): Mohammad Shah is kept.
    """
    state = (
        WakhanPosition({"alice": "british"})
        .ai(9, 7, 5)
        .market([None] * 6, [None] * 6)
        .court(WAKHAN, 77, 84, 14, 9, 13)  # political; patriot; leveraged; rank 1; rank 2
        .spies("alice", 13, 1)
        .rupees(WAKHAN, 0)
        .build()
    )
    state = wakhan_turn(state)
    discarded = [line for line in state.log if line.startswith("Wakhan discards")]
    assert discarded == ["Wakhan discards Ghilzai Nomads, first in her discard order"]
    assert sorted(state.players[wseat(state)].court) == [9, 14, 77, 84]


# -- the AI cards' backs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "backs"), [(7, "standard"), (7, "alternative"), (9, "alternative")]
)
def test_ai_card_backs_follow_the_chosen_pairing(number: int, backs: str) -> None:
    """Cards 7, 9, 16 and 18 are paired with different backs by different sources: the
    option `wakhan_backs` picks the pairing (docs/rules.md).
    """
    state = WakhanPosition({"alice": "british"}, backs=backs).ai(1, number).build()
    card = WAKHAN_CARDS[number]
    expected = card.back_alternative if backs == "alternative" else card.back
    assert next_back(state) == expected
    assert state.wakhan is not None and state.wakhan.backs == backs


# -- the state, views, invariants and commands -------------------------------------------------


def played(humans: int = 1, seed: int = 4) -> State:
    state = engine.new_game(["alice", "bob"][:humans], seed, {"wakhan": True})
    return choose_loyalties(state, *["british", "afghan"][:humans])


def test_state_json_holds_the_ai_deck_and_reads_back() -> None:
    """docs/state.md: the `wakhan` field holds her seat, the pairing, the AI deck (top card
    first) and the AI discard pile; a game without Wakhan has no such field.
    """
    state = played()
    data = engine.to_dict(state)
    assert list(data["wakhan"]) == ["seat", "backs", "deck", "discard"]
    assert len(data["wakhan"]["deck"]) + len(data["wakhan"]["discard"]) == 24
    assert engine.dumps(engine.loads(engine.dumps(state))) == engine.dumps(state)
    assert "wakhan" not in engine.to_dict(engine.new_game(["alice", "bob"], 1))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["wakhan"]["deck"].pop(), "AI cards missing"),
        (lambda d: d["wakhan"]["deck"].append(d["wakhan"]["discard"][0]), "two places"),
        (lambda d: d["wakhan"].update(seat=7), "wakhan.seat"),
        (lambda d: d["wakhan"].update(backs="other"), "backs"),
        (lambda d: d["players"][d["wakhan"]["seat"]].update(name="zed"), "must be called"),
        (lambda d: d["players"][d["wakhan"]["seat"]].update(loyalty="british"), "pragmatic"),
    ],
)
def test_reading_a_state_checks_the_ai_deck(
    edit: Callable[[dict[str, Any]], object], message: str
) -> None:
    """docs/state.md: reading a state checks the 24 AI cards, Wakhan's seat and name, and
    that her loyalty is her pragmatic loyalty.
    """
    data = json.loads(engine.dumps(played()))
    edit(data)
    with pytest.raises(engine.StateError, match=message):
        engine.from_dict(data)


def test_views_hide_the_ai_deck_order() -> None:
    """Views show the AI deck's size, the face-up AI card and the back of the AI deck's top
    card, never the AI deck's order.
    """
    state = played(2)
    w = state.wakhan
    assert w is not None
    for viewer in (None, "alice", WAKHAN):
        shown = engine.view(state, viewer)["wakhan"]
        assert shown["ai_deck_size"] == len(w.deck)
        assert shown["ai_card"] is not None and shown["ai_card"]["number"] == w.discard[-1]
        back = WAKHAN_CARDS[w.deck[0]].back
        assert shown["next_back"] == {
            "upper_label": back.upper_label,
            "lower_label": back.lower_label,
            "column_numbers_top_to_bottom": list(back.column_numbers_top_to_bottom),
        }
        assert "deck" not in shown and str(w.deck[1:6])[1:-1] not in json.dumps(shown)
    assert "wakhan" not in engine.view(engine.new_game(["alice", "bob"], 1))


def test_invariants_count_the_24_ai_cards() -> None:
    state = played()
    assert state.wakhan is not None
    state.wakhan.deck.pop()
    assert any("AI cards missing" in p for p in violations(state))


def test_playout_with_wakhan() -> None:
    """`engine.playout.playout(..., wakhan=True)`: random humans against Wakhan."""
    from engine.playout import playout

    for humans in (1, 2):
        stats = playout(humans, 5, seed=humans, check=True, wakhan=True)
        assert stats.finished == 5 and sum(stats.wins.values()) >= 5


def test_cli_engine_new_and_playout_with_wakhan(capsys: pytest.CaptureFixture[str]) -> None:
    from adjudicator.cli import main

    assert main(["engine", "new", "--players", "alice", "--wakhan", "--seed", "3"]) == 0
    state = engine.loads(capsys.readouterr().out)
    assert [p.name for p in state.players] == ["alice", WAKHAN]
    for humans in ("1", "2"):
        assert main(["engine", "playout", "--players", humans, "--wakhan", "--games", "3"]) == 0
        figures = json.loads(capsys.readouterr().out)
        assert figures["games"] == figures["finished"] == 3
    assert main(["engine", "playout", "--players", "3", "--wakhan", "--games", "1"]) == 2
    assert "1 or 2" in capsys.readouterr().err
