"""Pending steps: named decisions and automatic procedures on one stack.

Everything the game waits for is a *frame* on `state.stack` (a plain JSON object with a
`kind`). A frame whose kind is a *procedure* runs by itself; a frame whose kind is a
*decision* waits for a player. Playing a card, for example, pushes an `icons` procedure
that resolves the card's impact icons one by one and pushes a `road` decision when a
border must be chosen. The top frame is always the one being worked on.

Each decision is named, says who decides (one player, or several at once), lists the
legal options, and has a default used when the deciding player never answers. A decision
left with no option at all lapses (a card owed by a player who has no cards left). Wakhan's
decisions (an automated player's), standing policies and forced single options are
answered automatically by `run`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, Generic, TypeVar

from engine.actions import Action
from engine.frames import Frame, Repeated, Seated
from engine.phrases import P, Phrase, Term
from engine.state import State

# The frame type a decision handles: the TypedDict of its kind (engine/frames.py).
AnyF = TypeVar("AnyF", bound=Mapping[str, object])
SeatedF = TypeVar("SeatedF", bound=Seated)
RepeatedF = TypeVar("RepeatedF", bound=Repeated)


class BaseDecision(Generic[AnyF]):
    """A kind of pending decision. Subclasses override what differs."""

    kind = ""
    section = "Sequence of Play, p. 9"
    # A forced choice (only one legal option) is made without asking. The main action of
    # a turn and bribes are never forced: they are answers a player must be able to give.
    auto_single = True

    def deciders(self, state: State, frame: AnyF) -> list[int]:
        """The seats that must answer this decision now."""
        raise NotImplementedError

    def options(self, state: State, frame: AnyF, seat: int) -> list[Action]:
        raise NotImplementedError

    def apply(self, state: State, frame: AnyF, seat: int, action: Action) -> None:
        raise NotImplementedError

    def has_options(self, state: State, frame: AnyF) -> bool:
        """Whether anyone has an option; a decision with none lapses."""
        return any(self.options(state, frame, seat) for seat in self.deciders(state, frame))

    def default(self, state: State, frame: AnyF, seat: int) -> Action:
        """The answer given for a player who never answers (see docs/decisions.md)."""
        return self.options(state, frame, seat)[0]

    def only_option(self, state: State, frame: AnyF, seat: int) -> Action | None:
        """The player's one legal option, or None when they have none or several."""
        options = self.options(state, frame, seat)
        return options[0] if len(options) == 1 else None

    def by_policy(self, state: State, frame: AnyF) -> tuple[int, Action] | None:
        """An answer given in advance by a standing policy, if any."""
        return None

    def prompt(self, state: State, frame: AnyF) -> str:
        """What is being decided, in English (the view's `pending.prompt`)."""
        return str(self.phrase(state, frame))

    def phrase(self, state: State, frame: AnyF) -> Phrase:
        """The prompt in a translatable form (engine/phrases.py)."""
        return P("%(kind)s", kind=Term(self.kind, translated=False))

    def cite(self, state: State, frame: AnyF) -> str:
        """The rulebook section behind this particular decision."""
        return self.section


class Decision(BaseDecision[SeatedF]):
    """A decision made by the one player the frame names."""

    def deciders(self, state: State, frame: SeatedF) -> list[int]:
        return [frame["player"]]


DONE: Final = Action("done")


class RepeatedDecision(Decision[RepeatedF]):
    """A step taken up to `frame["remaining"]` times; `done` stops it after the first.

    Tax, build, move and battle are made of such steps: one rupee, one block, one move,
    one piece removed at a time.
    """

    def steps(self, state: State, frame: RepeatedF, seat: int) -> list[Action]:
        raise NotImplementedError

    def each_step(self, state: State, frame: RepeatedF, seat: int) -> Iterator[Action]:
        """The steps one at a time, for tests that stop early; override it where the steps
        come from a generator, so both cannot drift."""
        return iter(self.steps(state, frame, seat))

    def take_step(self, state: State, frame: RepeatedF, seat: int, action: Action) -> None:
        raise NotImplementedError

    def options(self, state: State, frame: RepeatedF, seat: int) -> list[Action]:
        found = self.steps(state, frame, seat)
        return [*found, DONE] if frame["taken"] else found

    def has_options(self, state: State, frame: RepeatedF) -> bool:
        # `done` is an option once a step was taken; before, the first step will do.
        seat = frame["player"]
        return bool(frame["taken"]) or next(self.each_step(state, frame, seat), None) is not None

    def only_option(self, state: State, frame: RepeatedF, seat: int) -> Action | None:
        steps = self.each_step(state, frame, seat)
        first = next(steps, None)
        if frame["taken"]:  # `done` is an option too
            return DONE if first is None else None
        return first if first is not None and next(steps, None) is None else None

    def apply(self, state: State, frame: RepeatedF, seat: int, action: Action) -> None:
        if action == DONE:
            state.stack.pop()
            return
        frame["remaining"] -= 1
        frame["taken"] += 1
        if frame["remaining"] <= 0:
            state.stack.pop()
        self.take_step(state, frame, seat, action)

    def default(self, state: State, frame: RepeatedF, seat: int) -> Action:
        # Documented default: stop once a step was taken, else the first legal step.
        return DONE if frame["taken"] else self.options(state, frame, seat)[0]


# The registries are keyed by kind; each entry handles the frame type of its kind, which
# mypy cannot tie to the key, hence `Any` for the frame here and only here.
DECISIONS: Final[dict[str, BaseDecision[Any]]] = {}
PROCEDURES: Final[dict[str, Callable[[State, Any], None]]] = {}
# Automated players (Wakhan): given the frame on top, the answer of an automated decider.
Automaton = Callable[[State, Frame], tuple[int, Action] | None]
AUTOMATA: Final[list[Automaton]] = []

D = TypeVar("D", bound=BaseDecision[Any])
F = TypeVar("F", bound=Mapping[str, object])


# Kinds decided by the one player their frame names whose `has_options` and `only_option`
# are read from the list of options itself: `run` lists their options once a step and
# answers both questions from that list. Filled at registration, never changed after.
LISTED_ONCE: Final[set[str]] = set()


def decision(cls: type[D]) -> type[D]:
    """Register a decision kind: `decision(TaxDecision)` after the class.

    Called after the class, never as a class decorator: mypyc compiles a decorated class
    as a plain Python one, which may not inherit from the compiled BaseDecision. The kind
    is read off an instance, where mypyc keeps a class body's attribute defaults."""
    spec = cls()
    DECISIONS[spec.kind] = spec
    if (
        cls.deciders is Decision.deciders
        and cls.has_options is BaseDecision.has_options
        and cls.only_option is BaseDecision.only_option
    ):
        LISTED_ONCE.add(spec.kind)
    return cls


def procedure(kind: str) -> Callable[[Callable[[State, F], None]], Callable[[State, F], None]]:
    """Decorator: register an automatic step."""

    def register(fn: Callable[[State, F], None]) -> Callable[[State, F], None]:
        PROCEDURES[kind] = fn
        return fn

    return register


def automaton(fn: Automaton) -> Automaton:
    """Decorator: register an automated player's way of answering decisions."""
    AUTOMATA.append(fn)
    return fn


def push(state: State, frame: Frame) -> None:
    """Put a step on top of the stack: it is the one worked on next."""
    state.stack.append(frame)


def automatic_answer(
    state: State, frame: Frame, listed: tuple[int, list[Action]] | None = None
) -> tuple[int, Action] | None:
    """The answer the engine gives by itself, if any.

    In order: an automated player's (Wakhan's), a standing policy's, a forced choice.
    `listed` is the one decider's options when the caller has listed them already.
    """
    spec = DECISIONS[frame["kind"]]
    if state.wakhan is not None:
        for answer_for in AUTOMATA:
            found = answer_for(state, frame)
            if found is not None:
                return found
    answer = spec.by_policy(state, frame)
    if answer is not None:
        return answer
    if spec.auto_single:
        if listed is not None:
            seat, options = listed
            return (seat, options[0]) if len(options) == 1 else None
        for seat in spec.deciders(state, frame):
            only = spec.only_option(state, frame, seat)
            if only is not None:
                return seat, only
    return None


def run(state: State) -> None:
    """Carry out automatic steps until a player must decide or the game is over."""
    while state.phase != "over" and state.stack:
        frame = state.stack[-1]
        step = PROCEDURES.get(frame["kind"])
        if step is not None:
            step(state, frame)
            continue
        spec = DECISIONS[frame["kind"]]
        listed = None
        if frame["kind"] in LISTED_ONCE:
            seat = spec.deciders(state, frame)[0]
            listed = seat, spec.options(state, frame, seat)
            lapses = not listed[1]
        else:
            lapses = not spec.has_options(state, frame)
        if lapses:
            state.stack.pop()  # e.g. a discard owed by a player with no cards left
            continue
        answer = automatic_answer(state, frame, listed)
        if answer is None:
            return
        seat, action = answer
        spec.apply(state, frame, seat, action)
    if state.phase == "over":
        state.stack.clear()
