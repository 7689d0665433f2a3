"""A stand-in for an absent player: a fixed, explainable policy (docs/decisions.md).

`choose(state, seat)` returns one legal action for a human seat that must decide now, for
instance when a player's time runs out and the service lets the game go on. It is
deterministic (the same position gives the same answer), it uses the seat's own loyalty,
and every answer can be told in a sentence:

- **turn**, the first that applies: (1) purchase a Dominance Check that would give the
  seat more points than anyone else, or the win (as Wakhan's Ambition); (2) play a card
  from hand that keeps the seat's loyalty (no patriot of another coalition) and whose bribe
  it can pay in full, the highest rank first, to the right of the court; (3) with room in
  hand, purchase the cheapest such court card (never an event); (4) once the deck is empty,
  purchase the cheapest card of any kind (a court card only with room in hand), so that the
  game reaches its last Dominance Check; (5) if it has not yet played or purchased this
  turn: with a full hand, play its oldest card whatever its loyalty, else purchase the
  cheapest card as in (4), so that the game always moves on; (6) a card-based action it
  can pay for (hostage bribe included), in the order tax, gift (the cheapest), build,
  battle, betray (a card in another court only); (7) pass. Move is never started: it
  needs a plan.
- **tax, build, battle**: keep taking steps (players before market cards for tax, the
  richest first; armies before roads for build; the first enemy piece for battle) until
  none is left. **move**: stop as soon as possible.
- **bribe**: demand the full bribe; **pay**: pay (the seat chose the action).
- **spy, blackmail**: the card of highest priority by Wakhan's card priority (another
  player's card first, then the favored suit, ...); **discard**, **discard_each**: the card
  first in Wakhan's cleanup order (non-political first, ...).
- **prize**: accept a prize of the seat's own coalition, decline any other.
- **loyalty**: the coalition with the most blocks on the map (ties: afghan, british,
  russian). **choose**: for Rumor the other player with the most victory points; otherwise
  the decision's default.
- everything else (**road**, **take**, **safe_house**, **infrastructure**): the decision's
  documented default, or its first option when that default is `done`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.actions import PASS, Action
from engine.cards import COALITIONS, COURT_CARDS, is_event
from engine.game import options_for
from engine.rules.card_actions import hostage_bribe
from engine.rules.card_based import least_cost
from engine.rules.cleanup import hand_limit
from engine.rules.flow import DECISIONS, DONE
from engine.rules.pieces import count_blocks
from engine.rules.play import bribe_owed
from engine.rules.wakhan_priority import best_card, card_to_discard
from engine.rules.wakhan_radicalize import ambition
from engine.state import State

CARD_ACTION_ORDER: Final = ("tax", "gift", "build", "battle", "betray")

Policy = Callable[[State, int, list[Action]], Action]


def keeps_loyalty(state: State, seat: int, card: int) -> bool:
    patriot = COURT_CARDS[card].patriot
    return patriot is None or patriot == state.players[seat].loyalty


def affordable(state: State, seat: int, action: Action) -> bool:
    """The full bribe the action may cost, and its least cost, are within the seat's rupees."""
    if action.verb == "play":
        _, bribe = bribe_owed(state, seat, COURT_CARDS[int(action.args[0])].region)
    elif action.verb in CARD_ACTION_ORDER:
        _, bribe = hostage_bribe(state, seat, int(action.args[0]))
    else:
        return True
    return bribe + least_cost(action) <= state.players[seat].rupees


def _turn(state: State, seat: int, options: list[Action]) -> Action:
    player = state.players[seat]
    check = ambition(state, seat)
    if check is not None and Action("purchase", (check,)) in options:
        return Action("purchase", (check,))
    options = [a for a in options if affordable(state, seat, a)]
    room = len(player.hand) < hand_limit(state, seat)
    loyal_plays = [
        a
        for a in options
        if a.verb == "play" and a.args[1] == "right" and keeps_loyalty(state, seat, int(a.args[0]))
    ]
    if loyal_plays:
        return max(loyal_plays, key=lambda a: (COURT_CARDS[int(a.args[0])].rank, -int(a.args[0])))
    # Purchases are listed column by column from the left: the first is the cheapest.
    purchases = [a for a in options if a.verb == "purchase"]
    loyal_buys = [
        a
        for a in purchases
        if not is_event(int(a.args[0])) and keeps_loyalty(state, seat, int(a.args[0]))
    ]
    if loyal_buys and room:
        return loyal_buys[0]
    any_buys = [a for a in purchases if room or is_event(int(a.args[0]))]
    if any_buys and not state.deck:
        return any_buys[0]  # the market no longer refills: move on to the last check
    if state.actions_used == 0:  # make the game move on: one play or purchase a turn
        plays = [a for a in options if a.verb == "play" and a.args[1] == "right"]
        if plays and not room:
            return plays[0]
        if any_buys:
            return any_buys[0]
    for verb in CARD_ACTION_ORDER:
        found = [a for a in options if a.verb == verb]
        if verb == "gift":
            found.sort(key=lambda a: int(a.args[1]))
        if verb == "betray":
            found = [a for a in found if int(a.args[1]) not in player.court]
        if found:
            return found[0]
    return PASS


def _steps(state: State, seat: int, options: list[Action]) -> Action:
    """Tax, build, battle: the first step offered, until none is left."""
    steps = [a for a in options if a != DONE]
    if steps and state.stack[-1]["kind"] == "tax":
        players = [a for a in steps if isinstance(a.args[0], str)]
        if players:
            return max(players, key=lambda a: state.players[state.seat(str(a.args[0]))].rupees)
    return steps[0] if steps else DONE


def _move(state: State, seat: int, options: list[Action]) -> Action:
    return DONE if DONE in options else options[0]


def _demand(state: State, seat: int, options: list[Action]) -> Action:
    return max(options, key=lambda a: int(a.args[0]))


def _pay(state: State, seat: int, options: list[Action]) -> Action:
    return Action("pay")


def _card_choice(state: State, seat: int, options: list[Action]) -> Action:
    cards = [int(a.args[0]) for a in options if a.verb == "spy"]
    card = best_card(state, seat, cards)
    return Action("spy", (card,)) if card is not None else options[0]


def _discard(state: State, seat: int, options: list[Action]) -> Action:
    return Action("discard", (card_to_discard(state, seat, [int(a.args[0]) for a in options]),))


def _prize(state: State, seat: int, options: list[Action]) -> Action:
    frame = state.stack[-1]
    assert frame["kind"] == "prize"
    prize = COURT_CARDS[frame["card"]].prize
    return Action("accept" if prize == state.players[seat].loyalty else "decline")


def _loyalty(state: State, seat: int, options: list[Action]) -> Action:
    coalition = max(COALITIONS, key=lambda c: (count_blocks(state, c), -COALITIONS.index(c)))
    return Action("loyalty", (coalition,))


def _choose(state: State, seat: int, options: list[Action]) -> Action:
    frame = state.stack[-1]
    assert frame["kind"] == "choose"
    if frame["effect"] == "rumor":
        others = [s for s in range(state.num_players) if s != seat]
        leader = max(others, key=lambda s: (state.players[s].vp, -s))
        return Action("choose", (state.name(leader),))
    return DECISIONS["choose"].default(state, frame, seat)


POLICIES: Final[dict[str, Policy]] = {
    "turn": _turn,
    "tax": _steps,
    "build": _steps,
    "battle": _steps,
    "move": _move,
    "bribe": _demand,
    "pay": _pay,
    "spy": _card_choice,
    "blackmail": _card_choice,
    "discard": _discard,
    "discard_each": _discard,
    "prize": _prize,
    "loyalty": _loyalty,
    "choose": _choose,
}


def choose(state: State, seat: int) -> Action:
    """The stand-in's action for `seat`; ValueError if the seat has nothing to decide."""
    options = options_for(state, seat)
    if not options:
        raise ValueError(f"{state.name(seat)} has nothing to decide now")
    frame = state.stack[-1]
    policy = POLICIES.get(frame["kind"])
    if policy is not None:
        action = policy(state, seat, options)
    else:
        action = DECISIONS[frame["kind"]].default(state, frame, seat)
        if action == DONE and len(options) > 1:
            action = next(a for a in options if a != DONE)
    return action if action in options else options[0]
