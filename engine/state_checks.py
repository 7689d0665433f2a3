"""What reading a state checks beyond the schema and the conservation laws (docs/state.md).

A state is read from a file anyone may edit, so everything the rules later rely on is
checked when it is read, not found broken in the middle of an action: every frame of the
stack against its TypedDict (engine/frames.py) and against the position (seats, cards and
where they must be, counts, indexes), every lasting effect, the winners, the seat whose turn
it is, and the fields the conservation laws leave open.

The types are not restated here: the checks of a frame kind are generated from its
TypedDict's annotations (`typing.get_type_hints`), so a new kind, or a new field of a known
type, is checked without new code. What a field means for the position (that `player` is a
seat, that a tax's `card` is in the taxing player's court) is looked up by field name in
`FIELD_RULES`, and by kind and field name where a kind gives the field a meaning of its own.
Each problem is reported with its path: `stack[2].card: -1 is not a court card`.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from engine.actions import Action, is_verb
from engine.cards import BORDERS, COURT_CARDS, EVENT_CARDS, REGION_IDS, WAKHAN_CARDS
from engine.frames import Effect, Frame
from engine.rules.card_actions import ACTIONS_PER_TURN
from engine.rules.card_based import CARD_ACTIONS
from engine.rules.events import CHOICES, LASTING_GLOBAL, LASTING_PERSONAL
from engine.state import GIFT_COSTS, TOTAL_RUPEES, State

# Every count on a frame (rupees, steps, cards owed) is bounded by the 36 rupees of the
# game: no step repeats more often than there are rupees, and no bribe exceeds them.
COUNT_LIMIT = TOTAL_RUPEES
PERSONAL = frozenset(LASTING_PERSONAL | {"rumor"})  # belong to a seat
GLOBAL = frozenset(LASTING_GLOBAL | {"pashtunwali_values"})  # on everyone: player null
COURT_SET = frozenset(COURT_CARDS)
CARD_SET = COURT_SET | frozenset(EVENT_CARDS)
PIECES = ("army", "road", "tribe", "spy", "gift")
CLEANUP_REASONS = ("court limit", "hand limit")
DISCARD_REASONS = (*CLEANUP_REASONS, "leverage")

# -- types, from the annotations -------------------------------------------------------------

TypeCheck = Callable[[object], bool]


def type_check(hint: Any) -> tuple[TypeCheck, str]:
    """A predicate for values of `hint`, and the hint in words, for the messages."""
    origin = get_origin(hint)
    if hint in (int, str, bool):
        words = {int: "an integer", str: "a string", bool: "true or false"}[hint]
        return (lambda value: type(value) is hint), words
    if hint is type(None):
        return (lambda value: value is None), "null"
    if origin is Literal:
        allowed = get_args(hint)
        return (lambda value: type(value) is str and value in allowed), "one of " + ", ".join(
            map(str, allowed)
        )
    if origin in (Union, types.UnionType):
        parts = [type_check(arg) for arg in get_args(hint)]
        return (lambda value: any(ok(value) for ok, _ in parts)), " or ".join(w for _, w in parts)
    if origin is list:
        item, words = type_check(get_args(hint)[0])
        return (lambda value: type(value) is list and all(map(item, value))), f"a list of {words}"
    raise TypeError(f"no check for {hint!r}")


class Shape:
    """The fields of a TypedDict, each with its check, in the order they are written."""

    def __init__(self, typed: type) -> None:
        self.fields = {name: type_check(hint) for name, hint in get_type_hints(typed).items()}

    def problems(self, value: Mapping[str, object], path: str) -> list[str]:
        extra = [key for key in value if key not in self.fields]
        missing = [key for key in self.fields if key not in value]
        if extra or missing:
            return [f"{path}: needs exactly {', '.join(self.fields)}"]
        return [
            f"{path}.{name}: {value[name]!r} is not {words}"
            for name, (ok, words) in self.fields.items()
            if not ok(value[name])
        ]


def _frame_shapes() -> dict[str, list[Shape]]:
    shapes: dict[str, list[Shape]] = {}
    for typed in get_args(Frame):
        (kind,) = get_args(get_type_hints(typed)["kind"])
        shapes.setdefault(kind, []).append(Shape(typed))
    return shapes


FRAME_SHAPES = _frame_shapes()
EFFECT_SHAPE = Shape(Effect)


def frame_type_problems(frame: object, path: str) -> list[str]:
    """Whether a frame is one of the kinds of `Frame`, with its fields of the right types."""
    if not isinstance(frame, dict):
        return [f"{path}: not an object"]
    kind = frame.get("kind")
    shapes = FRAME_SHAPES.get(kind) if isinstance(kind, str) else None
    if shapes is None:
        return [f"{path}: unknown kind {frame.get('kind')!r}"]
    found = [shape.problems(frame, path) for shape in shapes]
    if any(not problems for problems in found):
        return []
    # A kind with several shapes (Wakhan's turn before and after her draw): the closest.
    return min(found, key=len)


def effect_type_problems(effect: object, path: str) -> list[str]:
    if not isinstance(effect, dict):
        return [f"{path}: not an object"]
    return EFFECT_SHAPE.problems(effect, path)


# -- meanings, by field name -----------------------------------------------------------------

FieldRule = Callable[[State, Any, Any], str | None]  # (state, frame, value) -> what is wrong


def is_seat(state: State, value: object) -> bool:
    return type(value) is int and 0 <= value < state.num_players


def seat(state: State, frame: Any, value: int) -> str | None:
    return None if is_seat(state, value) else f"{value} is not a seat"


def seats(state: State, frame: Any, value: list[int]) -> str | None:
    if not all(is_seat(state, s) for s in value) or len(set(value)) != len(value):
        return f"{value} are not distinct seats"
    return None


def count(state: State, frame: Any, value: int) -> str | None:
    return _up_to(value, COUNT_LIMIT)


def court_card(state: State, frame: Any, value: int) -> str | None:
    return None if value in COURT_CARDS else f"{value} is not a court card"


def court_cards(state: State, frame: Any, value: list[int]) -> str | None:
    wrong = [card for card in value if card not in COURT_CARDS]
    return f"{wrong} are not court cards" if wrong else None


def card_in_own_court(state: State, frame: Any, value: int) -> str | None:
    """The card a card-based action uses stays in its user's court while it lasts."""
    if value not in COURT_CARDS:
        return f"{value} is not a court card"
    if value not in state.players[frame["player"]].court:
        return f"{value} is not in {state.name(frame['player'])}'s court"
    return None


def icon_index(state: State, frame: Any, value: int) -> str | None:
    return _up_to(value, len(COURT_CARDS[frame["card"]].impacts))


def event_being_chosen(state: State, frame: Any, value: int) -> str | None:
    card = EVENT_CARDS.get(value)
    if card is None or card.if_purchased.id != frame["effect"]:
        return f"{value} is not the event card of {frame['effect']}"
    return None


def chosen_effect(state: State, frame: Any, value: str) -> str | None:
    return None if value in CHOICES else f"{value!r} is not an effect with a choice"


def betrayed_card(state: State, frame: Any, value: int) -> str | None:
    """A betrayed card waits in the discard pile while its prize is being decided."""
    if value not in COURT_CARDS or COURT_CARDS[value].prize is None:
        return f"{value} is not a court card with a prize"
    return None if value in state.discard else f"{value} is not in the discard pile"


def battle_site(state: State, frame: Any, value: str | int) -> str | None:
    if value in REGION_IDS or (type(value) is int and _in_a_court(state, value)):
        return None
    return f"{value!r} is not a region or a card in a court"


def take_piece(state: State, frame: Any, value: str) -> str | None:
    if value not in PIECES:
        return f"{value!r} is not one of {', '.join(PIECES)}"
    is_block = value in ("army", "road")
    if is_block != (frame["coalition"] is not None):
        return f"{value!r} needs {'a coalition' if is_block else 'coalition null'}"
    return None


def take_location(state: State, frame: Any, value: str | int) -> str | None:
    places: dict[str, Callable[[object], bool]] = {
        "army": lambda v: v in REGION_IDS,
        "tribe": lambda v: v in REGION_IDS,
        "road": lambda v: v in BORDERS,
        "spy": lambda v: v in COURT_CARDS,
        "gift": lambda v: v in GIFT_COSTS,
    }
    fits = places.get(frame["piece"])
    if fits is None or fits(value):
        return None
    return f"{value!r} is not a place for {frame['piece']!r}"


def discard_reason(state: State, frame: Any, value: str) -> str | None:
    return None if value in DISCARD_REASONS else f"{value!r} is not one of {DISCARD_REASONS}"


def bribed_action(state: State, frame: Any, value: list[Any]) -> str | None:
    """The action waiting for a bribe is one its payer can take once the bribe is settled."""
    payer = frame["payer"] if frame["kind"] == "bribe" else frame["player"]
    if not value or type(value[0]) is not str:
        return f"{value!r} is not an action"
    if not is_verb(value[0]):
        return f"{value!r} is not an action {state.name(payer)} can take"
    action = Action(value[0], tuple(value[1:]))
    if action.verb == "play":
        ok = len(action.args) == 2 and action.args[1] in ("left", "right")
        ok = ok and action.args[0] in state.players[payer].hand
        ok = ok and action.args[0] in COURT_CARDS
    else:
        row = CARD_ACTIONS.get(action.verb)
        card = action.args[0] if action.args else None
        ok = row is not None and type(card) is int and card in state.players[payer].court
        ok = ok and row is not None and action in row.options(state, payer, int(card or 0))
    return None if ok else f"{value!r} is not an action {state.name(payer)} can take"


def wakhan_seat(state: State, frame: Any, value: int) -> str | None:
    if state.wakhan is None or state.wakhan.seat != value:
        return f"{value} is not Wakhan's seat"
    return None


def wakhan_step(state: State, frame: Any, value: str) -> str | None:
    """After her draw, Wakhan's turn reads her face-up AI card: she must have one."""
    if value != "draw" and (state.wakhan is None or not state.wakhan.discard):
        return f"{value!r} needs a face-up AI card"
    return None


def ai_next(state: State, frame: Any, value: int) -> str | None:
    """A position in the face-up AI card's action list."""
    return _up_to(value, _ai_actions(state) - 1)


def ai_skipped(state: State, frame: Any, value: int) -> str | None:
    """Actions of the face-up AI card skipped in a row: at most all of them."""
    return _up_to(value, _ai_actions(state))


def _ai_actions(state: State) -> int:
    """How many actions the face-up AI card lists (wakhan_step has checked there is one)."""
    assert state.wakhan is not None
    return len(WAKHAN_CARDS[state.wakhan.discard[-1]].front.actions)


def _up_to(value: int, last: int) -> str | None:
    return None if 0 <= value <= last else f"{value} is not from 0 to {last}"


def actions_used(state: State, frame: Any, value: int) -> str | None:
    return _up_to(value, ACTIONS_PER_TURN)


def _in_a_court(state: State, card: int) -> bool:
    return any(card in p.court for p in state.players)


# Rules by field name, then by "kind.field" where a kind gives a field its own meaning.
# Procedures' fields are checked too: they run as soon as the frames above them are done.
FIELD_RULES: dict[str, FieldRule] = {
    "player": seat,
    "payer": seat,
    "ruler": seat,
    "players": seats,
    "amount": count,
    "demand": count,
    "remaining": count,
    "taken": count,
    "count": count,
    "card": court_card,
    "lost_from": court_card,
    "tried": court_cards,
    "action": bribed_action,
    "icons.index": icon_index,
    "tax.card": card_in_own_court,
    "build.card": card_in_own_court,
    "move.card": card_in_own_court,
    "battle.card": card_in_own_court,
    "battle.site": battle_site,
    "choose.card": event_being_chosen,
    "choose.effect": chosen_effect,
    "prize.card": betrayed_card,
    "take.piece": take_piece,
    "take.location": take_location,
    "discard.reason": discard_reason,
    "wakhan_turn.player": wakhan_seat,
    "wakhan_turn.step": wakhan_step,
    "wakhan_turn.next": ai_next,
    "wakhan_turn.skipped": ai_skipped,
    "wakhan_turn.used": actions_used,
}
# Checked first, as the rules of the other fields read them.
FIRST = ("player", "payer", "card", "effect", "piece", "coalition", "step")


def frame_problems(state: State, frame: Mapping[str, Any], path: str) -> list[str]:
    """What is wrong with one frame of the stack in this position (its types are right)."""
    kind = frame["kind"]
    names = [*(n for n in FIRST if n in frame), *(n for n in frame if n not in FIRST)]
    for name in names:
        rule = FIELD_RULES.get(f"{kind}.{name}") or FIELD_RULES.get(name)
        wrong = rule(state, frame, frame[name]) if rule is not None else None
        if wrong is not None:
            return [f"{path}.{name}: {wrong}"]  # the fields after it may depend on it
    return []


def effect_problems(state: State, effect: Effect, path: str) -> list[str]:
    """A lasting effect is one of its card's, and belongs to a seat or to everyone."""
    card = EVENT_CARDS.get(effect["card"])
    if effect["id"] not in PERSONAL | GLOBAL:
        return [f"{path}.id: {effect['id']!r} is not a lasting effect"]
    if card is None or effect["id"] not in (card.if_purchased.id, card.if_discarded.id):
        return [f"{path}.card: {effect['card']} is not the event card of {effect['id']}"]
    personal = effect["id"] in PERSONAL
    if personal and not is_seat(state, effect["player"]):
        return [f"{path}.player: {effect['player']} is not a seat"]
    if not personal and effect["player"] is not None:
        return [f"{path}.player: {effect['id']} is on everyone, so player is null"]
    return []


# -- the whole position ----------------------------------------------------------------------


def type_problems(stack: list[Any], effects: list[Any]) -> list[str]:
    """Every frame and effect has the fields of its TypedDict, of the right types."""
    problems = [p for i, f in enumerate(stack) for p in frame_type_problems(f, f"stack[{i}]")]
    return problems + [
        p for i, e in enumerate(effects) for p in effect_type_problems(e, f"effects[{i}]")
    ]


def position_problems(state: State) -> list[str]:
    """Everything the rules rely on that the schema and the conservation laws leave open."""
    problems = [problem for check in POSITION_CHECKS for problem in check(state)]
    if problems:
        return problems  # the frames' rules read hands and courts: they must be sound first
    for index, frame in enumerate(state.stack):
        problems += frame_problems(state, frame, f"stack[{index}]")
    for index, effect in enumerate(state.effects):
        problems += effect_problems(state, effect, f"effects[{index}]")
    return problems


def is_active_players(frame: Mapping[str, Any]) -> bool:
    """Frames that only the player whose turn it is can have: the turn itself, the icons of
    a card just played, and the discards of cleanup, which runs for `active` (its frame has
    no seat of its own)."""
    if frame["kind"] == "discard":
        return frame["reason"] in CLEANUP_REASONS
    return frame["kind"] in ("turn", "wakhan_turn", "icons")


def turn_problems(state: State) -> list[str]:
    """The turn, the icons being resolved and cleanup's discards are the active player's."""
    frames: list[Mapping[str, Any]] = list(state.stack)
    # A player that is no seat at all is named as such by the frame's own rules.
    return [
        f"stack[{i}].player: {f['player']} is not the active seat {state.active}"
        for i, f in enumerate(frames)
        if is_active_players(f) and is_seat(state, f["player"]) and f["player"] != state.active
    ]


def winner_problems(state: State) -> list[str]:
    """Winners are distinct seats in order, named exactly when the game is over."""
    winners = state.winners
    if not all(is_seat(state, s) for s in winners) or winners != sorted(set(winners)):
        return [f"winners: {winners} are not distinct seats in order"]
    if (state.phase == "over") != bool(winners):
        return ["winners: there are winners exactly when the phase is over"]
    if state.phase == "over" and state.stack:
        return ["stack: a game that is over has nothing pending"]
    return []


def card_list_problems(state: State) -> list[str]:
    """Hands, courts and prizes hold court cards (events are resolved at once), and so on."""
    problems: list[str] = []
    for seat, p in enumerate(state.players):
        for name, cards in (("hand", p.hand), ("court", p.court), ("prizes", p.prizes)):
            if not COURT_SET.issuperset(cards):
                wrong = [c for c in cards if c not in COURT_SET]
                problems.append(f"players[{seat}].{name}: {wrong} are not court cards")
    if state.removed != sorted(state.removed):
        problems.append("removed: not sorted")
    if not COURT_SET.issuperset(state.used_cards):
        problems.append(f"used_cards: {state.used_cards} are not all court cards")
    if not CARD_SET.issuperset(state.paid_cards):
        problems.append(f"paid_cards: {state.paid_cards} are not all cards")
    return problems


def spy_problems(state: State) -> list[str]:
    """Spies sit on court cards (an entry of zeros is refused by the conservation laws)."""
    return [
        f'spies["{card}"]: {card} is not a court card'
        for card in state.spies
        if card not in COURT_SET
    ]


def count_problems(state: State) -> list[str]:
    """Counts the conservation laws do not see are not negative."""
    problems: list[str] = []
    if min(map(min, state.market_rupees)) < 0:
        problems.append("market.rupees: a negative count")
    if min(state.block_supply.values()) < 0:
        problems.append("block_supply: a negative count")
    if min(state.placed.values(), default=0) < 0:
        problems.append("placed: a negative count")
    for seat, p in enumerate(state.players):
        if min(p.policy_demand.values(), default=0) < 0:
            problems.append(f"players[{seat}].policy.demand: a negative bribe")
    if state.actions_used > ACTIONS_PER_TURN:
        problems.append(f"actions_used: {state.actions_used} is not from 0 to 2")
    return problems


POSITION_CHECKS: tuple[Callable[[State], list[str]], ...] = (
    turn_problems,
    winner_problems,
    card_list_problems,
    spy_problems,
    count_problems,
)
