"""Standing policies offered where they would save a round trip (docs/decisions.md).

A bribe is two players' decisions in the middle of one player's turn: the ruler says how
much they demand, then the payer pays or refuses [Play, p. 11; Hostage Actions, p. 12].
By mail each can cost a day. A standing policy (`policy demand PLAYER N`, `policy pay N`)
answers it in advance; the player's own section offers the one that fits, when it fits:
to a ruler asked to demand, and to a player whose legal actions may meet a ruler's demand.
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


def policy_hint(state: engine.State, seat: int) -> Phrase | None:
    """The standing policy to offer the player in `seat` now, or None."""
    decision = engine.pending(state)
    if decision is None or seat not in decision.seats:
        return None
    player = state.players[seat]
    frame = state.stack[-1]
    if frame["kind"] == "bribe" and frame["player"] == seat:
        if frame["payer"] in player.policy_demand:
            return None
        payer = state.name(frame["payer"])
        return P(
            "To answer %(payer)s's next bribe without being asked, set a standing policy in "
            "a reply: `policy demand %(payer)s N` demands at most N rupees from them "
            "(`policy clear` undoes it).",
            payer=payer,
        )
    if decision.kind == "turn" and (ruled := _ruled(state, seat)):
        others = [
            state.name(s)
            for s in range(state.num_players)
            if s != seat and not state.is_wakhan(s) and s not in player.policy_demand
        ]
        if others:
            return P(
                "You rule %(regions)s: a player who plays a card there owes you a bribe, and "
                "their turn waits for your answer. To answer in advance, add to your reply "
                "`policy demand PLAYER N` for each of %(players)s (at most N rupees from "
                "them; `policy clear` undoes it).",
                regions=comma_phrase([region_term(r) for r in ruled]),
                players=", ".join(others),
            )
    if player.policy_pay is not None:
        return None
    if decision.kind == "pay" or _may_meet_a_bribe(state, seat):
        return P(
            "Some of your actions let a ruler demand a bribe, and your turn then waits for "
            "their answer. Start your reply with `policy pay N` to pay any demand of at most N "
            "rupees without being asked (and refuse a greater one); the rest of your reply is "
            "played as soon as the ruler has answered.",
        )
    return None


def _may_meet_a_bribe(state: engine.State, seat: int) -> bool:
    """Whether one of the seat's legal actions now hands a bribe to another player: a play
    into a region another rules, or a card-based action on a card held hostage, whose
    bribe is more than nothing and not answered already by the holder's standing demand
    (or by Wakhan, who answers at once) [Play, p. 11; Hostage Actions, p. 12]. Read from
    the engine's own bribe rules, without playing each action."""
    for action in options_for(state, seat):
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
