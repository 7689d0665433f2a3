"""pamir's rules engine for Pax Pamir: Second Edition. Pure: no I/O, clock or globals.

    state = new_game(["alice", "bob"], seed=7)
    for player, action in legal_actions(state): ...
    state = apply(state, "alice", Action("loyalty", ("british",)))
    view(state, "alice")          # what alice may see, as JSON-ready data

The same seed and the same actions give byte-identical JSON (`dumps`).
"""

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
from engine.view import view
from engine.view_types import PlayerView, PublicView, View

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
