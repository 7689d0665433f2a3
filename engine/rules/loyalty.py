"""Loyalty and influence [Loyalty and Influence, p. 7].

Influence is one, plus the player's patriots in court, prizes and gifts. A player changes
loyalty by gaining influence with another coalition (a patriot played, a prize taken):
gifts return to the supply, prizes and patriots are discarded, and the dial turns.
"""

from __future__ import annotations

from engine.cards import COURT_CARDS, Coalition, EffectId
from engine.phrases import P
from engine.rules import court, words
from engine.rules.wakhan_deck import sync_pragmatic_loyalty
from engine.state import State


def has_effect(state: State, effect: EffectId, seat: int | None = None) -> bool:
    """Whether a lasting event effect is in force (for `seat`, when it is personal)."""
    for e in state.effects:
        if e["id"] == effect and (e.get("player") is None or e.get("player") == seat):
            return True
    return False


def influence(state: State, seat: int, coalition: Coalition | None = None) -> int:
    """The player's influence in their coalition [Loyalty and Influence, p. 7].

    Events change it: Rumor (patriots count nothing), Embarrassment of Riches (gifts count
    nothing) and Koh-i-noor Recovered (each gift counts one more). Wakhan is loyal to every
    coalition: her influence in `coalition` counts its patriots and prizes, and all her
    gifts [Playing with Wakhan, pp. 16, 18]; without `coalition`, a player's own loyalty.
    """
    player = state.players[seat]
    coalition = coalition or player.loyalty
    patriots = sum(1 for c in player.court if COURT_CARDS[c].patriot == coalition)
    if has_effect(state, "rumor", seat):
        patriots = 0
    prizes = sum(1 for c in player.prizes if COURT_CARDS[c].prize == coalition)
    gifts = sum(player.gifts)
    if has_effect(state, "embarrassment_of_riches"):
        gifts = 0
    elif has_effect(state, "koh_i_noor_recovered", seat):
        gifts *= 2
    return 1 + patriots + prizes + gifts


def change_loyalty(state: State, seat: int, coalition: Coalition) -> None:
    """Turn the dial to `coalition`, losing gifts, prizes and patriots of the old one.

    Wakhan has no loyalty dial: she keeps patriots and prizes of every coalition. A human's
    change can change her pragmatic loyalty [Playing with Wakhan: General Rules, p. 16].
    """
    player = state.players[seat]
    if state.is_wakhan(seat):
        state.note(
            P(
                "%(who)s is loyal to every coalition: her loyalty does not change",
                who=words.name_term(player.name),
            )
        )
        return
    old = player.loyalty
    state.note(
        P(
            "%(who)s changed loyalty from %(old)s to %(new)s",
            who=words.name_term(player.name),
            old=words.id_term(str(old)),
            new=words.id_term(coalition),
        )
    )
    returned = sum(player.gifts)
    player.gifts = [False, False, False]
    player.cylinders += returned
    state.discard.extend(player.prizes)
    player.prizes = []
    player.loyalty = coalition
    if state.wakhan is not None:
        sync_pragmatic_loyalty(state)
    for card in [c for c in player.court if COURT_CARDS[c].patriot not in (None, coalition)]:
        court.discard_from_court(state, seat, card)
