"""Wakhan's card-based actions [Playing with Wakhan: Wakhan's Card-Based Actions, p. 18].

Each action first finds what Wakhan would do with it (her default behaviour): if there is
nothing to do, the action is not valid and she skips it. Then she uses the highest-priority
court card that can legally take it, paying any hostage bribe and the action's cost like
any player. The action then runs through the ordinary decisions (`tax`, `build`, `move`,
`battle`, ...), which Wakhan answers with the `*_step` functions below.

- Tax: players before market cards; the player with the most rupees first (ties: the red
  arrow); else the leftmost market cards (ties: the red arrow's row first).
- Gift (bonus actions only): the cheapest gift she can afford.
- Build: armies, as many as she can pay for, in the leftmost region on her AI card that she
  rules.
- Move: armies only, without roads, towards adjacent regions where other players have
  tribes, until she has as many armies there as all the tribes there; from any region,
  except one she would stop ruling.
- Betray: the highest-priority card with a prize where she has a spy; she takes the prize.
- Battle: the leftmost region on her AI card where she has an army and another player has
  a tribe, an army of their coalition or a road of it; tribes, then armies, then roads (the
  red arrow's player first). Else the highest-priority court card where she and another
  player have spies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.actions import Action
from engine.cards import COURT_CARDS, REGIONS, Coalition, RegionId
from engine.frames import BattleFrame, BuildFrame, InfrastructureFrame, MoveFrame, TaxFrame
from engine.phrases import P, Phrase, T
from engine.rules import betray, card_actions, tax, words
from engine.rules.abilities import has_ability
from engine.rules.battle import CITADELS, strength
from engine.rules.card_based import CARD_ACTIONS, least_cost
from engine.rules.flow import DONE
from engine.rules.ruling import ruler
from engine.rules.tax import ruled_regions
from engine.rules.turn import begin_card_action
from engine.rules.wakhan_deck import arrow_target, border_order, humans, red_arrow, region_priority
from engine.rules.wakhan_priority import best_card, spies_on
from engine.state import GIFT_COSTS, State

# What an action would do, or None when it is not valid: a region, a card, a price...
Target = str | int
Planner = Callable[[State, int], Target | None]


def human_coalitions(state: State) -> set[Coalition]:
    return {c for s in humans(state) if (c := state.players[s].loyalty) is not None}


def other_tribes(state: State, seat: int, region: RegionId) -> int:
    return sum(n for s, n in enumerate(state.tribes[region]) if s != seat)


# -- what each action would do ---------------------------------------------------------------


def plan_tax(state: State, seat: int) -> Target | None:
    return "rupees" if tax.sources(state, seat) else None


def plan_gift(state: State, seat: int) -> Target | None:
    player = state.players[seat]
    free = [cost for slot, cost in enumerate(GIFT_COSTS) if not player.gifts[slot]]
    return free[0] if free and free[0] <= player.rupees else None


def build_region(state: State, seat: int) -> RegionId | None:
    """The leftmost region on her AI card that she rules."""
    ruled = ruled_regions(state, seat)
    return next((r for r in region_priority(state) if r in ruled), None)


def plan_build(state: State, seat: int) -> Target | None:
    return build_region(state, seat)


def still_rules_without_an_army(
    state: State, seat: int, region: RegionId, coalition: Coalition
) -> bool:
    armies = state.armies[region]
    armies[coalition] -= 1
    try:
        return ruler(state, region) == seat
    finally:
        armies[coalition] += 1


def next_move(state: State, seat: int) -> tuple[str, str] | None:
    """(origin, destination) of Wakhan's next army move, or None [Move, p. 18].

    "Wakhan will not move Armies if doing so would cause her to lose a ruler token" is the
    only limit on the origin. The destination is an adjacent region where other players
    have tribes and where she has fewer armies than "there are tribes in that region", all
    of them, hers included.
    """
    coalition = state.players[seat].loyalty
    assert coalition is not None
    order = region_priority(state)
    for origin in order:
        if state.armies[origin][coalition] == 0:
            continue
        if ruler(state, origin) == seat and not still_rules_without_an_army(
            state, seat, origin, coalition
        ):
            continue
        for destination in order:
            if destination not in REGIONS[origin].adjacent:
                continue
            wanted = sum(state.tribes[destination])
            if other_tribes(state, seat, destination) and (
                state.armies[destination][coalition] < wanted
            ):
                return origin, destination
    return None


def plan_move(state: State, seat: int) -> Target | None:
    move = next_move(state, seat)
    return f"{move[0]}>{move[1]}" if move else None


def betray_target(state: State, seat: int) -> int | None:
    """The highest-priority card with a prize where she has a spy, her own included."""
    found = [c for c in betray.targets(state, seat) if COURT_CARDS[c].prize is not None]
    return best_card(state, seat, found)


def plan_betray(state: State, seat: int) -> Target | None:
    return betray_target(state, seat)


def region_enemies(state: State, seat: int, region: RegionId) -> list[Action]:
    """The pieces Wakhan wants to remove in a region, in the order she removes them."""
    target = arrow_target(state)
    coalitions = human_coalitions(state)
    first = state.players[target].loyalty
    found: list[Action] = []
    for other in sorted(humans(state), key=lambda s: (s != target, s)):
        citadel = CITADELS.get(region)
        if state.tribes[region][other] and not (citadel and has_ability(state, other, citadel)):
            found += [Action("remove", ("tribe", state.name(other)))] * state.tribes[region][other]
    ranked = sorted(coalitions, key=lambda c: (c != first, c))
    for coalition in ranked:
        found += [Action("remove", ("army", coalition))] * state.armies[region][coalition]
    for coalition in ranked:
        for border in border_order(state, region):
            n = state.roads[border][coalition]
            found += [Action("remove", ("road", border, coalition))] * n
    return found


def card_enemies(state: State, seat: int, card: int) -> list[Action]:
    """Other players' spies on a card that may be removed, the red arrow's player first."""
    spies = spies_on(state, card)
    target = arrow_target(state)
    found: list[Action] = []
    for other in sorted(range(state.num_players), key=lambda s: (s != target, s)):
        if other == seat or not spies[other] or has_ability(state, other, "indispensable_advisors"):
            continue
        found += [Action("remove", ("spy", state.name(other)))] * spies[other]
    return found


def battle_region(state: State, seat: int) -> RegionId | None:
    for region in region_priority(state):
        if strength(state, seat, region) and region_enemies(state, seat, region):
            return region
    return None


def spied_cards(state: State, seat: int) -> list[int]:
    """Court cards where Wakhan and another player have spies she may remove."""
    return [
        card
        for player in state.players
        for card in player.court
        if spies_on(state, card)[seat] and card_enemies(state, seat, card)
    ]


def plan_battle(state: State, seat: int) -> Target | None:
    return battle_region(state, seat) or best_card(state, seat, spied_cards(state, seat))


def plan_battle_most_spied(state: State, seat: int) -> Target | None:
    """The court card with the most spies where she has one, highest priority first."""
    cards = spied_cards(state, seat)
    if not cards:
        return None
    most = max(sum(spies_on(state, c)) for c in cards)
    return best_card(state, seat, [c for c in cards if sum(spies_on(state, c)) == most])


PLANS: Final[dict[str, Planner]] = {
    "tax": plan_tax,
    "gift": plan_gift,
    "build": plan_build,
    "move": plan_move,
    "betray": plan_betray,
    "battle": plan_battle,
}


def can_take_with(state: State, seat: int, verb: str, card: int, target: Target) -> bool:
    """The card may be used for this action now, its hostage bribe and cost paid."""
    if verb not in COURT_CARDS[card].actions or not card_actions.can_use(state, seat, card):
        return False
    _, bribe = card_actions.hostage_bribe(state, seat, card)
    return state.players[seat].rupees >= bribe + least_cost(card_action(verb, card, target))


def card_action(verb: str, card: int, target: Target) -> Action:
    return CARD_ACTIONS[verb].action(card, target)


def describe_target(state: State, verb: str, target: Target) -> Phrase:
    if verb == "tax":
        return P("she takes rupees from players before market cards, the richest first")
    if verb == "gift":
        return P("the cheapest gift she can afford costs %(cost)s", cost=str(target))
    if verb == "build":
        return P(
            "she builds armies in %(region)s: the leftmost region on her AI card she rules",
            region=words.id_term(target),
        )
    if verb == "move":
        origin, destination = str(target).split(">")
        return P(
            "her armies move towards other players' tribes (%(origin)s to %(destination)s first)",
            origin=words.id_term(origin),
            destination=words.id_term(destination),
        )
    if verb == "betray":
        return P(
            "%(card)s is the highest-priority card with a prize where she has a spy",
            card=words.card_name_term(COURT_CARDS[int(target)].name),
        )
    if isinstance(target, str):
        return P(
            "%(region)s is the leftmost region on her AI card where she can battle",
            region=words.id_term(target),
        )
    return P(
        "%(card)s is the card she battles on",
        card=words.card_name_term(COURT_CARDS[int(target)].name),
    )


# What she will do, by verb: one message each, as languages say the verbs differently.
WILL_TAKE: Final[dict[str, str]] = {
    "tax": P("Wakhan will tax with %(card)s (%(how)s for it): %(why)s").message,
    "gift": P("Wakhan will gift with %(card)s (%(how)s for it): %(why)s").message,
    "build": P("Wakhan will build with %(card)s (%(how)s for it): %(why)s").message,
    "move": P("Wakhan will move with %(card)s (%(how)s for it): %(why)s").message,
    "betray": P("Wakhan will betray with %(card)s (%(how)s for it): %(why)s").message,
    "battle": P("Wakhan will battle with %(card)s (%(how)s for it): %(why)s").message,
}
LEFTMOST_BONUS, HIGHEST_PRIORITY = (
    T("her leftmost unused bonus card"),
    T("her highest-priority card"),
)


def take(state: State, seat: int, verb: str, target: Target, card: int | None = None) -> str | None:
    """Take a card-based action with `card` (or her highest-priority card for it).

    Returns "core" or "bonus" for an action taken, None when no card can take it.
    """
    candidates = [card] if card is not None else [c for c in state.players[seat].court]
    usable = [c for c in candidates if can_take_with(state, seat, verb, c, target)]
    chosen = card if card is not None and usable else best_card(state, seat, usable)
    if chosen is None:
        return None
    kind = "bonus" if card_actions.is_favored_card(state, seat, chosen) else "core"
    state.note(
        P(
            WILL_TAKE[verb],
            card=words.card_name_term(COURT_CARDS[chosen].name),
            how=LEFTMOST_BONUS if card is not None else HIGHEST_PRIORITY,
            why=describe_target(state, verb, target),
        )
    )
    begin_card_action(state, seat, card_action(verb, chosen, target))
    return kind


def take_listed(state: State, seat: int, verb: str, planner: Planner | None = None) -> str | None:
    """An action listed on her AI card: None when it is not valid now."""
    target = (planner or PLANS[verb])(state, seat)
    if target is None:
        return None
    return take(state, seat, verb, target)


def take_bonus(state: State, seat: int, card: int) -> str | None:
    """The leftmost action of `card` she can take, as a bonus action [p. 17]."""
    for verb in dict.fromkeys(COURT_CARDS[card].actions):
        target = PLANS[verb](state, seat)
        if target is not None and take(state, seat, verb, target, card):
            return verb
    return None


# -- her answers inside an action ------------------------------------------------------------


def first_wanted(options: list[Action], wanted: list[Action]) -> Action:
    """The first wanted option, else `done` when allowed, else the first option."""
    for action in wanted:
        if action in options:
            return action
    return DONE if DONE in options else options[0]


def tax_step(state: State, frame: TaxFrame, seat: int, options: list[Action]) -> Action:
    collects = [a for a in options if a.verb == "collect"]
    players = [a for a in collects if isinstance(a.args[0], str)]
    if players:
        target = arrow_target(state)

        def richest(action: Action) -> tuple[int, bool]:
            other = state.seat(str(action.args[0]))
            return state.players[other].rupees, other == target

        return max(players, key=richest)
    top_first = red_arrow(state) == "top"

    def leftmost(action: Action) -> tuple[int, int]:
        card = int(action.args[0])
        row = 0 if card in state.market[0] else 1
        return state.market[row].index(card), row if top_first else -row

    cards = [a for a in collects if isinstance(a.args[0], int)]
    return min(cards, key=leftmost) if cards else first_wanted(options, [])


def build_step(
    state: State, frame: BuildFrame | InfrastructureFrame, seat: int, options: list[Action]
) -> Action:
    region = build_region(state, seat)
    return first_wanted(options, [Action("army", (region,))] if region else [])


def move_step(state: State, frame: MoveFrame, seat: int, options: list[Action]) -> Action:
    move = next_move(state, seat)
    return first_wanted(options, [Action("march", ("army", *move))] if move else [])


def battle_step(state: State, frame: BattleFrame, seat: int, options: list[Action]) -> Action:
    site = frame["site"]
    if isinstance(site, int):
        wanted = card_enemies(state, seat, site)
    else:
        wanted = region_enemies(state, seat, site)
    return first_wanted(options, wanted)
