"""Actions in words: `describe_action` gives every verb of docs/notation.md as a phrase.

A history or a bribe prompt shows the action as a sentence with the notation beside it;
these cases pin the phrase of each verb, cards by name and number, places by name.
"""

from __future__ import annotations

import re

import pytest
from walks import Start, Walk

from engine.actions import Action, Arg, Verb
from engine.explain import VERB_DECISIONS
from engine.frames import SafeHouseFrame
from engine.rules.words import PHRASES, count, describe_action

CASES: list[tuple[str, tuple[Arg, ...], str]] = [
    ("purchase", (43,), "buy Giljee Nobles (43)"),
    ("purchase", (116,), "buy Political / Rebuke (116)"),
    ("play", (1, "left"), "play Mohan Lal (1) to the left end of the court"),
    ("play", (43, "right"), "play Giljee Nobles (43) to the right end of the court"),
    ("tax", (14,), "tax with Money Lenders (14), taking up to 2 rupees"),
    ("tax", (54,), "tax with Herati Bandits (54), taking up to 1 rupee"),
    ("gift", (14, 4), "buy a gift for 4 rupees with Money Lenders (14)"),
    ("gift", (22, 2), "buy a gift for 2 rupees with George Hayward (22)"),
    ("build", (28,), "build armies and roads with Anarkali Bazaar (28), at 2 rupees a block"),
    ("move", (72,), "move armies and spies with Claude Wade (72), up to 2 moves"),
    ("betray", (90, 43), "betray Giljee Nobles (43) with Nasrullah Khan (90)"),
    ("battle", (43, "kandahar"), "battle in Kandahar with Giljee Nobles (43)"),
    ("battle", (33, 71), "battle on Joseph Wolff (71) with Zorawar Singh Kahluria (33)"),
    ("pass", (), "pass, ending the turn"),
    ("loyalty", ("british",), "choose British loyalty"),
    ("demand", (0,), "waive the bribe"),
    ("demand", (1,), "demand a bribe of 1 rupee"),
    ("demand", (3,), "demand a bribe of 3 rupees"),
    ("pay", (), "pay the bribe"),
    ("refuse", (), "refuse to pay the bribe"),
    ("road", ("herat-kabul",), "place a road on the Herat–Kabul border"),
    ("army", ("kabul",), "place an army in Kabul"),
    ("spy", (7,), "place a spy on Dost Mohammad (7)"),
    ("take", ("army", "herat"), "take the army in Herat"),
    ("take", ("road", "kandahar-punjab"), "take the road on the Kandahar–Punjab border"),
    ("take", ("tribe", "kabul"), "take the tribe in Kabul"),
    ("take", ("spy", 1), "take the spy on Mohan Lal (1)"),
    ("take", ("gift", 4), "take the gift on the 4-rupee space"),
    ("discard", (83,), "discard Shah's Guard (83)"),
    ("choose", ("bob",), "choose bob"),
    ("choose", ("kabul",), "choose Kabul"),
    ("choose", ("military",), "choose the military suit"),
    ("collect", (70,), "take a rupee from Alexander Griboyedov (70)"),
    ("collect", ("bob",), "take a rupee from bob"),
    ("march", ("army", "herat", "kandahar"), "move an army from Herat to Kandahar"),
    ("march", ("tribe", "kabul", "punjab"), "move a tribe from Kabul to Punjab"),
    (
        "march",
        ("spy", 73, 35),
        "move a spy from Jean-François Allard (73) to Hari Singh Nalwa (35)",
    ),
    ("remove", ("army", "british"), "remove a British army"),
    ("remove", ("army", "afghan"), "remove an Afghan army"),
    (
        "remove",
        ("road", "kandahar-punjab", "russian"),
        "remove a Russian road from the Kandahar–Punjab border",
    ),
    ("remove", ("tribe", "bob"), "remove one of bob's tribes"),
    ("remove", ("spy", "bob"), "remove one of bob's spies"),
    ("accept", (), "take the betrayed card as a prize"),
    ("decline", (), "decline the prize"),
    ("done", (), "stop there"),
    ("policy", ("pay", 2), "from now on pay any bribe of up to 2 rupees"),
    ("policy", ("demand", "bob", 1), "from now on demand at most 1 rupee of bob"),
    ("policy", ("clear",), "forget every standing policy"),
]


@pytest.mark.parametrize(("verb", "args", "words"), CASES, ids=[c[2] for c in CASES])
def test_each_verb_reads_as_a_phrase(
    start: Start, verb: Verb, args: tuple[Arg, ...], words: str
) -> None:
    assert describe_action(start(), Action(verb, args)) == words


def test_every_verb_of_the_notation_has_a_phrase() -> None:
    """Every verb a decision answers, and `policy`, is described, none left to the
    notation; the table above has a case for each."""
    verbs = {*VERB_DECISIONS, "policy"}
    assert verbs <= set(PHRASES)
    assert verbs <= {verb for verb, _, _ in CASES}


def test_decline_of_a_safe_house_lets_the_spy_go(start: Start) -> None:
    state = start()
    state.stack.append(SafeHouseFrame(kind="safe_house", player=1, lost_from=41))
    assert describe_action(state, Action("decline")) == "let the removed spy go"


@pytest.mark.parametrize(("number", "words"), [(0, "0 rupees"), (1, "1 rupee"), (2, "2 rupees")])
def test_counts_agree_with_their_noun(number: int, words: str) -> None:
    assert count(number, "rupee") == words


def test_irregular_plurals() -> None:
    assert count(2, "army") == "2 armies"
    assert count(3, "spy") == "3 spies"
    assert count(1, "move", more=True) == "1 more move"
    assert count(2, "block", more=True) == "2 more blocks"


# Ids of the notation that must not show through in words: region, border and coalition
# ids in lower case, and a verb followed by a card number.
BARE = re.compile(
    r"\b(transcaspia|persia|herat|kabul|kandahar|punjab|afghan|british|russian)\b"
    r"|\b(purchase|play|tax|gift|build|move|betray|battle|spy|discard|collect) \d+"
)


def test_every_legal_action_of_random_games_reads_as_words(walk: Walk) -> None:
    """Every action offered in a few random games has a phrase with no notation in it."""
    for players, seed in ((2, 3), (3, 4), (4, 5)):
        for state, choices, _ in walk(players, seed):
            for _, action in choices:
                words = describe_action(state, action)
                assert action.verb in PHRASES, words
                assert not BARE.search(words), words
