"""The English of the game: names of cards, places and coalitions, counts, and actions.

Prompts, log lines and pages read as sentences; the notation (`gift 14 4`) stays beside
them where a player needs it to answer. Cards are named with their number in parentheses
(`Money Lenders (14)`), regions and coalitions by their printed names (`Kabul`,
`British`), borders with an en dash (`Herat–Kabul`).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.actions import Action, Arg
from engine.cards import BORDERS, COALITIONS, COURT_CARDS, REGIONS, SUITS, card_name, is_region
from engine.state import State

# Plurals that are not the word and an "s".
PLURALS = {"army": "armies", "spy": "spies", "rupee": "rupees", "tribe": "tribes"}


def article(word: str) -> str:
    """'an afghan', 'a british': the word with its indefinite article."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def plural(word: str) -> str:
    """'armies', 'rupees': the plural of a noun of the game."""
    return PLURALS.get(word, word + "s")


def count(number: int, word: str, more: bool = False) -> str:
    """'1 rupee', '2 rupees', '0 rupees', '2 more rupees': a number and the noun that
    agrees with it."""
    return f"{number} {'more ' if more else ''}{word if number == 1 else plural(word)}"


def or_stop(taken: int) -> str:
    """', or stop (`done`)' once a step of a repeated action was taken: before the first
    step `done` is not legal, so a prompt must not offer it."""
    return ", or stop (`done`)" if taken else ""


def card(number: Arg) -> str:
    """'Money Lenders (14)': a card by its name, with its number to find it by."""
    return f"{card_name(int(number))} ({int(number)})"


def region(region_id: Arg) -> str:
    """'Kabul': a region by its printed name."""
    name = str(region_id)
    return REGIONS[name].name if is_region(name) else name


def border(border_id: Arg) -> str:
    """'Herat–Kabul': a border by the names of its two regions."""
    if str(border_id) not in BORDERS:
        return str(border_id)
    first, second = BORDERS[str(border_id)].regions
    return f"{region(first)}–{region(second)}"


def coalition(name: Arg) -> str:
    """'British': a coalition capitalised, as printed."""
    return str(name).capitalize() if str(name) in COALITIONS else str(name)


def site(where: Arg) -> str:
    """A battle's site: 'in Kandahar', or 'on Giljee Nobles (43)' for a battle of spies."""
    return f"on {card(where)}" if isinstance(where, int) else f"in {region(where)}"


def piece_at(piece: str, where: Arg) -> str:
    """'the army in Herat', 'the spy on Mohan Lal (1)': a piece where it stands."""
    if piece == "road":
        return f"the road on the {border(where)} border"
    if piece == "spy":
        return f"the spy on {card(where)}"
    if piece == "gift":
        return f"the gift on the {where}-rupee space"
    return f"the {piece} in {region(where)}"


def listing(words: list[str], last: str = "and") -> str:
    """'alice', 'alice and bob', 'alice, bob and carol'."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


# ---------------------------------------------------------------------------------------------
# Actions in words: one phrase per verb of docs/notation.md, to follow "wants to" or stand
# beside the notation in a history.
# ---------------------------------------------------------------------------------------------


def _purchase(state: State, args: tuple[Arg, ...]) -> str:
    return f"buy {card(args[0])}"


def _play(state: State, args: tuple[Arg, ...]) -> str:
    return f"play {card(args[0])} to the {args[1]} end of the court"


def _tax(state: State, args: tuple[Arg, ...]) -> str:
    rank = COURT_CARDS[int(args[0])].rank
    return f"tax with {card(args[0])}, taking up to {count(rank, 'rupee')}"


def _gift(state: State, args: tuple[Arg, ...]) -> str:
    return f"buy a gift for {count(int(args[1]), 'rupee')} with {card(args[0])}"


def _build(state: State, args: tuple[Arg, ...]) -> str:
    return f"build armies and roads with {card(args[0])}, at 2 rupees a block"


def _move(state: State, args: tuple[Arg, ...]) -> str:
    rank = COURT_CARDS[int(args[0])].rank
    return f"move armies and spies with {card(args[0])}, up to {count(rank, 'move')}"


def _betray(state: State, args: tuple[Arg, ...]) -> str:
    return f"betray {card(args[1])} with {card(args[0])}"


def _battle(state: State, args: tuple[Arg, ...]) -> str:
    return f"battle {site(args[1])} with {card(args[0])}"


def _pass(state: State, args: tuple[Arg, ...]) -> str:
    return "pass, ending the turn"


def _loyalty(state: State, args: tuple[Arg, ...]) -> str:
    return f"choose {coalition(args[0])} loyalty"


def _demand(state: State, args: tuple[Arg, ...]) -> str:
    amount = int(args[0])
    return "waive the bribe" if amount == 0 else f"demand a bribe of {count(amount, 'rupee')}"


def _pay(state: State, args: tuple[Arg, ...]) -> str:
    return "pay the bribe"


def _refuse(state: State, args: tuple[Arg, ...]) -> str:
    return "refuse to pay the bribe"


def _road(state: State, args: tuple[Arg, ...]) -> str:
    return f"place a road on the {border(args[0])} border"


def _army(state: State, args: tuple[Arg, ...]) -> str:
    return f"place an army in {region(args[0])}"


def _spy(state: State, args: tuple[Arg, ...]) -> str:
    return f"place a spy on {card(args[0])}"


def _take(state: State, args: tuple[Arg, ...]) -> str:
    return f"take {piece_at(str(args[0]), args[1])}"


def _discard(state: State, args: tuple[Arg, ...]) -> str:
    return f"discard {card(args[0])}"


def _choose(state: State, args: tuple[Arg, ...]) -> str:
    choice = str(args[0])
    if is_region(choice):
        return f"choose {region(choice)}"
    if choice in SUITS:
        return f"choose the {choice} suit"
    return f"choose {choice}"


def _collect(state: State, args: tuple[Arg, ...]) -> str:
    source = args[0]
    return f"take a rupee from {card(source) if isinstance(source, int) else source}"


def _march(state: State, args: tuple[Arg, ...]) -> str:
    piece, origin, destination = str(args[0]), args[1], args[2]
    if piece == "spy":
        return f"move a spy from {card(origin)} to {card(destination)}"
    return f"move {article(piece)} from {region(origin)} to {region(destination)}"


def _remove(state: State, args: tuple[Arg, ...]) -> str:
    piece = str(args[0])
    if piece == "army":
        return f"remove {article(coalition(args[1]))} army"
    if piece == "road":
        return f"remove {article(coalition(args[2]))} road from the {border(args[1])} border"
    return f"remove one of {args[1]}'s {plural(piece)}"


def _accept(state: State, args: tuple[Arg, ...]) -> str:
    return "take the betrayed card as a prize"


def _decline(state: State, args: tuple[Arg, ...]) -> str:
    if state.stack and state.stack[-1]["kind"] == "safe_house":
        return "let the removed spy go"
    return "decline the prize"


def _done(state: State, args: tuple[Arg, ...]) -> str:
    return "stop there"


def _policy(state: State, args: tuple[Arg, ...]) -> str:
    if args[:1] == ("pay",):
        return f"from now on pay any bribe of up to {count(int(args[1]), 'rupee')}"
    if args[:1] == ("demand",):
        return f"from now on demand at most {count(int(args[2]), 'rupee')} of {args[1]}"
    return "forget every standing policy"


PHRASES: dict[str, Callable[[State, tuple[Arg, ...]], str]] = {
    "purchase": _purchase,
    "play": _play,
    "tax": _tax,
    "gift": _gift,
    "build": _build,
    "move": _move,
    "betray": _betray,
    "battle": _battle,
    "pass": _pass,
    "loyalty": _loyalty,
    "demand": _demand,
    "pay": _pay,
    "refuse": _refuse,
    "road": _road,
    "army": _army,
    "spy": _spy,
    "take": _take,
    "discard": _discard,
    "choose": _choose,
    "collect": _collect,
    "march": _march,
    "remove": _remove,
    "accept": _accept,
    "decline": _decline,
    "done": _done,
    "policy": _policy,
}


def describe_action(state: State, action: Action) -> str:
    """The action in words, as a phrase that follows 'wants to': `gift 14 4` is
    'buy a gift for 4 rupees with Money Lenders (14)'. `state` is the position the action
    is taken in (a `decline` depends on what is declined)."""
    phrase = PHRASES.get(action.verb)
    return phrase(state, action.args) if phrase is not None else str(action)
