"""The quick answers about options agree with the full lists they stand in for.

Whether a tax, a move or a battle is possible is asked by stopping at the first source,
move or removable piece; whether a decision has an option, or a single one, likewise; and
only the regions where a player has a tribe are counted for ruling. Along random games
(every player count, and Wakhan), each quick answer is checked against the full one.
"""

from __future__ import annotations

import pytest

import engine
from engine.actions import PASS
from engine.cards import REGION_IDS, RegionId
from engine.game import legal_seat_actions, step
from engine.playout import NAMES
from engine.rng import below, next_u64, seed_state
from engine.rules import battle, build, card_actions, cleanup, move, tax, turn
from engine.rules.abilities import ABILITY_OF, CARDS_WITH, has_ability
from engine.rules.card_based import CARD_ACTIONS, KINDS_OF
from engine.rules.flow import DECISIONS, PROCEDURES
from engine.rules.purchase import FREE_PURCHASES, free_purchase_rules
from engine.rules.ruling import count_ruling_pieces, ruler, unheld_coalitions
from engine.serialize import dumps

GAMES = [(2, 1, False), (3, 2, False), (4, 3, False), (5, 4, False), (1, 5, True), (2, 6, True)]


def positions(players: int, seed: int, wakhan: bool) -> list[engine.State]:
    rng = seed_state(seed)
    rng, game_seed = next_u64(rng)
    options = {"wakhan": True} if wakhan else None
    state = engine.new_game(list(NAMES[:players]), game_seed, options)
    found: list[engine.State] = []
    while state.phase != "over":
        choices = legal_seat_actions(state)
        rng, pick = below(rng, len(choices))
        step(state, *choices[pick])
        found.append(state.copy())
    return found


@pytest.fixture(scope="module")
def states() -> list[engine.State]:
    return [s for game in GAMES for s in positions(*game)]


def test_tax_move_and_battle_tests_agree_with_their_lists(states: list[engine.State]) -> None:
    for state in states:
        if state.phase == "over":
            continue
        for seat, player in enumerate(state.players):
            if player.loyalty is None:
                continue
            assert tax.has_sources(state, seat) == bool(tax.sources(state, seat))
            assert move.has_moves(state, seat) == bool(move.moves(state, seat))
            sites = [*REGION_IDS, *(c for p in state.players for c in p.court)]
            for site in sites:
                full = battle.removable(state, seat, site)
                assert battle.has_removable(state, seat, site) == bool(full)


def test_no_one_rules_a_region_without_a_tribe(states: list[engine.State]) -> None:
    """What lets ruled_regions count only the regions with one of the player's tribes."""
    for state in states:
        for region in REGION_IDS:
            owner = ruler(state, region)
            assert owner is None or state.tribes[region][owner] > 0


def test_has_options_and_only_option_agree_with_the_options(states: list[engine.State]) -> None:
    for state in states:
        if state.phase == "over" or not state.stack:
            continue
        frame = state.stack[-1]
        spec = DECISIONS[frame["kind"]]
        deciders = spec.deciders(state, frame)
        listed = {seat: spec.options(state, frame, seat) for seat in deciders}
        if frame["kind"] != "turn":  # the turn always has an option: pass
            assert spec.has_options(state, frame) == any(listed.values())
        for seat, options in listed.items():
            assert spec.only_option(state, frame, seat) == (
                options[0] if len(options) == 1 else None
            )


def test_card_action_targets_agree_with_their_slow_forms(states: list[engine.State]) -> None:
    """The abilities of a court, build's and battle's targets and the turn's card actions,
    each found by a shortcut, against the forms they stand in for."""
    for state in states:
        if state.phase == "over":
            continue
        for seat, player in enumerate(state.players):
            owned = {ABILITY_OF[card] for card in player.court}
            for ability in CARDS_WITH:
                assert has_ability(state, seat, ability) == (ability in owned)
            if player.loyalty is None:
                continue
            placed = build.placements(state, seat)
            assert build.start_targets(state, seat) == ([()] if placed else [])
            regions = [
                (region,)
                for region in REGION_IDS
                if battle.strength(state, seat, region)
                and battle.has_removable(state, seat, region)
            ]
            sites = battle.start_targets(state, seat)
            assert [site for site in sites if site[0] in REGION_IDS] == regions
            slow = [
                action
                for card in player.court
                if card_actions.can_use(state, seat, card)
                for kind in KINDS_OF[card]
                for action in CARD_ACTIONS[kind].options(state, seat, card)
            ]
            assert turn.card_action_options(state, seat) == slow


def test_cleanup_in_one_call_plays_as_one_step_a_call(
    states: list[engine.State], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Passing at every turn of the random games: cleanup run in one call, and one step a
    call through the engine's loop as before, leave the same state."""
    passes = [s for s in states if s.phase != "over" and s.stack[-1]["kind"] == "turn"]
    assert passes
    fast = []
    for state in passes:
        fast.append(state.copy())
        step(fast[-1], state.active, PASS)
    monkeypatch.setitem(PROCEDURES, "cleanup", cleanup.cleanup_step)
    for state, quick in zip(passes, fast, strict=True):
        slow = state.copy()
        step(slow, state.active, PASS)
        assert dumps(slow) == dumps(quick)


def slow_ruler(state: engine.State, region: RegionId) -> int | None:
    """The ruler as first written: every rival's count in a list."""
    tribes = state.tribes[region]
    counts = [count_ruling_pieces(state, region, seat) for seat in range(state.num_players)]
    best = max(range(state.num_players), key=lambda seat: counts[seat])
    rivals = [count for seat, count in enumerate(counts) if seat != best]
    rivals += [state.armies[region][coalition] for coalition in unheld_coalitions(state)]
    if tribes[best] == 0 or any(count >= counts[best] for count in rivals):
        return None
    return best


def test_ruler_and_free_purchases_agree_with_their_slow_forms(
    states: list[engine.State],
) -> None:
    for state in states:
        for region in REGION_IDS:
            assert ruler(state, region) == slow_ruler(state, region)
        for seat, player in enumerate(state.players):
            owned = {ABILITY_OF[card] for card in player.court}
            slow = [rule for ability, rule in FREE_PURCHASES.items() if ability in owned]
            assert free_purchase_rules(state, seat) == slow
