"""The game state: every piece, card and rupee, and the stack of pending steps.

The state is a plain mutable container with a cheap `copy()`. The public API (`engine.apply`)
never mutates its input: it copies first. Rules modules mutate the copy in place.

Players are referred to by seat index (0-based, clockwise) everywhere inside the state;
names appear only in `players[i].name`. The JSON form is documented in docs/state.md and
produced by `engine.serialize`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, cast

from engine.cards import BORDERS, COALITIONS, REGION_IDS, Coalition, RegionId, Suit
from engine.frames import Effect
from engine.frames import Frame as Frame  # re-exported: rules modules import it from here
from engine.phrases import P, Phrase, Term

BLOCKS_PER_COALITION: Final = 12
CYLINDERS_ON_BOARD: Final = 10  # a player's eleventh cylinder is their victory point marker
STARTING_RUPEES: Final = 4
TOTAL_RUPEES: Final = 36
MARKET_ROWS: Final = 2
MARKET_COLUMNS: Final = 6
GIFT_COSTS: Final = (2, 4, 6)


@dataclass(slots=True)
class Player:
    """One player's own pieces and cards."""

    name: str
    loyalty: Coalition | None = None
    rupees: int = STARTING_RUPEES
    vp: int = 0
    cylinders: int = CYLINDERS_ON_BOARD  # cylinders on the player board (the supply)
    hand: list[int] = field(default_factory=list)
    court: list[int] = field(default_factory=list)  # left to right
    prizes: list[int] = field(default_factory=list)
    gifts: list[bool] = field(default_factory=lambda: [False, False, False])
    policy_pay: int | None = None  # standing policy: pay bribes up to this many rupees
    policy_demand: dict[int, int] = field(default_factory=dict)  # payer seat -> most demanded

    def copy(self) -> Player:
        return Player(
            self.name,
            self.loyalty,
            self.rupees,
            self.vp,
            self.cylinders,
            self.hand[:],
            self.court[:],
            self.prizes[:],
            self.gifts[:],
            self.policy_pay,
            dict(self.policy_demand),
        )


@dataclass(slots=True)
class WakhanState:
    """Wakhan's own components when she plays [Playing with Wakhan, p. 16].

    `deck` is the AI draw deck, top card first (secret, like the deck); `discard` is the AI
    discard pile, oldest first: its last card is the face-up AI card read on her turn.
    `backs` says which front/back pairing of the AI cards is used (docs/rules.md).
    """

    seat: int
    deck: list[int] = field(default_factory=list)
    discard: list[int] = field(default_factory=list)
    backs: str = "standard"  # standard | alternative

    def copy(self) -> WakhanState:
        return WakhanState(self.seat, self.deck[:], self.discard[:], self.backs)


@dataclass(slots=True)
class State:
    """A complete game position, including the secret deck order and the generator state."""

    players: list[Player]
    rng: int
    seed: int
    deck: list[int]  # top card first
    market: list[list[int | None]]  # [row][column], top row first
    market_rupees: list[list[int]]  # rupees lying on each market slot
    removed: list[int] = field(default_factory=list)  # cards set aside at setup (secret)
    discard: list[int] = field(default_factory=list)
    bank: int = 0
    out_of_game: int = 0  # rupees taken out of the game (unpaid action costs)
    favored: Suit = "political"
    block_supply: dict[Coalition, int] = field(default_factory=dict)
    armies: dict[RegionId, dict[Coalition, int]] = field(default_factory=dict)
    roads: dict[str, dict[Coalition, int]] = field(default_factory=dict)  # by border id
    tribes: dict[RegionId, list[int]] = field(default_factory=dict)  # per seat
    spies: dict[int, list[int]] = field(default_factory=dict)  # court card -> per seat
    effects: list[Effect] = field(default_factory=list)  # lasting event effects
    active: int = 0
    turn: int = 0
    actions_used: int = 0
    used_cards: list[int] = field(default_factory=list)  # cards used for an action
    paid_cards: list[int] = field(default_factory=list)  # market cards given a rupee
    placed: dict[str, int] = field(default_factory=dict)  # pieces placed this turn by key
    checks_resolved: int = 0
    phase: str = "setup"  # setup | play | over
    winners: list[int] = field(default_factory=list)
    stack: list[Frame] = field(default_factory=list)  # pending steps, top last
    log: list[str] = field(default_factory=list)  # what the last action did
    wakhan: WakhanState | None = None  # the automated opponent, when she plays
    # The log's lines in a translatable form, one per line of `log` (engine/phrases.py).
    # Not part of the position: never serialized, compared or shown; a state read from
    # JSON has none, and its readers fall back on `log`.
    said: list[Phrase] = field(default_factory=list, compare=False, repr=False)

    def copy(self) -> State:
        return State(
            players=[p.copy() for p in self.players],
            rng=self.rng,
            seed=self.seed,
            deck=self.deck[:],
            market=[row[:] for row in self.market],
            market_rupees=[row[:] for row in self.market_rupees],
            removed=self.removed[:],
            discard=self.discard[:],
            bank=self.bank,
            out_of_game=self.out_of_game,
            favored=self.favored,
            block_supply=dict(self.block_supply),
            armies={k: dict(v) for k, v in self.armies.items()},
            roads={k: dict(v) for k, v in self.roads.items()},
            tribes={k: v[:] for k, v in self.tribes.items()},
            spies={k: v[:] for k, v in self.spies.items()},
            effects=[e.copy() for e in self.effects],
            active=self.active,
            turn=self.turn,
            actions_used=self.actions_used,
            used_cards=self.used_cards[:],
            paid_cards=self.paid_cards[:],
            placed=dict(self.placed),
            checks_resolved=self.checks_resolved,
            phase=self.phase,
            winners=self.winners[:],
            stack=[copy_frame(frame) for frame in self.stack],
            log=self.log[:],
            wakhan=self.wakhan.copy() if self.wakhan is not None else None,
            said=self.said[:],
        )

    @property
    def num_players(self) -> int:
        return len(self.players)

    def is_wakhan(self, seat: int) -> bool:
        """Whether `seat` is Wakhan, the automated opponent."""
        return self.wakhan is not None and self.wakhan.seat == seat

    def seat(self, name: str) -> int:
        """The seat index of the player called `name` (case-insensitive)."""
        wanted = name.lower()
        for i, player in enumerate(self.players):
            if player.name.lower() == wanted:
                return i
        raise KeyError(name)

    def name(self, seat: int) -> str:
        return self.players[seat].name

    def note(self, text: str | Phrase) -> None:
        """Record a line of what happened, for views and reports: in English in `log`, and
        as a phrase in `said` (a plain text is a phrase kept as it is)."""
        self.log.append(str(text))
        self.said.append(text if isinstance(text, Phrase) else as_said(text))


def as_said(text: str) -> Phrase:
    """A line with no translation, as a phrase that shows it as it is."""
    return P("%(line)s", line=Term(text, translated=False))


def empty_board(num_players: int) -> dict[str, Any]:
    """Fresh piece tables: every coalition block in the supply, no pieces on the map."""
    return {
        "block_supply": {c: BLOCKS_PER_COALITION for c in COALITIONS},
        "armies": {r: {c: 0 for c in COALITIONS} for r in REGION_IDS},
        "roads": {b: {c: 0 for c in COALITIONS} for b in BORDERS},
        "tribes": {r: [0] * num_players for r in REGION_IDS},
    }


def copy_frame(frame: Frame) -> Frame:
    """A frame that can be changed without changing `frame`: rules change frames in place,
    setting fields and appending to their lists (a frame's values are numbers, strings,
    None or flat lists). A deep copy would do the same at several times the cost, on the
    path of every `engine.apply`."""
    copied = {key: value[:] if isinstance(value, list) else value for key, value in frame.items()}
    return cast(Frame, copied)
