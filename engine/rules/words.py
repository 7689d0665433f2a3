"""The English of the game: names of cards, places and coalitions, counts, and actions.

Prompts, log lines and pages read as sentences; the notation (`gift 14 4`) stays beside
them where a player needs it to answer. Cards are named with their number in parentheses
(`Money Lenders (14)`), regions and coalitions by their printed names (`Kabul`,
`British`), borders with an en dash (`Herat–Kabul`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.actions import Action, Arg
from engine.cards import BORDERS, COALITIONS, COURT_CARDS, REGIONS, SUITS, card_name, is_region
from engine.phrases import PN, P, Phrase, T, Term, Value
from engine.state import State

# The names that have translations, written out so that extraction finds them (a test
# checks that they cover the card data's regions, coalitions and suits).
REGION_TERMS: Final[dict[str, Term]] = {
    "kabul": T("Kabul"),
    "herat": T("Herat"),
    "kandahar": T("Kandahar"),
    "persia": T("Persia"),
    "punjab": T("Punjab"),
    "transcaspia": T("Transcaspia"),
}
COALITION_TERMS: Final[dict[str, Term]] = {
    "afghan": T("Afghan"),
    "british": T("British"),
    "russian": T("Russian"),
}
ARTICLE_COALITION_TERMS: Final[dict[str, Term]] = {
    "afghan": T("an Afghan"),
    "british": T("a British"),
    "russian": T("a Russian"),
}
SUIT_TERMS: Final[dict[str, Term]] = {
    "economic": T("economic"),
    "military": T("military"),
    "political": T("political"),
    "intelligence": T("intelligence"),
}

# Plurals that are not the word and an "s".
PLURALS: Final = {"army": "armies", "spy": "spies", "rupee": "rupees", "tribe": "tribes"}


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


def listing(words: list[str], last: str = "and") -> str:
    """'alice', 'alice and bob', 'alice, bob and carol'."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


# ---------------------------------------------------------------------------------------------
# The same words in a translatable form (engine/phrases.py): prompts and actions are built
# from these, and read exactly as the English helpers above.
# ---------------------------------------------------------------------------------------------

# Counted nouns, by noun and whether they are "more" (`2 more rupees`): templates whose `n`
# is set by `counted`. Written out so that extraction finds every form.
COUNTED: Final[dict[tuple[str, bool], Phrase]] = {
    ("rupee", False): PN("%(n)s rupee", "%(n)s rupees", 0),
    ("rupee", True): PN("%(n)s more rupee", "%(n)s more rupees", 0),
    ("piece", False): PN("%(n)s piece", "%(n)s pieces", 0),
    ("piece", True): PN("%(n)s more piece", "%(n)s more pieces", 0),
    ("block", False): PN("%(n)s block", "%(n)s blocks", 0),
    ("block", True): PN("%(n)s more block", "%(n)s more blocks", 0),
    ("move", False): PN("%(n)s move", "%(n)s moves", 0),
    ("move", True): PN("%(n)s more move", "%(n)s more moves", 0),
    ("card", False): PN("%(n)s card", "%(n)s cards", 0),
    ("card", True): PN("%(n)s more card", "%(n)s more cards", 0),
}
PIECE_TERMS: Final[dict[str, Term]] = {
    "army": T("army"),
    "road": T("road"),
    "tribe": T("tribe"),
    "spy": T("spy"),
    "gift": T("gift"),
}
ARTICLE_PIECE_TERMS: Final[dict[str, Term]] = {
    "army": T("an army"),
    "road": T("a road"),
    "tribe": T("a tribe"),
    "spy": T("a spy"),
    "gift": T("a gift"),
}


# The ids as the log writes them (`kabul`, `an afghan`), each translated as its name: made
# once, as the log is on the engine's hot path.
ID_TERMS: Final[dict[str, Term]] = {
    key: Term(key, message=term.text)
    for table in (REGION_TERMS, COALITION_TERMS, SUIT_TERMS)
    for key, term in table.items()
}
ARTICLE_ID_TERMS: Final[dict[str, Term]] = {
    key: Term(article(key), message=term.text) for key, term in ARTICLE_COALITION_TERMS.items()
}


def id_term(value: Arg) -> Value:
    """A region, coalition or suit by its id, as the log writes it (`kabul`, `afghan`),
    translated as its name; any other text as it is."""
    return ID_TERMS.get(str(value), str(value))


def comma_phrase(values: list[Value]) -> Value:
    """'a, b, c' (a list written with commas alone), each value translated."""
    if len(values) <= 1:
        return values[0] if values else name_term("")
    return P("%(first)s, %(rest)s", first=values[0], rest=comma_phrase(values[1:]))


def place_id_term(where: Arg) -> Value:
    """A region or a border by its id as the log writes it (`kabul`, `herat-kabul`),
    translated as its regions' names; a card's number or a gift's cost as it is."""
    if str(where) in BORDERS:
        first, second = str(where).split("-")
        return P("%(first)s-%(second)s", first=id_term(first), second=id_term(second))
    return id_term(where)


def article_id_term(coalition: Arg) -> Value:
    """'an afghan' as the log writes it, translated as the coalition with its article."""
    return ARTICLE_ID_TERMS.get(str(coalition)) or article(str(coalition))


def counted(number: int, word: str, more: bool = False) -> Phrase:
    """`count` in a translatable form: '2 rupees', '1 more move'."""
    template = COUNTED[(word, more)]
    return Phrase(template.message, template.params, template.plural, number)


def name_term(name: str) -> str:
    """A player's name, or any text shown as it is in every language: a phrase's plain
    text parameter is never translated (engine/phrases.py)."""
    return name


def who(state: State, seat: int) -> str:
    return state.name(seat)


def stop_term(taken: int) -> Value:
    """', or stop (`done`)' once a step of a repeated action was taken: before the first
    step `done` is not legal, so a prompt must not offer it."""
    return P(", or stop (`done`)") if taken else name_term("")


# The cards whose names the Polish rulebook prints (docs/i18n.md#card-names): translated;
# every other card keeps its English name in every language.
CARD_NAME_TERMS: Final[dict[str, Term]] = {
    "Dominance Check": T("Dominance Check"),
    "Sikh Merchants in Lahore": T("Sikh Merchants in Lahore"),
}


def card_term(number: Arg) -> Value:
    """A card by its printed name and number, in the reader's language where the Polish
    rulebook names it, else as printed."""
    name = card_name(int(number))
    if name in CARD_NAME_TERMS:
        return P("%(name)s (%(number)s)", name=CARD_NAME_TERMS[name], number=int(number))
    return name_term(card(number))


def card_name_term(name: str) -> Value:
    """A card's printed name alone, translated where the Polish rulebook names it."""
    return CARD_NAME_TERMS.get(name) or name


def region_term(region_id: Arg) -> Value:
    return REGION_TERMS.get(str(region_id), name_term(region(region_id)))


def coalition_term(name: Arg) -> Value:
    return COALITION_TERMS.get(str(name), name_term(str(name)))


def border_term(border_id: Arg) -> Value:
    if str(border_id) not in BORDERS:
        return name_term(str(border_id))
    first, second = BORDERS[str(border_id)].regions
    return P("%(first)s–%(second)s", first=region_term(first), second=region_term(second))


def article_coalition_term(name: Arg) -> Value:
    """'a British', 'an Afghan': a coalition with its article (a word of its own, since
    other languages have no article, or another one)."""
    return ARTICLE_COALITION_TERMS.get(str(name), name_term(article(coalition(name))))


def site_phrase(where: Arg) -> Phrase:
    """`site` in a translatable form."""
    if isinstance(where, int):
        return P("on %(card)s", card=card_term(where))
    return P("in %(region)s", region=region_term(where))


def place_phrase(piece: str, where: Arg) -> Phrase:
    """Where a piece stands, said after 'the PIECE': 'in Herat', 'on Mohan Lal (1)'."""
    if piece == "road":
        return P("on the %(border)s border", border=border_term(where))
    if piece == "spy":
        return P("on %(card)s", card=card_term(where))
    if piece == "gift":
        return P("on the %(n)s-rupee space", n=str(where))
    return P("in %(region)s", region=region_term(where))


def listing_phrase(names: list[str]) -> Value:
    """`listing` in a translatable form: 'alice, bob and carol'."""
    if len(names) <= 1:
        return name_term("".join(names))
    return P(
        "%(names)s and %(last)s", names=name_term(", ".join(names[:-1])), last=name_term(names[-1])
    )


# ---------------------------------------------------------------------------------------------
# Actions in words: one phrase per verb of docs/notation.md, to follow "wants to" or stand
# beside the notation in a history.
# ---------------------------------------------------------------------------------------------


_card, _region, _coalition, _border = card_term, region_term, coalition_term, border_term


def _rupees(n: int) -> Phrase:
    return counted(n, "rupee")


def _purchase(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("buy %(card)s", card=_card(args[0]))


def _play(state: State, args: tuple[Arg, ...]) -> Phrase:
    if args[1] == "left":
        return P("play %(card)s to the left end of the court", card=_card(args[0]))
    return P("play %(card)s to the right end of the court", card=_card(args[0]))


def _tax(state: State, args: tuple[Arg, ...]) -> Phrase:
    rank = COURT_CARDS[int(args[0])].rank
    return P(
        "tax with %(card)s, taking up to %(rupees)s", card=_card(args[0]), rupees=_rupees(rank)
    )


def _gift(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P(
        "buy a gift for %(rupees)s with %(card)s",
        rupees=_rupees(int(args[1])),
        card=_card(args[0]),
    )


def _build(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("build armies and roads with %(card)s, at 2 rupees a block", card=_card(args[0]))


def _move(state: State, args: tuple[Arg, ...]) -> Phrase:
    rank = COURT_CARDS[int(args[0])].rank
    moves = counted(rank, "move")
    return P(
        "move armies and spies with %(card)s, up to %(moves)s", card=_card(args[0]), moves=moves
    )


def _betray(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("betray %(target)s with %(card)s", target=_card(args[1]), card=_card(args[0]))


def _battle(state: State, args: tuple[Arg, ...]) -> Phrase:
    if isinstance(args[1], int):
        return P("battle on %(target)s with %(card)s", target=_card(args[1]), card=_card(args[0]))
    return P("battle in %(region)s with %(card)s", region=_region(args[1]), card=_card(args[0]))


def _pass(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("pass, ending the turn")


def _loyalty(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("choose %(coalition)s loyalty", coalition=_coalition(args[0]))


def _demand(state: State, args: tuple[Arg, ...]) -> Phrase:
    amount = int(args[0])
    if amount == 0:
        return P("waive the bribe")
    return P("demand a bribe of %(rupees)s", rupees=_rupees(amount))


def _pay(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("pay the bribe")


def _refuse(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("refuse to pay the bribe")


def _road(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("place a road on the %(border)s border", border=_border(args[0]))


def _army(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("place an army in %(region)s", region=_region(args[0]))


def _spy(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("place a spy on %(card)s", card=_card(args[0]))


def _take(state: State, args: tuple[Arg, ...]) -> Phrase:
    piece, where = str(args[0]), args[1]
    if piece == "road":
        return P("take the road on the %(border)s border", border=_border(where))
    if piece == "spy":
        return P("take the spy on %(card)s", card=_card(where))
    if piece == "gift":
        return P("take the gift on the %(n)s-rupee space", n=str(where))
    if piece == "army":
        return P("take the army in %(region)s", region=_region(where))
    return P("take the tribe in %(region)s", region=_region(where))


def _discard(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("discard %(card)s", card=_card(args[0]))


def _choose(state: State, args: tuple[Arg, ...]) -> Phrase:
    choice = str(args[0])
    if is_region(choice):
        return P("choose %(region)s", region=_region(choice))
    if choice in SUITS:
        return P("choose the %(suit)s suit", suit=SUIT_TERMS.get(choice, Term(choice, False)))
    return P("choose %(choice)s", choice=Term(choice, translated=False))


def _collect(state: State, args: tuple[Arg, ...]) -> Phrase:
    source = args[0]
    if isinstance(source, int):
        return P("take a rupee from %(card)s", card=_card(source))
    return P("take a rupee from %(player)s", player=Term(str(source), translated=False))


def _march(state: State, args: tuple[Arg, ...]) -> Phrase:
    piece, origin, destination = str(args[0]), args[1], args[2]
    if piece == "spy":
        return P(
            "move a spy from %(origin)s to %(destination)s",
            origin=_card(origin),
            destination=_card(destination),
        )
    ends = {"origin": _region(origin), "destination": _region(destination)}
    if piece == "army":
        return P("move an army from %(origin)s to %(destination)s", **ends)
    return P("move a tribe from %(origin)s to %(destination)s", **ends)


def _remove(state: State, args: tuple[Arg, ...]) -> Phrase:
    piece = str(args[0])
    if piece == "army":
        return P("remove %(coalition)s army", coalition=_article_coalition(args[1]))
    if piece == "road":
        return P(
            "remove %(coalition)s road from the %(border)s border",
            coalition=_article_coalition(args[2]),
            border=_border(args[1]),
        )
    owner = Term(str(args[1]), translated=False)
    if piece == "spy":
        return P("remove one of %(player)s's spies", player=owner)
    return P("remove one of %(player)s's tribes", player=owner)


_article_coalition = article_coalition_term


def _accept(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("take the betrayed card as a prize")


def _decline(state: State, args: tuple[Arg, ...]) -> Phrase:
    if state.stack and state.stack[-1]["kind"] == "safe_house":
        return P("let the removed spy go")
    return P("decline the prize")


def _done(state: State, args: tuple[Arg, ...]) -> Phrase:
    return P("stop there")


def _policy(state: State, args: tuple[Arg, ...]) -> Phrase:
    if args[:1] == ("pay",):
        return P("from now on pay any bribe of up to %(rupees)s", rupees=_rupees(int(args[1])))
    if args[:1] == ("demand",):
        return P(
            "from now on demand at most %(rupees)s of %(player)s",
            rupees=_rupees(int(args[2])),
            player=Term(str(args[1]), translated=False),
        )
    return P("forget every standing policy")


PHRASES: Final[dict[str, Callable[[State, tuple[Arg, ...]], Phrase]]] = {
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
    return str(phrase_action(state, action))


def phrase_action(state: State, action: Action) -> Phrase:
    """`describe_action` in a translatable form (engine/phrases.py): the same English."""
    phrase = PHRASES.get(action.verb)
    if phrase is None:
        return P("%(action)s", action=Term(str(action), translated=False))
    return phrase(state, action.args)
