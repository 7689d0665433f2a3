"""The end of a game on a player's resignation, when its host chose so (`on_resign =
"end"` in game.toml, docs/rules.md#resignation).

The rulebook has no resignation; this is the host's outcome, scored by the rulebook's own
end of game (Game End and Victory, p. 9) on the position as it stands, without a final
Dominance Check: of the players who did not resign, the one with the most victory points
wins; ties go to the most military stars in court, then the most rupees. The resigned
player cannot win. Like every engine function it is pure: the service calls it for the
line `resign` of a move file that the adjudicator wrote for a resigned player, and every
replay (`pamir verify`) calls it for that same line.
"""

from __future__ import annotations

from engine.errors import IllegalActionError
from engine.phrases import P, Value
from engine.rules.stars import count_stars
from engine.state import State


def resign(state: State, player: str) -> State:
    """The position after `player` resigns from a game that ends on resignation."""
    seat = state.seat(player)
    if state.phase == "over":
        raise IllegalActionError("game-over", P("the game is over"), section="Game End, p. 9")
    if state.is_wakhan(seat):
        raise IllegalActionError("not-your-decision", P("Wakhan does not resign"))
    new = state.copy()
    new.log = []
    new.said = []  # line for line with `log`

    def key(s: int) -> tuple[int, int, int]:
        p = new.players[s]
        return (p.vp, count_stars(new, s, "military"), p.rupees)

    others = [s for s in range(new.num_players) if s != seat]
    best = max(key(s) for s in others)
    new.winners = [s for s in others if key(s) == best]
    new.phase = "over"
    new.stack.clear()
    new.note(
        P(
            "%(who)s resigned: the game ends as it stands (the host's choice); the game is "
            "over: %(names)s won",
            who=new.name(seat),
            names=_and([new.name(s) for s in new.winners]),
        )
    )
    return new


def _and(names: list[str]) -> Value:
    """'bob', 'bob and cyd', 'bob and cyd and dan': the winners, translatable."""
    if len(names) == 1:
        return names[0]
    return P("%(names)s and %(last)s", names=_and(names[:-1]), last=names[-1])
