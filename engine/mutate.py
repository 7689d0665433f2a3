"""Mutated state documents, for fuzzing the state reader (benchmarks/state_fuzz.py, tests).

A state that `engine.loads` accepts must never make the engine crash: every legal action
and every view must work on it. To test that, real states from random playouts are
mutated the way a careless hand or a hostile program would: a number changed, a card id,
a seat, a frame's field or kind, a list item deleted or duplicated, two cards swapped.
Mutations are drawn from a `random.Random` the caller seeds, so a run is reproducible.
This module changes only the documents it is given; it lives in the engine, like
`engine.playout`, so that the benchmark and the tests share one definition.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Final, TypeVar

from engine.cards import BORDERS, COALITIONS, REGION_IDS, SUITS
from engine.errors import MoveError, StateError
from engine.game import KNOWN_FRAMES, apply, legal_seat_actions, pending, step
from engine.playout import NAMES
from engine.rng import below, next_u64, seed_state
from engine.rules.setup import new_game
from engine.serialize import from_dict, to_dict
from engine.view import view

Doc = dict[str, Any]
Path = tuple[str | int, ...]

# Where mutations do the most harm: the fields the conservation laws do not cover.
HOT: Final = ("stack", "effects", "winners", "spies", "wakhan", "active", "placed", "used_cards")
WORDS: Final[tuple[str, ...]] = (
    *REGION_IDS,
    *BORDERS,
    *COALITIONS,
    *SUITS,
    *sorted(KNOWN_FRAMES),
    "rumor",
    "courtly_manners",
    "new_tactics",
    "draw",
    "actions",
    "bonus",
    "end",
    "army",
    "road",
    "tribe",
    "spy",
    "gift",
    "play",
    "battle",
    "left",
    "right",
    "hand",
    "court",
    "any",
    "",
    "x",
)


def sample_states(games: int, seed: int, every: int = 9) -> list[Doc]:
    """States of random games (2 to 5 players, and against Wakhan), one every `every` steps."""
    docs: list[Doc] = []
    rng = seed_state(seed)
    for index in range(games):
        rng, game_seed = next_u64(rng)
        wakhan = index % 3 == 2
        players = 1 + index % 2 if wakhan else 2 + index % 4
        docs.extend(_walk(players, game_seed, wakhan, every))
    return docs


def _walk(players: int, seed: int, wakhan: bool, every: int) -> Iterator[Doc]:
    state = new_game(list(NAMES[:players]), seed, {"wakhan": True} if wakhan else None)
    rng = seed_state(seed)
    steps = 0
    while state.phase != "over":
        if steps % every == 0:
            yield copy.deepcopy(to_dict(state))  # to_dict shares the live state's lists
        choices = legal_seat_actions(state)
        rng, pick = below(rng, len(choices))
        step(state, *choices[pick])
        steps += 1
    yield copy.deepcopy(to_dict(state))


def mutate(doc: Doc, rng: random.Random) -> tuple[Doc, str]:
    """A mutated copy of `doc` (one to three changes) and what was changed, in words."""
    new = copy.deepcopy(doc)
    done = [MUTATIONS[rng.randrange(len(MUTATIONS))](new, rng) for _ in range(rng.randint(1, 3))]
    return new, "; ".join(done)


@dataclass
class Outcome:
    """What became of one mutated document: refused, or accepted and played on."""

    accepted: bool
    actions: int = 0  # legal actions applied
    crashes: list[str] = field(default_factory=list)  # what crashed, with the exception


def exercise(doc: Doc) -> Outcome:
    """Load `doc`; if accepted, apply every legal action and make every view of it.

    An exception that is not one of the engine's own errors is a crash, while loading too.
    """
    try:
        state = from_dict(doc)
    except StateError:
        return Outcome(accepted=False)
    except Exception as error:  # reading must refuse, never crash
        return Outcome(accepted=False, crashes=[f"load: {error!r}"])
    outcome = Outcome(accepted=True)
    _guard(outcome, "pending", lambda: pending(state))
    for seat in [None, *range(state.num_players)]:
        name = None if seat is None else state.name(seat)
        _guard(outcome, f"view {name}", partial(view, state, name))
    for seat, action in _guard(outcome, "legal", lambda: legal_seat_actions(state)) or []:
        outcome.actions += 1
        _guard(outcome, f"{seat}: {action}", partial(apply, state, seat, action))
    return outcome


T = TypeVar("T")


def _guard(outcome: Outcome, what: str, run: Callable[[], T]) -> T | None:
    try:
        return run()
    except MoveError:
        return None
    except Exception as error:  # what we look for
        outcome.crashes.append(f"{what}: {error!r}")
        return None


def _paths(value: Any, path: Path = ()) -> Iterator[Path]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _pick_path(doc: Doc, rng: random.Random) -> Path:
    """A path into the document, half the time under a field the laws do not cover."""
    root: Path = ()
    if rng.random() < 0.5:
        root = (rng.choice([key for key in HOT if key in doc]),)
    paths = [p for p in _paths(_get(doc, root), root) if p and p[0] != "log"]
    return rng.choice(paths) if paths else ("active",)


def _get(doc: Any, path: Path) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _set(doc: Any, path: Path, value: Any) -> None:
    _get(doc, path[:-1])[path[-1]] = value


def _numbers(value: int, rng: random.Random) -> int:
    return rng.choice(
        [-1, 0, 1, 2, value + 1, value - 1, 7, 99, 100, 101, 117, 10**9, rng.randint(0, 116)]
    )


def change_value(doc: Doc, rng: random.Random) -> str:
    """A number, a word, a flag or a null replaced by another of its kind (or another kind)."""
    path = _pick_path(doc, rng)
    old = _get(doc, path)
    new: Any
    if rng.random() < 0.1:
        new = rng.choice([None, "1", [], {}, 1.5, True, [0]])
    elif isinstance(old, bool):
        new = not old
    elif isinstance(old, int):
        new = _numbers(old, rng)
    elif isinstance(old, str):
        new = rng.choice(WORDS)
    elif old is None:
        new = rng.choice([0, 1, "afghan", 101])
    else:
        return change_list(doc, rng)
    _set(doc, path, new)
    return f"{_show(path)}: {old!r} -> {new!r}"


def change_list(doc: Doc, rng: random.Random) -> str:
    """An item of a list deleted, duplicated, added or moved; a key of an object deleted."""
    paths = [p for p in _paths(doc) if p and isinstance(_get(doc, p), list | dict)]
    path = rng.choice(paths)
    target = _get(doc, path)
    if isinstance(target, dict):
        if not target:
            target["1"] = 0
            return f"{_show(path)}: key added"
        key = rng.choice(list(target))
        del target[key]
        return f"{_show(path)}: key {key!r} deleted"
    how = rng.choice(["delete", "duplicate", "append", "swap", "clear"])
    if not target or how == "append":
        target.append(rng.choice([0, 1, 7, 101, -1, "kabul"]))
    elif how == "delete":
        del target[rng.randrange(len(target))]
    elif how == "duplicate":
        target.insert(rng.randrange(len(target)), copy.deepcopy(rng.choice(target)))
    elif how == "swap":
        i, j = rng.randrange(len(target)), rng.randrange(len(target))
        target[i], target[j] = target[j], target[i]
    else:
        target.clear()
    return f"{_show(path)}: {how}"


def change_frame(doc: Doc, rng: random.Random) -> str:
    """A frame's kind changed, a frame deleted, duplicated or moved, or a field of one set."""
    stack = doc.get("stack")
    if not isinstance(stack, list) or not stack:
        return change_value(doc, rng)
    index = rng.randrange(len(stack))
    frame = stack[index]
    if not isinstance(frame, dict):
        return change_value(doc, rng)
    how = rng.choice(["kind", "delete", "duplicate", "move", "field"])
    if how == "kind":
        old, frame["kind"] = frame.get("kind"), rng.choice(sorted(KNOWN_FRAMES))
        return f"stack[{index}].kind: {old!r} -> {frame['kind']!r}"
    if how == "delete":
        del stack[index]
    elif how == "duplicate":
        stack.insert(rng.randrange(len(stack) + 1), copy.deepcopy(frame))
    elif how == "move":
        stack.insert(rng.randrange(len(stack) + 1), stack.pop(index))
    else:
        fields = [key for key in frame if key != "kind"] or ["kind"]
        key = rng.choice(fields)
        old = frame[key]
        frame[key] = _numbers(old, rng) if isinstance(old, int) else rng.choice(WORDS)
        return f"stack[{index}].{key}: {old!r} -> {frame[key]!r}"
    return f"stack[{index}]: {how}"


def swap_cards(doc: Doc, rng: random.Random) -> str:
    """Two cards exchange places: every card is still in one place, but maybe the wrong one."""
    places = [p for p in _paths(doc) if _is_card_place(p) and isinstance(_get(doc, p), int)]
    if len(places) < 2:
        return change_value(doc, rng)
    first, second = rng.sample(places, 2)
    a, b = _get(doc, first), _get(doc, second)
    _set(doc, first, b)
    _set(doc, second, a)
    return f"swap {_show(first)} ({a}) and {_show(second)} ({b})"


def _is_card_place(path: Path) -> bool:
    if not path:
        return False
    head = path[0]
    if head in ("deck", "removed", "discard"):
        return True
    if head == "market":
        return len(path) == 4 and path[1] == "cards"
    if head == "stack":
        return path[-1] == "card"
    return head == "players" and len(path) == 4 and path[2] in ("hand", "court", "prizes")


def _show(path: Path) -> str:
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else f".{key}"
    return text.lstrip(".")


MUTATIONS: Final[tuple[Callable[[Doc, random.Random], str], ...]] = (
    change_value,
    change_value,
    change_list,
    change_frame,
    change_frame,
    swap_cards,
)
