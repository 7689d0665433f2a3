"""Wakhan, the automated opponent [Playing with Wakhan, pp. 16-18].

Her turn is a procedure, `wakhan_turn`, that needs no one: it draws an AI card, then takes
two actions from the card's list, top to bottom, starting again at the top while actions
remain and some listed action is still valid; actions of favored-suit cards are bonus
actions that do not count. Before each action, Wakhan's Ambition may make her buy a
Dominance Check instead. Then she takes her bonus actions: the leftmost unused card of the
favored suit in her court, its leftmost action she can take, and so on. Then cleanup.

Every decision she must answer, on her turn or on anyone else's (a bribe she is owed, a
road or a spy of a card she plays, a discard, a prize, a Safe House...), is answered by
the automaton `answer` below, which `flow.run` asks before anything else. Each choice is
written to the log with its reason.

Her card-based actions are in `engine/rules/wakhan_actions.py`, radicalize and her
Ambition in `engine/rules/wakhan_radicalize.py`, the AI deck in `wakhan_deck.py` and card
priority in `wakhan_priority.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from engine.actions import Action
from engine.cards import COURT_CARDS, card_name
from engine.frames import (
    BribeFrame,
    ChooseFrame,
    CleanupFrame,
    Frame,
    RoadFrame,
    WakhanDrawFrame,
    WakhanTurnFrame,
)
from engine.phrases import P
from engine.rules import card_actions, wakhan_actions, wakhan_radicalize, words
from engine.rules.card_actions import ACTIONS_PER_TURN
from engine.rules.events import CHOICES
from engine.rules.flow import DECISIONS, automaton, procedure, push
from engine.rules.wakhan_deck import (
    action_term,
    arrow_target,
    border_order,
    describe,
    draw,
    front,
    humans,
    region_priority,
    sync_pragmatic_loyalty,
)
from engine.rules.wakhan_priority import best_card, card_to_discard, has_most_spies
from engine.state import State

# -- her turn --------------------------------------------------------------------------------


@procedure("wakhan_turn")
def wakhan_turn(state: State, frame: WakhanDrawFrame | WakhanTurnFrame) -> None:
    """One step of Wakhan's turn: `draw`, then `actions`, `bonus` and `end`."""
    seat = frame["player"]
    if frame["step"] == "draw":
        number = draw(state)
        state.note(
            P(
                "Wakhan drew AI card %(number)s: %(card)s",
                number=number,
                card=describe(state, number),
            )
        )
        sync_pragmatic_loyalty(state)
        state.stack[-1] = WakhanTurnFrame(
            kind="wakhan_turn", player=seat, step="actions", next=0, used=0, skipped=0, tried=[]
        )
        return
    state.actions_used = frame["used"]
    if frame["step"] == "actions":
        take_next_action(state, frame, seat)
    elif frame["step"] == "bonus":
        take_next_bonus_action(state, frame, seat)
    else:
        state.stack.pop()
        state.note(P("Wakhan ended her turn"))
        push(state, CleanupFrame(kind="cleanup", step="court"))


def take_next_action(state: State, frame: WakhanTurnFrame, seat: int) -> None:
    """Her Ambition, else the next listed action of the AI card (skipped if not valid)."""
    card = front(state)
    assert card is not None
    listed = card.actions
    if frame["used"] >= ACTIONS_PER_TURN or frame["skipped"] >= len(listed):
        if frame["used"] < ACTIONS_PER_TURN:
            state.note(P("Wakhan has no valid action left on her AI card"))
        frame["step"] = "bonus"
        return
    check = wakhan_radicalize.ambition(state, seat)
    if check is not None:
        state.note(P("Wakhan's Ambition: she buys the Dominance Check"))
        wakhan_radicalize.radicalize(
            state, seat, check, P("she would score the most from it, or win the game")
        )
        frame["used"] += 1
        frame["skipped"] = 0
        return
    action = listed[frame["next"]]
    frame["next"] = (frame["next"] + 1) % len(listed)
    kind = take_listed_action(state, seat, action)
    if kind is None:
        state.note(P("Wakhan skips %(action)s: it is not valid now", action=action_term(action)))
        frame["skipped"] += 1
        return
    frame["skipped"] = 0
    if kind == "core":
        frame["used"] += 1


def take_listed_action(state: State, seat: int, action: str) -> str | None:
    """Take one action of the AI card's list: "core", "bonus", or None if not valid."""
    if action.startswith("radicalize"):
        choice = wakhan_radicalize.choose(state, seat, action)
        if choice is None:
            return None
        wakhan_radicalize.radicalize(state, seat, *choice)
        return "core"
    if action == "battle_on_most_spied_card_with_wakhan_spy":
        return wakhan_actions.take_listed(
            state, seat, "battle", wakhan_actions.plan_battle_most_spied
        )
    return wakhan_actions.take_listed(state, seat, action)


def take_next_bonus_action(state: State, frame: WakhanTurnFrame, seat: int) -> None:
    """The leftmost unused favored-suit card of her court, its leftmost possible action."""
    for card in state.players[seat].court:
        if card in frame["tried"] or card in state.used_cards:
            continue
        if not card_actions.is_favored_card(state, seat, card):
            continue
        frame["tried"].append(card)
        wakhan_actions.take_bonus(state, seat, card)
        return
    frame["step"] = "end"


# -- her answers to decisions ----------------------------------------------------------------

# A chooser is registered under a decision kind and reads that kind's frame type (hence Any).
Chooser = Callable[[State, Any, int, list[Action]], Action]


def _demand_full(state: State, frame: BribeFrame, seat: int, options: list[Action]) -> Action:
    state.note(P("Wakhan demands the full bribe"))
    return Action("demand", (frame["amount"],))


def _pay(state: State, frame: Frame, seat: int, options: list[Action]) -> Action:
    state.note(P("Wakhan pays the bribe: she pays all costs, like any player"))
    return Action("pay")


def _road(state: State, frame: RoadFrame, seat: int, options: list[Action]) -> Action:
    """Roads on consecutive borders in the order of her AI card's regions [p. 17]."""
    order = border_order(state, frame["region"])
    placed = roads_placed_before(state, seat)
    wanted = Action("road", (order[placed % len(order)],))
    state.note(
        P(
            "Wakhan's road %(n)s goes to %(border)s, following her AI card",
            n=placed + 1,
            border=words.name_term(str(wanted.args[0])),
        )
    )
    return wanted if wanted in options else options[0]


def roads_placed_before(state: State, seat: int) -> int:
    """Road icons of the card being played that were resolved before this one."""
    for below in reversed(state.stack[:-1]):
        if below["kind"] == "icons" and below["player"] == seat:
            impacts = COURT_CARDS[below["card"]].impacts[: below["index"] - 1]
            return sum(1 for impact in impacts if impact.kind == "road")
    return 0


def _spy(state: State, frame: Frame, seat: int, options: list[Action]) -> Action:
    """The highest-priority card of the region where she does not have the most spies."""
    cards = [int(a.args[0]) for a in options]
    contested = [c for c in cards if not has_most_spies(state, seat, c)]
    card = best_card(state, seat, contested or cards)
    if card is None:
        return options[0]
    spied = words.card_name_term(card_name(card))
    if contested:
        state.note(
            P(
                "Wakhan's spy goes to %(card)s: the highest-priority card there where she does "
                "not have the most spies",
                card=spied,
            )
        )
    else:
        state.note(P("Wakhan's spy goes to %(card)s: the highest-priority card there", card=spied))
    return Action("spy", (card,))


def _take(state: State, frame: Frame, seat: int, options: list[Action]) -> Action:
    """A piece to take from the map: armies, then roads, by her AI card; tribes, spies, gifts."""
    order = region_priority(state)
    borders = [b for r in order for b in border_order(state, r)]
    spy_cards = [int(a.args[1]) for a in options if a.args[0] == "spy"]
    best_spy = best_card(state, seat, spy_cards)

    def rank(action: Action) -> tuple[int, int]:
        kind, where = action.args
        if kind in ("army", "tribe"):
            return 0, order.index(str(where))
        if kind == "road":
            return 1, borders.index(str(where)) if str(where) in borders else len(borders)
        if kind == "spy":
            return 2, 0 if where == best_spy else 1
        return 3, int(where)

    chosen = min(options, key=rank)
    state.note(
        P(
            "Wakhan takes her %(piece)s from %(where)s: armies, roads and tribes by her AI "
            "card's regions first, then spies by card priority, then gifts",
            piece=words.PIECE_TERMS.get(str(chosen.args[0])) or str(chosen.args[0]),
            where=words.place_id_term(chosen.args[1]),
        )
    )
    return chosen


def _discard(state: State, frame: Frame, seat: int, options: list[Action]) -> Action:
    card = card_to_discard(state, seat, [int(a.args[0]) for a in options])
    discarded = words.card_name_term(card_name(card))
    state.note(P("Wakhan discards %(card)s, first in her discard order", card=discarded))
    return Action("discard", (card,))


def _choose(state: State, frame: ChooseFrame, seat: int, options: list[Action]) -> Action:
    """A player by the red arrow, the favored suit, or a region for Rebuke."""
    effect = frame["effect"]
    if effect in ("rumor", "other_persuasive_methods"):
        wanted = Action("choose", (state.name(arrow_target(state)),))
        why = P("the player the red arrow points at")
    elif effect == "pashtunwali_values":
        wanted = Action("choose", (state.favored,))
        why = P("she always chooses the favored suit")
    else:
        wanted = Action("choose", (rebuke_region(state, seat),))
        why = P("the leftmost region on her AI card where others have tribes and she has none")
    assert effect in CHOICES
    chosen = wanted if wanted in options else options[0]
    choice = words.id_term(str(chosen.args[0]))
    state.note(P("Wakhan chooses %(choice)s: %(why)s", choice=choice, why=why))
    return chosen


def rebuke_region(state: State, seat: int) -> str:
    """The leftmost region on her AI card where others have tribes and she has none."""
    order = region_priority(state)
    for region in order:
        tribes = state.tribes[region]
        if not tribes[seat] and any(tribes[s] for s in humans(state)):
            return region
    return next((r for r in order if not state.tribes[r][seat]), order[0])


def _accept(state: State, frame: Frame, seat: int, options: list[Action]) -> Action:
    state.note(P("Wakhan always takes the loyalty prize"))
    return Action("accept")


def _best_spy_card(state: State, frame: Frame, seat: int, options: list[Action]) -> Action:
    """'May' abilities are always used: a spy on the highest-priority card offered."""
    cards = [int(a.args[0]) for a in options if a.verb == "spy"]
    card = best_card(state, seat, cards)
    if card is None:
        return options[0]
    state.note(
        P(
            "Wakhan always uses what she may do: a spy on %(card)s, the highest-priority card "
            "offered",
            card=words.card_name_term(card_name(card)),
        )
    )
    return Action("spy", (card,))


CHOOSERS: Final[dict[str, Chooser]] = {
    "bribe": _demand_full,
    "pay": _pay,
    "road": _road,
    "spy": _spy,
    "take": _take,
    "discard": _discard,
    "discard_each": _discard,
    "choose": _choose,
    "prize": _accept,
    "blackmail": _best_spy_card,
    "safe_house": _best_spy_card,
    "tax": wakhan_actions.tax_step,
    "build": wakhan_actions.build_step,
    "infrastructure": wakhan_actions.build_step,
    "move": wakhan_actions.move_step,
    "battle": wakhan_actions.battle_step,
}


@automaton
def answer(state: State, frame: Frame) -> tuple[int, Action] | None:
    """Wakhan's answer when she must decide on the frame on top, else None."""
    assert state.wakhan is not None
    seat = state.wakhan.seat
    spec = DECISIONS[frame["kind"]]
    if seat not in spec.deciders(state, frame):
        return None
    options = spec.options(state, frame, seat)
    if not options:
        return None
    chooser = CHOOSERS.get(frame["kind"])
    action = chooser(state, frame, seat, options) if chooser else spec.default(state, frame, seat)
    if action not in options:
        action = options[0]
    return seat, action
