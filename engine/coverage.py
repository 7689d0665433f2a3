"""What random play exercised: action kinds, event effects and special abilities.

`observe` looks at one step (the state before, who acted, the action, the state after)
and records what it used. An ability counts only when it changed something in that step
(a free purchase, a bribe not owed, a spy saved...), not merely because its card was in a
court. Used by the fuzz tests and `benchmarks/coverage.py`; it never changes a state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Final

from engine.actions import Action
from engine.cards import COURT_CARDS, EVENT_CARDS, AbilityId, RegionId, is_event
from engine.rules import card_actions
from engine.rules.abilities import has_ability
from engine.rules.card_based import CARD_ACTIONS
from engine.rules.move import spy_track
from engine.rules.ruling import ruler
from engine.state import State

ACTION_KINDS: Final = ("purchase", "play", *CARD_ACTIONS)
# Public Withdrawal can never be purchased, so its bottom half is never "used".
EVENT_EFFECTS: Final = tuple(
    sorted(
        {
            e.if_purchased.id
            for e in EVENT_CARDS.values()
            if e.if_purchased.id != "public_withdrawal"
        }
        | {e.if_discarded.id for e in EVENT_CARDS.values()}
    )
)
ABILITIES: Final = tuple(
    sorted({c.ability.id for c in COURT_CARDS.values() if c.ability is not None})
)

Probe = Callable[[State, int, Action, State], bool]


def _top(state: State) -> str:
    return state.stack[-1]["kind"] if state.stack else ""


def _owner_of_ability(state: State, ability: AbilityId) -> set[int]:
    return {s for s in range(state.num_players) if has_ability(state, s, ability)}


def _free_purchase(region: RegionId | None, patriot: str | None, ability: AbilityId) -> Probe:
    def probe(before: State, seat: int, action: Action, after: State) -> bool:
        if action.verb != "purchase" or not has_ability(before, seat, ability):
            return False
        card = int(action.args[0])
        if is_event(card):
            return False
        info = COURT_CARDS[card]
        if region is not None and info.region != region:
            return False
        if patriot is not None and info.patriot != patriot:
            return False
        return any(card in row[1:] for row in before.market)

    return probe


def _always_favored(card: int) -> Probe:
    def probe(before: State, seat: int, action: Action, after: State) -> bool:
        return (
            action.verb in CARD_ACTIONS
            and action.args[0] == card
            and COURT_CARDS[card].suit != before.favored
        )

    return probe


def _charismatic(before: State, seat: int, action: Action, after: State) -> bool:
    if action.verb != "play" or not has_ability(before, seat, "charismatic_courtiers"):
        return False
    region = COURT_CARDS[int(action.args[0])].region
    owner = ruler(before, region)
    return owner is not None and owner != seat


def _civil_service(before: State, seat: int, action: Action, after: State) -> bool:
    if action.verb not in CARD_ACTIONS:
        return False
    holder = card_actions.hostage_holder(before, int(action.args[0]))
    return holder is not None and has_ability(before, seat, "civil_service_reforms")


def _claim(before: State, seat: int, action: Action, after: State) -> bool:
    if _top(before) != "tax" or action.verb != "collect" or isinstance(action.args[0], int):
        return False
    victim = before.players[before.seat(str(action.args[0]))]
    return not any(ruler(before, COURT_CARDS[c].region) == seat for c in victim.court)


def _bodyguards(before: State, seat: int, action: Action, after: State) -> bool:
    if action.verb != "betray":
        return False
    for owner in _owner_of_ability(before, "bodyguards"):
        for card in before.players[owner].court:
            spies = before.spies.get(card)
            if COURT_CARDS[card].suit == "political" and spies and spies[seat]:
                return True
    return False


def _citadel(region: RegionId, ability: AbilityId) -> Probe:
    def probe(before: State, seat: int, action: Action, after: State) -> bool:
        if action.verb != "battle" or action.args[1] != region:
            return False
        me = before.players[seat].loyalty
        return any(
            before.tribes[region][o] and before.players[o].loyalty != me
            for o in _owner_of_ability(before, ability)
            if o != seat
        )

    return probe


def _advisors(before: State, seat: int, action: Action, after: State) -> bool:
    if action.verb != "battle" or not isinstance(action.args[1], int):
        return False
    spies = before.spies.get(action.args[1], [])
    owners = _owner_of_ability(before, "indispensable_advisors") - {seat}
    return any(spies[o] for o in owners if o < len(spies))


def _spy_step(before: State, action: Action) -> int:
    track = spy_track(before)
    origin, destination = track.index(int(action.args[1])), track.index(int(action.args[2]))
    gap = abs(origin - destination)
    return min(gap, len(track) - gap)


def _spy_travel(ability: AbilityId, wanted: Callable[[int], bool]) -> Probe:
    def probe(before: State, seat: int, action: Action, after: State) -> bool:
        if action.verb != "march" or action.args[0] != "spy":
            return False
        return has_ability(before, seat, ability) and wanted(_spy_step(before, action))

    return probe


def _indian_supplies(before: State, seat: int, action: Action, after: State) -> bool:
    if action.verb != "march" or action.args[0] != "army":
        return False
    if not has_ability(before, seat, "indian_supplies"):
        return False
    coalition = before.players[seat].loyalty
    border = "-".join(sorted((str(action.args[1]), str(action.args[2]))))
    return coalition is not None and not before.roads[border][coalition]


def _frame_answered(kind: str, region: RegionId | None = None) -> Probe:
    def probe(before: State, seat: int, action: Action, after: State) -> bool:
        if _top(before) != kind or action.verb in ("done", "decline"):
            return False
        return region is None or before.stack[-1].get("region") == region

    return probe


def _logged(marker: str) -> Probe:
    return lambda before, seat, action, after: any(marker in line for line in after.log)


PROBES: Final[dict[str, Probe]] = {
    "bodyguards": _bodyguards,
    "blackmail_herat": _frame_answered("blackmail", "herat"),
    "blackmail_kandahar": _frame_answered("blackmail", "kandahar"),
    "charismatic_courtiers": _charismatic,
    "citadel_kabul": _citadel("kabul", "citadel_kabul"),
    "citadel_transcaspia": _citadel("transcaspia", "citadel_transcaspia"),
    "civil_service_reforms": _civil_service,
    "claim_of_ancient_lineage": _claim,
    "herat_influence": _free_purchase("herat", None, "herat_influence"),
    "indian_supplies": _indian_supplies,
    "indispensable_advisors": _advisors,
    "infrastructure": _frame_answered("infrastructure"),
    "insurrection": _logged("Insurrection:"),
    "irregulars": _always_favored(99),
    "persian_influence": _free_purchase("persia", None, "persian_influence"),
    "russian_influence": _free_purchase(None, "russian", "russian_influence"),
    "safe_house": _frame_answered("safe_house"),
    "savvy_operator": _always_favored(91),
    "strange_bedfellows": _spy_travel("strange_bedfellows", lambda step: step > 2),
    "well_connected": _spy_travel("well_connected", lambda step: step == 2),
}


def observe(before: State, seat: int, action: Action, after: State, seen: Counter[str]) -> None:
    """Record the action kind, event effects and abilities that one step used."""
    if action.verb in ACTION_KINDS and _top(before) == "turn":
        seen[f"action:{action.verb}"] += 1
    if action.verb == "purchase" and is_event(int(action.args[0])):
        seen[f"event:{EVENT_CARDS[int(action.args[0])].if_purchased.id}"] += 1
    bought = int(action.args[0]) if action.verb == "purchase" else None
    now_in_market = {c for row in after.market for c in row}
    for row in before.market:
        for card in row:
            if card is not None and is_event(card) and card != bought and card not in now_in_market:
                seen[f"event:{EVENT_CARDS[card].if_discarded.id}"] += 1
    for ability, probe in PROBES.items():
        if probe(before, seat, action, after):
            seen[f"ability:{ability}"] += 1


def expected() -> list[str]:
    """Every item a thorough run should use at least once."""
    return (
        [f"action:{k}" for k in ACTION_KINDS]
        + [f"event:{e}" for e in EVENT_EFFECTS]
        + [f"ability:{a}" for a in ABILITIES]
    )


def table(seen: Counter[str]) -> str:
    """The coverage table: every expected item with its count, unused ones marked."""
    lines = [f"{'item':<44} {'uses':>8}"]
    for item in expected():
        mark = "" if seen[item] else "   <-- never used"
        lines.append(f"{item:<44} {seen[item]:>8}{mark}")
    return "\n".join(lines)
