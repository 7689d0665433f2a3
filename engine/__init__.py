"""pamir's rules engine for Pax Pamir: Second Edition. Pure: no I/O, clock or globals.

    state = new_game(["alice", "bob"], seed=7)
    for player, action in legal_actions(state): ...
    state = apply(state, "alice", Action("loyalty", ("british",)))
    view(state, "alice")          # what alice may see, as JSON-ready data

The same seed and the same actions give byte-identical JSON (`dumps`).
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine import standin
    from engine.actions import Action, format_action
    from engine.errors import (
        AmbiguousActionError,
        IllegalActionError,
        MoveError,
        NotationError,
        StateError,
    )
    from engine.followups import FollowUp, follow_ups
    from engine.game import apply, default_action, legal_actions, pending, pending_phrase
    from engine.notation import parse_action, parse_line, read_action
    from engine.phrases import Phrase, Term
    from engine.resignation import resign
    from engine.rules.setup import new_game
    from engine.rules.words import describe_action, phrase_action
    from engine.serialize import dumps, from_dict, loads, to_dict
    from engine.state import State
    from engine.version import __version__
    from engine.view_types import PlayerView, PublicView, View

# `view` shares its module's name: imported lazily, it would be shadowed by the module
# `engine.view` once anything imported that (the import system sets the attribute).
from engine.view import view

# Each other name is imported when first used (PEP 562), not with the package: `import
# engine.playout` then loads only the rules, not the JSON schema's pydantic models, which
# were most of a short command's start-up.
_WHERE = {
    "Action": "engine.actions",
    "AmbiguousActionError": "engine.errors",
    "FollowUp": "engine.followups",
    "IllegalActionError": "engine.errors",
    "MoveError": "engine.errors",
    "NotationError": "engine.errors",
    "Phrase": "engine.phrases",
    "PlayerView": "engine.view_types",
    "PublicView": "engine.view_types",
    "State": "engine.state",
    "StateError": "engine.errors",
    "Term": "engine.phrases",
    "View": "engine.view_types",
    "__version__": "engine.version",
    "apply": "engine.game",
    "default_action": "engine.game",
    "describe_action": "engine.rules.words",
    "dumps": "engine.serialize",
    "follow_ups": "engine.followups",
    "format_action": "engine.actions",
    "from_dict": "engine.serialize",
    "legal_actions": "engine.game",
    "loads": "engine.serialize",
    "new_game": "engine.rules.setup",
    "parse_action": "engine.notation",
    "parse_line": "engine.notation",
    "pending": "engine.game",
    "pending_phrase": "engine.game",
    "phrase_action": "engine.rules.words",
    "read_action": "engine.notation",
    "resign": "engine.resignation",
    "standin": "engine.standin",
    "to_dict": "engine.serialize",
}


if not TYPE_CHECKING:  # hidden from mypy, which would take any unknown name for Any

    def __getattr__(name: str) -> object:
        module = _WHERE.get(name)
        if module is None:
            raise AttributeError(f"module 'engine' has no attribute {name!r}")
        found = import_module(module)
        value = found if module == f"engine.{name}" else getattr(found, name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*globals(), *_WHERE])


__all__ = [
    "Action",
    "AmbiguousActionError",
    "FollowUp",
    "IllegalActionError",
    "MoveError",
    "NotationError",
    "Phrase",
    "PlayerView",
    "PublicView",
    "State",
    "StateError",
    "Term",
    "View",
    "__version__",
    "apply",
    "default_action",
    "describe_action",
    "dumps",
    "follow_ups",
    "format_action",
    "from_dict",
    "legal_actions",
    "loads",
    "new_game",
    "parse_action",
    "parse_line",
    "pending",
    "pending_phrase",
    "phrase_action",
    "read_action",
    "resign",
    "standin",
    "to_dict",
    "view",
]
