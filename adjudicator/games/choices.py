"""A player's legal actions described for people: what each is, what it costs, where the
rules bite.

Each legal action of `engine.options_for` becomes a `Choice`: its line of notation, its
verb, a label that names the card, its region and its cost, and warnings found with the
engine's own rule functions (a loyalty change, leverage, a bribe, an overthrow). Nothing
here decides a rule: the costs and consequences are asked of `engine.rules`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import engine
from engine.actions import Action
from engine.cards import COURT_CARDS, EVENT_CARDS, is_event
from engine.game import options_for
from engine.phrases import PN, P, Phrase, Value
from engine.rules import battle, card_actions, card_based, court, market, play, purchase, words
from engine.rules.ruling import ruler


@dataclass(frozen=True)
class Choice:
    """One legal action, described."""

    line: str  # the canonical notation of the action, as a move line: "purchase 96"
    verb: str  # the action's verb, the group it is listed under
    label: Phrase  # what it is, for people: "Sikh Merchants in Lahore (Punjab), 2 rupees"
    cost: int | None  # the rupees it costs now (None when it costs none / not known)
    warnings: tuple[Phrase, ...]  # where the rules bite; empty mostly


# The order of the groups when two are as long: the turn's own actions before the
# card-based ones, the answers to a pending step after them.
VERB_ORDER = (
    "pass",
    "purchase",
    "play",
    "tax",
    "gift",
    "build",
    "move",
    "betray",
    "battle",
)

# Each group's heading, in words: the verb alone is the notation's, which a player who
# clicks need not know. The turn's actions first, then the answers to a step.
HEADINGS: dict[str, Phrase] = {
    "pass": P("End your turn"),
    "purchase": P("Purchase a card"),
    "play": P("Play a card"),
    "tax": P("Tax: take rupees"),
    "gift": P("Buy a gift"),
    "build": P("Build armies or roads"),
    "move": P("Move armies or spies"),
    "betray": P("Betray a card"),
    "battle": P("Battle"),
    "loyalty": P("Choose your loyalty"),
    "demand": P("Demand a bribe"),
    "pay": P("Pay the bribe"),
    "refuse": P("Refuse to pay the bribe"),
    "road": P("Place a road"),
    "army": P("Place an army"),
    "spy": P("Place a spy"),
    "take": P("Take a piece from the board"),
    "discard": P("Discard a card"),
    "choose": P("Choose"),
    "collect": P("Collect a rupee"),
    "march": P("Move a piece"),
    "remove": P("Remove a piece"),
    "accept": P("Take the prize"),
    "decline": P("Decline"),
    "done": P("Take no more steps"),
    "policy": P("Set a standing policy"),
}


def heading(verb: str) -> Phrase:
    """The heading of a group of choices: what its verb does, in words."""
    return HEADINGS.get(verb, Phrase(verb))


def choices(state: engine.State, seat: int) -> list[Choice]:
    """The seat's legal actions now (engine.options_for), each described."""
    return [describe(state, seat, action) for action in options_for(state, seat)]


def grouped(found: Sequence[Choice]) -> list[tuple[str, list[Choice]]]:
    """Choices by verb, the groups in a stable order, shortest first (e.g. pass first,
    then purchase/play, then card-based actions...), each group's choices in a stable order."""
    groups: dict[str, list[Choice]] = {}
    for choice in found:
        groups.setdefault(choice.verb, []).append(choice)
    known = {verb: index for index, verb in enumerate(VERB_ORDER)}

    def order(item: tuple[str, list[Choice]]) -> tuple[int, int, str]:
        verb, members = item
        return len(members), known.get(verb, len(known)), verb

    return sorted(groups.items(), key=order)


def describe(state: engine.State, seat: int, action: Action) -> Choice:
    """One legal action of `seat`, described."""
    if action.verb == "purchase":
        label, cost, warnings = _purchase(state, seat, int(action.args[0]))
    elif action.verb == "play":
        label, cost, warnings = _play(state, seat, int(action.args[0]), str(action.args[1]))
    elif action.verb in card_based.CARD_ACTIONS:
        label, cost, warnings = _card_based(state, seat, action)
    else:
        label, cost, warnings = engine.phrase_action(state, action), None, []
    return Choice(str(action), action.verb, label, cost, tuple(warnings))


def rupees(n: int) -> Phrase:
    """'1 rupee', '2 rupees', in the reader's plural."""
    return words.counted(n, "rupee")


def _costing(label: Phrase, cost: int) -> Phrase:
    return P("%(action)s, %(cost)s", action=label, cost=rupees(cost)) if cost else label


def _purchase(state: engine.State, seat: int, card: int) -> tuple[Phrase, int | None, list[Phrase]]:
    where = market.locate(state, card)
    assert where is not None  # a legal purchase is of a market card
    row, col = where
    cost = purchase.purchase_cost(state, seat, col, card)
    if is_event(card):
        what: Phrase = P("%(card)s (event)", card=words.card_name_term(EVENT_CARDS[card].name))
    else:
        info = COURT_CARDS[card]
        what = P(
            "%(card)s (%(region)s)",
            card=words.card_name_term(info.name),
            region=words.region_term(info.region),
        )
    label = P("%(card)s, free", card=what) if cost == 0 else _costing(what, cost)
    on_card = state.market_rupees[row][col]
    if on_card:
        label = P(
            "%(purchase)s, taking the %(rupees)s on it", purchase=label, rupees=rupees(on_card)
        )
    warnings = _short_of_leverage(state, seat, cost)
    if not is_event(card) and COURT_CARDS[card].is_leveraged:
        warnings.append(_leverage_warning())
    return label, cost or None, warnings


def _play(
    state: engine.State, seat: int, card: int, side: str
) -> tuple[Phrase, int | None, list[Phrase]]:
    info = COURT_CARDS[card]
    name, region = words.card_name_term(info.name), words.region_term(info.region)
    if side == "left":
        label = P("%(card)s (%(region)s) to the left end of the court", card=name, region=region)
    else:
        label = P("%(card)s (%(region)s) to the right end of the court", card=name, region=region)
    warnings: list[Phrase] = []
    owner, bribe = play.bribe_owed(state, seat, info.region)
    if owner is not None and bribe:
        warnings.append(
            P(
                "%(who)s rules %(region)s and may demand a bribe of up to %(rupees)s",
                who=words.name_term(state.name(owner)),
                region=region,
                rupees=rupees(bribe),
            )
        )
    change = _loyalty_change(state, seat, card)
    if change is not None:
        warnings.append(change)
    if info.is_leveraged:
        warnings.append(_leverage_warning())
    warnings.extend(_short_of_leverage(state, seat, bribe))
    return label, bribe or None, warnings


def _card_based(
    state: engine.State, seat: int, action: Action
) -> tuple[Phrase, int | None, list[Phrase]]:
    card = int(action.args[0])
    cost = card_based.least_cost(action)
    warnings: list[Phrase] = []
    holder, bribe = card_actions.hostage_bribe(state, seat, card)
    if holder is not None and bribe:
        warnings.append(
            P(
                "%(who)s holds %(card)s hostage and may demand a bribe of up to %(rupees)s",
                who=words.name_term(state.name(holder)),
                card=words.card_name_term(COURT_CARDS[card].name),
                rupees=rupees(bribe),
            )
        )
    warnings.extend(_overthrows(state, seat, action))
    return _costing(engine.phrase_action(state, action), cost), cost or None, warnings


def _leverage_warning() -> Phrase:
    return P(
        "leveraged: playing it takes 2 rupees from the bank, repaid when it leaves the court "
        "(a card discarded for each rupee short)"
    )


def _short_of_leverage(state: engine.State, seat: int, cost: int) -> list[Phrase]:
    """A warning when paying `cost` leaves fewer rupees than the leveraged cards of the
    court would need repaid [Leverage, p. 8]."""
    player = state.players[seat]
    leveraged = [c for c in player.court if COURT_CARDS[c].is_leveraged]
    owed = court.LEVERAGE_REPAYMENT * len(leveraged)
    left = player.rupees - cost
    if not cost or not leveraged or left >= owed:
        return []
    return [
        P(
            "leaves %(left)s, short of the %(owed)s that your leveraged cards would need repaid",
            left=rupees(left),
            owed=rupees(owed),
        )
    ]


def _loyalty_change(state: engine.State, seat: int, card: int) -> Phrase | None:
    """What playing `card` changes of the player's loyalty, as `engine.rules.play`'s
    `complete_play` and `loyalty.change_loyalty` would [Loyalty and Influence, p. 7]."""
    player = state.players[seat]
    new = COURT_CARDS[card].patriot
    if new is None or new == player.loyalty or state.is_wakhan(seat) or player.loyalty is None:
        return None
    lost: list[Value] = []
    if player.prizes:
        lost.append(PN("%(n)s prize", "%(n)s prizes", len(player.prizes)))
    if any(player.gifts):
        gifts = sum(player.gifts)
        lost.append(PN("%(n)s gift", "%(n)s gifts", gifts))
    patriots = [c for c in player.court if COURT_CARDS[c].patriot not in (None, new)]
    lost.extend(words.card_term(c) for c in patriots)
    old, coming = words.coalition_term(player.loyalty), words.coalition_term(new)
    if not lost:
        return P("changes your loyalty from %(old)s to %(new)s", old=old, new=coming)
    return P(
        "changes your loyalty from %(old)s to %(new)s, losing %(lost)s",
        old=old,
        new=coming,
        lost=words.comma_phrase(lost),
    )


def _overthrows(state: engine.State, seat: int, action: Action) -> list[Phrase]:
    """Rulers the action could overthrow [The Overthrow Rule, p. 8]: a battle that may
    remove the ruler's tribes, a betrayal of a ruler's last political card of a region."""
    if action.verb == "battle" and not isinstance(action.args[1], int):
        region = str(action.args[1])
        owner = ruler(state, region)  # type: ignore[arg-type]
        if owner is None or owner == seat:
            return []
        tribe = Action("remove", ("tribe", state.name(owner)))
        if tribe not in battle.removable(state, seat, region):  # type: ignore[arg-type]
            return []
        return [
            P(
                "could overthrow %(who)s, who rules %(region)s, by removing their tribes",
                who=words.name_term(state.name(owner)),
                region=words.region_term(region),
            )
        ]
    if action.verb == "betray":
        target = int(action.args[1])
        owner = card_actions.owner_of(state, target)
        info = COURT_CARDS[target]
        if owner is None or info.suit != "political":
            return []
        tribes = state.tribes[info.region][owner]
        if court.political_cards(state, owner, info.region) != [target] or not tribes:
            return []
        rules = ruler(state, info.region) == owner
        said = {
            "who": words.name_term(state.name(owner)),
            "region": words.region_term(info.region),
            "tribes": PN("%(n)s tribe", "%(n)s tribes", tribes),
        }
        if rules:
            return [P("overthrows %(who)s, who rules %(region)s: %(tribes)s removed", **said)]
        return [
            P("%(who)s loses their last political card of %(region)s: %(tribes)s removed", **said)
        ]
    return []
