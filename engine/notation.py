"""The move notation: one action per line (docs/notation.md).

`format_action` gives every action its one canonical text (cards by number, regions and
borders by id; it lives with `Action` and is re-exported here); `parse_action` reads a line
against a position. Parsing works by matching the text to the legal actions, so a card may
also be named by a unique, case-insensitive prefix of its name: `purchase mohan` finds
Mohan Lal if he can be purchased now. The notation sits above the game: it asks
`engine.game` for the legal actions and `engine.explain` why one is refused.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final

from engine.actions import Action, Arg, Verb, is_verb
from engine.actions import format_action as format_action  # the canonical text, on Action
from engine.aliases import canonical_verb, canonical_word
from engine.cards import BORDERS, COALITIONS, COURT_CARDS, EVENT_CARDS, REGION_IDS, SUITS
from engine.errors import AmbiguousActionError, NotationError
from engine.explain import explain_illegal
from engine.game import legal_seat_actions, options_for
from engine.phrases import PN, P, Phrase
from engine.rules.card_based import CARD_ACTIONS, Shape
from engine.rules.verbs import PIECES, VERBS

if TYPE_CHECKING:
    from engine.state import State

SIDES: Final = ("left", "right")
# How a word that is none of a kind of name is refused, by the kind (`unknown-region`...).
NOT_A: Final = {
    "region": P("%(word)s is not a region: use %(choices)s"),
    "coalition": P("%(word)s is not a coalition: use %(choices)s"),
    "piece": P("%(word)s is not a piece: use %(choices)s"),
}
_PREFIX: Final = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_.-]*)\s*:(.*)$")


def _normalize(text: str) -> str:
    text = text.lower().replace("'", "").replace("’", "").replace("-", " ")
    return " ".join(text.split())


def _card_aliases() -> dict[int, list[str]]:
    names = {n: c.name for n, c in COURT_CARDS.items()}
    names.update({n: e.name for n, e in EVENT_CARDS.items()})
    # An event is known by its full name and by either half ("Riots in Punjab").
    return {
        n: [_normalize(name), *[_normalize(half) for half in name.split(" / ") if " / " in name]]
        for n, name in names.items()
    }


CARD_ALIASES: Final = _card_aliases()


def find_cards(words: list[str]) -> list[int]:
    """Card numbers a text may mean: a number, an exact name, or a name prefix."""
    if not words:
        raise NotationError("missing-argument", P("a card is missing (give its number or name)"))
    text = " ".join(words)
    if _is_number(text):
        number = int(text)
        if number not in CARD_ALIASES:
            raise NotationError(
                "unknown-card", P("there is no card number %(number)s (1 to 116)", number=number)
            )
        return [number]
    query = _normalize(text)
    exact = [n for n, names in CARD_ALIASES.items() if query in names]
    if exact:
        return exact
    found = [n for n, names in CARD_ALIASES.items() if any(x.startswith(query) for x in names)]
    if not found:
        raise NotationError("unknown-card", P("no card is called %(name)s", name=repr(text)))
    return found


def find_border(word: str) -> str:
    parts = re.split(r"[-_/]", word.lower())
    if len(parts) == 2:
        border = "-".join(sorted(parts))
        if border in BORDERS:
            return border
    raise NotationError(
        "unknown-border",
        P(
            "no border %(word)s; borders are: %(borders)s",
            word=repr(word),
            borders=", ".join(sorted(BORDERS)),
        ),
    )


def _one_of(word: str, choices: Iterable[str], what: str) -> str:
    value = word.lower()
    options = list(choices)
    if value not in options:
        use = ", ".join(options)
        raise NotationError(f"unknown-{what}", P(NOT_A[what].message, word=repr(word), choices=use))
    return value


def _is_number(word: str) -> bool:
    return re.fullmatch(r"[0-9]{1,9}", word) is not None


def _count(word: str) -> int:
    if not _is_number(word):
        raise NotationError(
            "bad-argument", P("%(word)s is not a whole number (0 to 999999999)", word=repr(word))
        )
    return int(word)


def _expect(verb: str, args: list[str], size: int) -> None:
    if len(args) != size:
        raise NotationError(
            "bad-arguments",
            PN(
                "'%(verb)s' takes %(n)s argument, not %(given)s: see docs/notation.md",
                "'%(verb)s' takes %(n)s arguments, not %(given)s: see docs/notation.md",
                size,
                verb=verb,
                given=len(args),
            ),
        )


def _location(piece: str, words: list[str]) -> list[Arg]:
    if piece in ("army", "tribe"):
        _expect("take", words, 1)
        return [_one_of(words[0], REGION_IDS, "region")]
    if piece == "road":
        _expect("take", words, 1)
        return [find_border(words[0])]
    if piece == "gift":
        _expect("take", words, 1)
        return [_count(words[0])]
    return list(find_cards(words))


def candidates(verb: str, args: list[str]) -> list[Action]:
    """Every action a verb and its words may mean, before looking at the position."""
    if verb == "waive":  # a word of the notation, not a verb of an action
        _expect(verb, args, 0)
        return [Action("demand", (0,))]
    if not is_verb(verb):
        raise NotationError(
            "unknown-verb",
            P(
                "unknown action %(verb)s; actions are: %(verbs)s",
                verb=repr(verb),
                verbs=", ".join(VERBS),
            ),
        )
    if verb in ("pass", "pay", "refuse", "accept", "decline", "done"):
        _expect(verb, args, 0)
        return [Action(verb)]
    if verb in CARD_ACTIONS:
        return SHAPES[CARD_ACTIONS[verb].shape](verb, args)
    if verb in ("purchase", "spy", "discard"):
        return _with_card(verb, args)
    if verb == "collect":
        _expect_some(verb, args)
        if len(args) == 1 and not _is_number(args[0]) and _looks_like_player(args[0]):
            found: list[Action] = [Action("collect", (args[0],))]
            with contextlib.suppress(NotationError):
                found += [Action("collect", (card,)) for card in find_cards(args)]
            return found
        return [Action("collect", (card,)) for card in find_cards(args)]
    if verb == "army":
        _expect(verb, args, 1)
        return [Action("army", (_one_of(args[0], REGION_IDS, "region"),))]
    if verb == "march":
        return _march(args)
    if verb == "remove":
        return [_removal(args)]
    if verb == "play":
        if not args or args[-1].lower() not in SIDES:
            raise NotationError("bad-arguments", P("play takes a card and a side: play 12 left"))
        side = args[-1].lower()
        return [Action("play", (card, side)) for card in find_cards(args[:-1])]
    if verb == "loyalty":
        _expect(verb, args, 1)
        return [Action("loyalty", (_one_of(args[0], COALITIONS, "coalition"),))]
    if verb == "demand":
        _expect(verb, args, 1)
        return [Action("demand", (_count(args[0]),))]
    if verb == "road":
        _expect(verb, args, 1)
        return [Action("road", (find_border(args[0]),))]
    if verb == "take":
        if not args:
            raise NotationError("bad-arguments", P("take needs a piece and where: take army kabul"))
        piece = _one_of(args[0], PIECES, "piece")
        return [Action("take", (piece, where)) for where in _location(piece, args[1:])]
    if verb == "choose":
        _expect(verb, args, 1)
        word = args[0]
        known = (*REGION_IDS, *SUITS)
        return [Action("choose", (word.lower() if word.lower() in known else word,))]
    assert verb == "policy", verb  # every other verb is read above
    return [_policy(args)]


def _with_card(verb: Verb, args: list[str]) -> list[Action]:
    return [Action(verb, (card,)) for card in find_cards(args)]


def _with_card_and_price(verb: Verb, args: list[str]) -> list[Action]:
    if not args or not _is_number(args[-1]):
        raise NotationError(
            "bad-arguments", P("%(verb)s takes a card and a price: %(verb)s 12 4", verb=verb)
        )
    return [Action(verb, (card, int(args[-1]))) for card in find_cards(args[:-1])]


def _with_two_cards(verb: Verb, args: list[str]) -> list[Action]:
    refusal = P("give two cards, e.g. %(verb)s 12 34", verb=verb)
    return [Action(verb, pair) for pair in _card_pairs(args, refusal)]


def _with_card_and_site(verb: Verb, args: list[str]) -> list[Action]:
    """A card and a battle site: a region, or a court card."""
    if args and args[-1].lower() in REGION_IDS:
        site = args[-1].lower()
        return [Action(verb, (card, site)) for card in find_cards(args[:-1])]
    refusal = P(
        "give a card and where it %(verb)ss: a region or a court card, e.g. %(verb)s 43 "
        "kandahar or %(verb)s 33 71",
        verb=verb,
    )
    return [Action(verb, pair) for pair in _card_pairs(args, refusal)]


# How the words after a card-based action's verb are read, by the shape of its arguments.
SHAPES: Final[dict[Shape, Callable[[Verb, list[str]], list[Action]]]] = {
    "": _with_card,
    "price": _with_card_and_price,
    "card": _with_two_cards,
    "site": _with_card_and_site,
}


def _expect_some(verb: str, args: list[str]) -> None:
    if not args:
        raise NotationError(
            "bad-arguments", P("'%(verb)s' needs an argument: see docs/notation.md", verb=verb)
        )


def _looks_like_player(word: str) -> bool:
    return bool(re.match(r"^[A-Za-z][A-Za-z0-9_.-]*$", word))


def _card_pairs(args: list[str], refusal: Phrase) -> list[tuple[Arg, Arg]]:
    """Two cards in a row: every way of splitting the words into two card names; when there
    are none, `refusal` says what the verb at hand takes."""
    pairs: list[tuple[Arg, Arg]] = []
    for cut in range(1, len(args)):
        try:
            firsts, seconds = find_cards(args[:cut]), find_cards(args[cut:])
        except NotationError:
            continue
        pairs += [(a, b) for a in firsts for b in seconds]
    if not pairs:
        raise NotationError("bad-arguments", refusal)
    return pairs


def _march(args: list[str]) -> list[Action]:
    if len(args) < 3 or args[0].lower() not in ("army", "tribe", "spy"):
        raise NotationError(
            "bad-arguments",
            P("march army FROM TO, march tribe FROM TO (regions) or march spy FROM TO (cards)"),
        )
    piece = args[0].lower()
    if piece in ("army", "tribe"):
        _expect(f"march {piece}", args[1:], 2)
        origin = _one_of(args[1], REGION_IDS, "region")
        return [Action("march", (piece, origin, _one_of(args[2], REGION_IDS, "region")))]
    pairs = _card_pairs(args[1:], P("give two cards, from one to the next: march spy 12 34"))
    return [Action("march", ("spy", a, b)) for a, b in pairs]


def _removal(args: list[str]) -> Action:
    piece = _one_of(args[0], PIECES, "piece") if args else ""
    if piece == "army":
        _expect("remove army", args[1:], 1)
        return Action("remove", ("army", _one_of(args[1], COALITIONS, "coalition")))
    if piece == "road":
        _expect("remove road", args[1:], 2)
        return Action(
            "remove", ("road", find_border(args[1]), _one_of(args[2], COALITIONS, "coalition"))
        )
    if piece in ("tribe", "spy"):
        _expect(f"remove {piece}", args[1:], 1)
        return Action("remove", (piece, args[1]))
    raise NotationError(
        "bad-arguments",
        P(
            "remove army COALITION, remove road BORDER COALITION, remove tribe PLAYER, "
            "remove spy PLAYER"
        ),
    )


def _policy(args: list[str]) -> Action:
    lowered = [a.lower() for a in args]
    if lowered == ["clear"]:
        return Action("policy", ("clear",))
    if len(lowered) == 2 and lowered[0] == "pay":
        return Action("policy", ("pay", _count(lowered[1])))
    if len(lowered) == 2 and lowered[0] == "waive":
        return Action("policy", ("demand", args[1], 0))
    if len(lowered) == 3 and lowered[0] == "demand":
        return Action("policy", ("demand", args[1], _count(lowered[2])))
    raise NotationError(
        "bad-policy",
        P("policies are: policy pay N, policy demand PLAYER N, policy waive PLAYER, policy clear"),
    )


def split_line(line: str) -> tuple[str | None, str]:
    """(player name or None, action text) of a move line, comments removed."""
    text = line.split("#", 1)[0].strip()
    match = _PREFIX.match(text)
    if match and match.group(1).lower() not in VERBS:
        return match.group(1), match.group(2).strip()
    return None, text


def read_action(text: str) -> list[Action]:
    """The actions a text may mean, with no position (names may match several cards)."""
    words = _words(text)
    if not words:
        raise NotationError("empty", P("the line has no action"))
    verb = canonical_verb(words[0])
    if verb is not None:  # a line in another language (engine/aliases.py)
        return candidates(verb, [canonical_word(word) for word in words[1:]])
    return candidates(words[0].lower(), words[1:])


_SEPARATORS: Final = re.compile("[ \t\r\n]+")
# What shlex says of a line it cannot split, translatable (docs/i18n.md).
LEXER: Final = {
    "No closing quotation": P("No closing quotation"),
    "No escaped character": P("No escaped character"),
}


def _words(text: str) -> list[str]:
    """The words of an action. Only double quotes group words: an apostrophe is part of a
    name (Shah's Guard). A line with neither a quote nor a backslash is split at once,
    as the lexer would split it (at spaces, tabs and line ends), at a tenth of its cost:
    every replay reads every move again."""
    if '"' not in text and "\\" not in text:
        return [word for word in _SEPARATORS.split(text) if word]
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split = True
    lexer.quotes = '"'
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError as error:
        said = LEXER.get(str(error), str(error))  # the lexer's words, as Python gives them
        reason = P("cannot read %(text)s: %(error)s", text=repr(text), error=said)
        raise NotationError("syntax", reason) from None


def parse_action(text: str, state: State, seat: int) -> Action:
    """The one legal action of `seat` that `text` means; raise a MoveError otherwise."""
    found = read_action(text)
    if found[0].verb == "policy":
        return found[0]
    legal = options_for(state, seat)
    wanted = {_folded(a) for a in found}  # player names are matched case-insensitively
    matches = [a for a in legal if _folded(a) in wanted]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise AmbiguousActionError(
            "ambiguous",
            P(
                "%(text)s matches %(n)s legal actions; give the card number",
                text=repr(text),
                n=len(matches),
            ),
            alternatives=[format_action(a) for a in matches],
        )
    raise explain_illegal(state, seat, found[0])


def _folded(action: Action) -> Action:
    return Action(action.verb, tuple(a.lower() if isinstance(a, str) else a for a in action.args))


def parse_line(line: str, state: State) -> tuple[int, Action] | None:
    """Read one move-file line: (seat, action), or None for a blank or comment line."""
    name, text = split_line(line)
    if not text:
        return None
    if name is not None:
        try:
            seat = state.seat(name)
        except KeyError:
            reason = P("no player is called %(name)s", name=repr(name))
            raise NotationError("unknown-player", reason) from None
    else:
        deciders = sorted({s for s, _ in legal_seat_actions(state)})
        if len(deciders) != 1:
            who = ", ".join(state.name(s) for s in deciders) or "no one"
            if not deciders and read_action(text)[0].verb != "policy":
                raise explain_illegal(state, 0, read_action(text)[0])
            if len(deciders) > 1:
                raise NotationError(
                    "which-player",
                    P(
                        "several players must decide (%(who)s); write 'NAME: %(text)s'",
                        who=who,
                        text=text,
                    ),
                )
        seat = deciders[0] if deciders else 0
    return seat, parse_action(text, state, seat)
