"""Standing policies offered where they would save a round trip (docs/decisions.md).

A bribe is two players' decisions in the middle of one player's turn: the ruler says how
much they demand, then the payer pays or refuses [Play, p. 11; Hostage Actions, p. 12].
By mail each can cost a day. A standing policy (`policy demand PLAYER N`, `policy pay N`)
answers it in advance; the player's own section offers those that fit, when they fit: to a
ruler asked to demand, at their turn to a player who rules a region or may come to rule one
in it, and to a player whose legal actions may meet a ruler's demand.
"""

from __future__ import annotations

import engine
from engine.cards import COURT_CARDS, REGION_IDS, RegionId
from engine.game import options_for
from engine.phrases import P, Phrase
from engine.rules.card_actions import hostage_bribe
from engine.rules.card_based import CARD_ACTIONS
from engine.rules.play import bribe_owed
from engine.rules.ruling import ruler
from engine.rules.words import comma_phrase, region_term


def policy_hints(state: engine.State, seat: int) -> list[Phrase]:
    """The standing policies to offer the player in `seat` now (none, one or both)."""
    decision = engine.pending(state)
    if decision is None or seat not in decision.seats:
        return []
    player = state.players[seat]
    frame = state.stack[-1]
    if frame["kind"] == "bribe" and frame["player"] == seat:
        if frame["payer"] in player.policy_demand:
            return []
        payer = state.name(frame["payer"])
        return [
            P(
                "To answer %(payer)s's next bribe without being asked, set a standing policy "
                "in a reply: `policy demand %(payer)s N` demands at most N rupees from them "
                "(`policy clear` undoes it).",
                payer=payer,
            )
        ]
    hints: list[Phrase] = []
    may_offer_pay = player.policy_pay is None and decision.kind != "pay"
    # The legal actions, listed once for both hints, and only when one of them reads them.
    actions = options_for(state, seat) if decision.kind == "turn" or may_offer_pay else []
    if decision.kind == "turn":
        demand = _demand_hint(state, seat, actions)
        if demand is not None:
            hints.append(demand)
    if player.policy_pay is None and (
        decision.kind == "pay" or _may_meet_a_bribe(state, seat, actions)
    ):
        hints.append(
            P(
                "Some of your actions let a ruler demand a bribe, and your turn then waits for "
                "their answer. Start your reply with `policy pay N` to pay any demand of at "
                "most N rupees without being asked (and refuse a greater one); the rest of "
                "your reply is played as soon as the ruler has answered.",
            )
        )
    return hints


def _demand_hint(state: engine.State, seat: int, actions: list[engine.Action]) -> Phrase | None:
    """At the seat's turn: `policy demand` for the players it has none for, when it rules a
    region, or may come to rule one in this turn. A region gained in this turn can be
    played into before the seat's next turn mail, and the bribe would then ask it first."""
    player = state.players[seat]
    others = [
        state.name(s)
        for s in range(state.num_players)
        if s != seat and not state.is_wakhan(s) and s not in player.policy_demand
    ]
    if not others:
        return None
    if ruled := _ruled(state, seat):
        return P(
            "You rule %(regions)s: a player who plays a card there owes you a bribe, and "
            "their turn waits for your answer. To answer in advance, add to your reply "
            "`policy demand PLAYER N` for each of %(players)s (at most N rupees from "
            "them; `policy clear` undoes it).",
            regions=comma_phrase([region_term(r) for r in ruled]),
            players=", ".join(others),
        )
    if _may_come_to_rule(state, seat, actions):
        return P(
            "This turn may make you rule a region: a player who then plays a card there owes "
            "you a bribe, and their turn waits for your answer. To answer in advance, add to "
            "your reply `policy demand PLAYER N` for each of %(players)s (at most N rupees "
            "from them; `policy clear` undoes it).",
            players=", ".join(others),
        )
    return None


def _may_come_to_rule(state: engine.State, seat: int, actions: list[engine.Action]) -> bool:
    """Whether the seat may rule a region by the end of its turn: ruling needs a tribe
    there [Ruling a Region, p. 7], so it has one already, or one of its legal plays places
    one. Read from the cards, without playing each action."""
    if any(state.tribes[region][seat] for region in REGION_IDS):
        return True
    return any(
        action.verb == "play"
        and any(impact.kind == "tribe" for impact in COURT_CARDS[int(action.args[0])].impacts)
        for action in actions
    )


def _may_meet_a_bribe(state: engine.State, seat: int, actions: list[engine.Action]) -> bool:
    """Whether one of the seat's legal actions now hands a bribe to another player: a play
    into a region another rules, or a card-based action on a card held hostage, whose
    bribe is more than nothing and not answered already by the holder's standing demand
    (or by Wakhan, who answers at once) [Play, p. 11; Hostage Actions, p. 12]. Read from
    the engine's own bribe rules, without playing each action."""
    for action in actions:
        if action.verb == "play":
            card = int(action.args[0])
            owner, amount = bribe_owed(state, seat, COURT_CARDS[card].region)
        elif action.verb in CARD_ACTIONS:
            owner, amount = hostage_bribe(state, seat, int(action.args[0]))
        else:
            continue
        if owner is None or not amount or state.is_wakhan(owner):
            continue
        if seat not in state.players[owner].policy_demand:
            return True
    return False


def _ruled(state: engine.State, seat: int) -> list[RegionId]:
    """The regions the seat rules."""
    return [r for r in REGION_IDS if ruler(state, r) == seat]
