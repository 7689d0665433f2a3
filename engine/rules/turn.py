"""The sequence of play [Sequence of Play, p. 9; Access to Actions, p. 8].

On their turn the active player takes up to two actions (purchase, play, or a card-based
action); card-based actions of favored-suit cards are bonus actions that do not count
against the two. They may stop early by passing. Then cleanup runs and play passes
clockwise.
"""

from __future__ import annotations

from typing import Final

from engine.actions import PASS, Action, Arg
from engine.cards import COURT_CARDS, AbilityId, RegionId
from engine.frames import BlackmailFrame, CleanupFrame, TurnFrame, WakhanDrawFrame
from engine.phrases import P, Phrase
from engine.rules import card_actions, limits, play, purchase, words
from engine.rules.abilities import has_ability
from engine.rules.card_actions import ACTIONS_PER_TURN, has_core_actions_left
from engine.rules.card_based import CARD_ACTIONS, KINDS_OF, perform
from engine.rules.flow import DONE, Decision, decision, push
from engine.state import Frame, State


def turn_options(state: State, seat: int) -> list[Action]:
    """Every action the active player may take now, pass last."""
    found: list[Action] = []
    if has_core_actions_left(state):
        found.extend(purchase.purchase_options(state, seat))
        found.extend(play.play_options(state, seat))
    found.extend(card_action_options(state, seat))
    found.append(PASS)
    return found


def card_action_options(state: State, seat: int) -> list[Action]:
    """Card-based actions of the player's court cards that may be taken now [p. 12]."""
    found: list[Action] = []
    # What may follow the card is the same for every card: asked once a kind.
    targets: dict[str, list[tuple[Arg, ...]]] = {}
    used, core_left = state.used_cards, has_core_actions_left(state)
    for card in state.players[seat].court:
        # `card_actions.can_use`, with what is the same for every card read once.
        if card in used or not (core_left or card_actions.is_favored_card(state, seat, card)):
            continue
        for kind in KINDS_OF[card]:
            known = targets.get(kind)
            if known is None:
                known = targets[kind] = CARD_ACTIONS[kind].targets(state, seat)
            if known:
                found.extend(CARD_ACTIONS[kind].with_card(card, known))
    return found


def has_bonus_actions(state: State, seat: int) -> bool:
    available: dict[str, bool] = {}  # the same for every card: asked once a kind
    for card in state.players[seat].court:
        if card not in state.used_cards and card_actions.is_favored_card(state, seat, card):
            for kind in KINDS_OF[card]:
                if kind not in available:
                    available[kind] = bool(CARD_ACTIONS[kind].targets(state, seat))
                if available[kind]:
                    return True
    return False


def is_turn_over(state: State) -> bool:
    """No actions left at all, bonus ones included: the turn ends without asking."""
    return not has_core_actions_left(state) and not has_bonus_actions(state, state.active)


def begin_card_action(state: State, seat: int, action: Action) -> None:
    """Start a card-based action, first bribing a hostage holder if one is owed."""
    card = int(action.args[0])
    holder, amount = card_actions.hostage_bribe(state, seat, card)
    if holder is not None and amount > 0:
        play.ask_bribe(state, holder, seat, amount, action)
        return
    perform(state, seat, action)


def begin_turn(state: State, seat: int) -> None:
    state.active = seat
    state.turn += 1
    state.actions_used = 0
    state.used_cards = []
    state.paid_cards = []
    state.placed = {}
    if state.is_wakhan(seat):
        # Wakhan's turn needs no one: a procedure plays it (engine/rules/wakhan.py).
        push(state, WakhanDrawFrame(kind="wakhan_turn", player=seat, step="draw"))
    else:
        push(state, TurnFrame(kind="turn", player=seat))
    for ability, region in BLACKMAIL.items():
        if has_ability(state, seat, ability):
            push(state, BlackmailFrame(kind="blackmail", player=seat, region=region))


BLACKMAIL: Final[dict[AbilityId, RegionId]] = {
    "blackmail_kandahar": "kandahar",
    "blackmail_herat": "herat",
}
# The card that carries each region's Blackmail, to name it in the prompt.
BLACKMAILERS: Final[dict[RegionId, int]] = {
    region: card
    for card, info in COURT_CARDS.items()
    for ability, region in BLACKMAIL.items()
    if info.ability is not None and info.ability.id == ability
}


class BlackmailDecision(Decision[BlackmailFrame]):
    """Blackmail: at the start of the turn, a spy on a spy-free card of the region, or not."""

    kind = "blackmail"
    section = "Card Precedence and Special Abilities, p. 8"

    def options(self, state: State, frame: BlackmailFrame, seat: int) -> list[Action]:
        region = frame["region"]
        free = [
            c
            for p in state.players
            for c in p.court
            if COURT_CARDS[c].region == region and c not in state.spies
        ]
        return [*[Action("spy", (c,)) for c in free], DONE]

    def apply(self, state: State, frame: BlackmailFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        if action != DONE:
            region = words.id_term(frame["region"])
            state.note(
                P("%(who)s blackmails (%(region)s)", who=words.who(state, seat), region=region)
            )
            limits.place_cylinder(state, seat, "spy", int(action.args[0]))

    def default(self, state: State, frame: Frame, seat: int) -> Action:
        return DONE

    def phrase(self, state: State, frame: BlackmailFrame) -> Phrase:
        return P(
            "%(who)s may blackmail with %(card)s: a spy on a %(region)s court card with no "
            "spies (`spy CARD`), or none (`done`)",
            who=words.who(state, frame["player"]),
            card=words.card_term(BLACKMAILERS[frame["region"]]),
            region=words.region_term(frame["region"]),
        )


decision(BlackmailDecision)


class TurnDecision(Decision[TurnFrame]):
    """The active player's choice of their next action, or pass."""

    kind = "turn"
    section = "Sequence of Play, p. 9"
    auto_single = False

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        return turn_options(state, seat)

    def apply(self, state: State, frame: Frame, seat: int, action: Action) -> None:
        verb = action.verb
        if verb == "pass":
            state.stack.pop()
            if has_core_actions_left(state):
                state.note(P("%(who)s ended their turn", who=words.who(state, seat)))
            push(state, CleanupFrame(kind="cleanup", step="court"))
        elif verb == "purchase":
            purchase.purchase(state, seat, int(action.args[0]))
        elif verb == "play":
            play.start_play(state, seat, int(action.args[0]), str(action.args[1]))
        elif verb in CARD_ACTIONS:
            begin_card_action(state, seat, action)
        else:
            raise ValueError(f"unknown turn action {action}")

    def has_options(self, state: State, frame: Frame) -> bool:
        return True  # passing is always possible

    def default(self, state: State, frame: Frame, seat: int) -> Action:
        return PASS

    def by_policy(self, state: State, frame: TurnFrame) -> tuple[int, Action] | None:
        if is_turn_over(state):
            return frame["player"], PASS
        return None

    def phrase(self, state: State, frame: TurnFrame) -> Phrase:
        left = max(0, ACTIONS_PER_TURN - state.actions_used)
        who = words.who(state, frame["player"])
        if not left:
            return P("%(who)s has used both actions and may take a bonus action or pass", who=who)
        return P(
            "%(who)s takes an action (%(left)s of %(total)s left) or passes",
            who=who,
            left=left,
            total=ACTIONS_PER_TURN,
        )


decision(TurnDecision)
