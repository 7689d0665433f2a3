"""The rules of Pax Pamir 2e, one module per section of the rulebook.

Importing this package registers every decision and procedure with `engine.rules.flow`.
"""

from engine.rules import (  # noqa: F401  (imported for their registrations)
    cleanup,
    court,
    dominance,
    events,
    limits,
    play,
    purchase,
    setup,
    turn,
    wakhan,
)
