"""Prompts read as English: who decides, what is asked, the answer's notation in backticks.

Every decision kind the engine has is prompted here from a hand-built frame, and every
prompt met in random games (with and without Wakhan) is checked: one line, naming a
decider, cards by name with their number, places by name, counts that agree with their
nouns, no bare notation outside backticks and never "you". The public report of a random
game never addresses "you" either.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from walks import Start, Walk

import engine
from adjudicator.games.reports import public_report
from engine.cards import card_name
from engine.frames import (
    BattleFrame,
    BlackmailFrame,
    BribeFrame,
    BuildFrame,
    ChooseFrame,
    DiscardEachFrame,
    DiscardFrame,
    InfrastructureFrame,
    LoyaltyFrame,
    MoveFrame,
    PayFrame,
    PrizeFrame,
    RoadFrame,
    SafeHouseFrame,
    SpyFrame,
    TakeFrame,
    TaxFrame,
    TurnFrame,
)
from engine.game import legal_seat_actions, pending, step
from engine.rng import below, seed_state
from engine.rules.flow import DECISIONS
from engine.state import Frame, State

# alice, bob, carol and dave are seats 0 to 3.
FRAMES: dict[str, Frame] = {
    "loyalty": LoyaltyFrame(kind="loyalty", player=1),
    "turn": TurnFrame(kind="turn", player=0),
    "bribe": BribeFrame(kind="bribe", player=3, payer=2, amount=2, action=["gift", 14, 4]),
    "pay": PayFrame(kind="pay", player=2, ruler=3, demand=1, action=["play", 1, "left"]),
    "road": RoadFrame(kind="road", player=0, region="kabul"),
    "spy": SpyFrame(kind="spy", player=0, region="herat"),
    "take": TakeFrame(kind="take", player=0, piece="army", location="kabul", coalition="british"),
    "blackmail": BlackmailFrame(kind="blackmail", player=0, region="kandahar"),
    "tax": TaxFrame(kind="tax", player=0, card=14, remaining=2, taken=0),
    "move": MoveFrame(kind="move", player=0, card=72, remaining=1, taken=1),
    "battle": BattleFrame(kind="battle", player=0, card=43, site="kandahar", remaining=1, taken=0),
    "safe_house": SafeHouseFrame(kind="safe_house", player=1, lost_from=43),
    "prize": PrizeFrame(kind="prize", player=0, card=43),
    "build": BuildFrame(kind="build", player=0, card=28, remaining=3, taken=0),
    "infrastructure": InfrastructureFrame(kind="infrastructure", player=0),
    "discard": DiscardFrame(kind="discard", player=0, place="any", count=2, reason="leverage"),
    "choose": ChooseFrame(kind="choose", player=0, effect="rebuke", card=116),
    "discard_each": DiscardEachFrame(
        kind="discard_each", players=[0, 1], reason="Confidence Failure"
    ),
}

EXPECTED = {
    "loyalty": "bob chooses a starting loyalty: Afghan, British or Russian (`loyalty COALITION`)",
    "turn": "alice takes an action (2 of 2 left) or passes",
    "bribe": "carol wants to buy a gift for 4 rupees with Money Lenders (14): dave may demand "
    "a bribe of up to 2 rupees (`demand N`, `demand 0` waives it)",
    "pay": "dave demands 1 rupee before carol may play Mohan Lal (1) to the left end of the "
    "court: carol pays or refuses (`pay`, `refuse`)",
    "road": "alice places a road on a border of Kabul (`road BORDER`)",
    "spy": "alice places a spy on a Herat court card (`spy CARD`)",
    "take": "alice has no British army left in supply to place an army in Kabul: alice takes "
    "one from the board instead (`take PIECE LOCATION`)",
    "blackmail": "alice may blackmail with Giljee Nobles (43): a spy on a Kandahar court card "
    "with no spies (`spy CARD`), or none (`done`)",
    # Before the first step `done` is not legal (flow.RepeatedDecision): not offered.
    "tax": "alice taxes with Money Lenders (14): up to 2 rupees from market cards or "
    "players (`collect CARD`, `collect PLAYER`)",
    "move": "alice moves with Claude Wade (72): up to 1 more move (`march army FROM TO`, "
    "`march spy FROM TO`), or stop (`done`)",
    "battle": "alice battles in Kandahar with Giljee Nobles (43): up to 1 piece to remove "
    "(`remove ...`)",
    "safe_house": "bob's spy was removed from Giljee Nobles (43): bob may save it onto a Safe "
    "House card (`spy CARD`) or let it go (`decline`)",
    "prize": "alice may take the betrayed Giljee Nobles (43) as an Afghan prize (`accept`) or "
    "not (`decline`)",
    "build": "alice builds with Anarkali Bazaar (28): up to 3 blocks at 2 rupees each "
    "(`army REGION`, `road BORDER`)",
    "infrastructure": "alice may place one free block with Infrastructure (`army REGION`, "
    "`road BORDER`), or none (`done`)",
    "discard": "alice discards 2 cards from hand or court to repay leverage (`discard CARD`)",
    "choose": "alice chooses a region for Rebuke (116) (`choose REGION`)",
    "discard_each": "alice and bob each discard a card from hand for Confidence Failure (114) "
    "(`discard CARD`)",
}


def prompt_of(state: State, frame: Frame) -> str:
    return DECISIONS[frame["kind"]].prompt(state, frame)


def test_every_decision_kind_has_a_case() -> None:
    assert set(FRAMES) == set(DECISIONS) == set(EXPECTED)


def four_players(start: Start) -> State:
    state = start(4)
    for player in state.players[:2]:  # discard_each asks only players with a card in hand
        player.hand = player.hand or [1]
    return state


@pytest.mark.parametrize("kind", sorted(FRAMES))
def test_each_decision_is_prompted_in_words(start: Start, kind: str) -> None:
    assert prompt_of(four_players(start), FRAMES[kind]) == EXPECTED[kind]


def test_the_bribe_for_a_gift_reads_as_a_sentence(start: Start) -> None:
    """The bribe asked of carol's gift with Money Lenders names the gift, its price and
    the card, not `gift 14 4`."""
    state = four_players(start)
    state.stack.append(FRAMES["bribe"])
    decision = pending(state)
    assert decision is not None
    assert decision.prompt.startswith(
        "carol wants to buy a gift for 4 rupees with Money Lenders (14): "
    )
    assert "gift 14 4" not in decision.prompt


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (BribeFrame(kind="bribe", player=3, payer=2, amount=1, action=["tax", 14]), "1 rupee "),
        (PayFrame(kind="pay", player=2, ruler=3, demand=2, action=["tax", 14]), "2 rupees "),
        (TaxFrame(kind="tax", player=0, card=14, remaining=1, taken=1), "1 more rupee "),
        (BuildFrame(kind="build", player=0, card=28, remaining=1, taken=2), "1 more block "),
        (MoveFrame(kind="move", player=0, card=72, remaining=2, taken=0), "2 moves "),
        (
            BattleFrame(kind="battle", player=0, card=43, site=7, remaining=2, taken=0),
            "2 pieces ",
        ),
        (
            DiscardFrame(kind="discard", player=0, place="hand", count=1, reason="hand limit"),
            "1 card ",
        ),
    ],
)
def test_counts_in_prompts_agree_with_their_nouns(start: Start, frame: Frame, words: str) -> None:
    assert words in prompt_of(four_players(start), frame)


def test_the_last_action_is_a_bonus_action_or_a_pass(start: Start) -> None:
    state = start()
    state.actions_used = 2
    assert prompt_of(state, TurnFrame(kind="turn", player=0)) == (
        "alice has used both actions and may take a bonus action or pass"
    )


# What may not stand outside backticks: a verb of the notation followed by a number, ids of
# regions, borders and coalitions in lower case, "(s)" plurals, and any word for "you".
NOTATION = re.compile(
    r"\b(purchase|play|tax|gift|build|move|betray|battle|spy|road|army|discard|collect|demand"
    r"|march|remove|take) \d+"
    r"|\b(transcaspia|persia|herat|kabul|kandahar|punjab|afghan|british|russian)\b"
    r"|\(s\)"
)
YOU = re.compile(r"\b(you|your|yours|yourself)\b", re.IGNORECASE)
CARD = re.compile(r"\((\d+)\)")
# A number outside a card's parentheses must count something.
COUNTED = re.compile(
    r"\b\d+ (more )?(rupees?|cards?|moves?|blocks?|pieces?)\b|\b\d+ of \d+ left\b|\b\d+-rupee\b"
)
WRONG_PLURAL = re.compile(
    r"\b1 (more )?(rupees|cards|moves|blocks|pieces)\b"
    r"|\b([02-9]|\d\d+) (more )?(rupee|card|move|block|piece)\b"
)


def problems(state: State, prompt: str, deciders: list[str]) -> list[str]:
    """What is wrong with a prompt (empty when it reads as it should)."""
    found: list[str] = []
    if "\n" in prompt:
        found.append("more than one line")
    if not any(name in prompt for name in deciders):
        found.append(f"names none of {deciders}")
    words = re.sub(r"`[^`]*`", "", prompt)
    found += [f"notation {m.group(0)!r}" for m in NOTATION.finditer(words)]
    found += [f"says {m.group(0)!r}" for m in YOU.finditer(words)]
    found += [f"plural {m.group(0)!r}" for m in WRONG_PLURAL.finditer(words)]
    for match in CARD.finditer(words):
        # An event is named by the half at work ("Rumor (108)"), a court card in full.
        names = [card_name(int(match.group(1))), *card_name(int(match.group(1))).split(" / ")]
        if not any(words[: match.start()].endswith(f"{name} ") for name in names):
            found.append(f"card {match.group(0)} without its name")
    bare = CARD.sub("", COUNTED.sub("", words))
    found += [f"bare number {m.group(0)!r}" for m in re.finditer(r"\d+", bare)]
    return found


def random_games() -> Iterator[State]:
    """Every position of a few random games, two to five players and with Wakhan."""
    games: list[tuple[list[str], int, dict[str, object]]] = [
        (["alice", "bob"], 11, {}),
        (["alice", "bob", "carol"], 12, {}),
        (["alice", "bob", "carol", "dave"], 13, {}),
        (["alice", "bob", "carol", "dave", "erin"], 14, {}),
        (["alice"], 15, {"wakhan": True}),
        (["alice", "bob"], 16, {"wakhan": True}),
    ]
    for names, seed, options in games:
        state = engine.new_game(names, seed, options)
        rng = seed_state(seed)
        while state.phase != "over":
            yield state
            choices = legal_seat_actions(state)
            rng, pick = below(rng, len(choices))
            step(state, *choices[pick])


def test_every_prompt_of_random_games_reads_as_words(walk: Walk) -> None:
    kinds: set[str] = set()
    wrong: dict[str, list[str]] = {}
    for state in random_games():
        decision = pending(state)
        assert decision is not None
        kinds.add(decision.kind)
        deciders = [state.name(seat) for seat in decision.seats]
        if found := problems(state, decision.prompt, deciders):
            wrong[decision.prompt] = found
    assert wrong == {}
    assert {"loyalty", "turn", "bribe", "pay", "tax", "discard"} <= kinds


@pytest.mark.parametrize("kind", sorted(FRAMES))
def test_the_hand_built_prompts_pass_the_same_checks(start: Start, kind: str) -> None:
    state = four_players(start)
    deciders = [state.name(s) for s in DECISIONS[kind].deciders(state, FRAMES[kind])]
    assert problems(state, prompt_of(state, FRAMES[kind]), deciders) == []


def test_the_public_report_of_a_random_game_never_says_you() -> None:
    """Rendered after every step, from the public view and the step's log lines. The
    rulebook section quoted beside the prompt is a title ("Discarding a Card in Your
    Court") and is left out of the check."""
    for number, state in enumerate(random_games()):
        view = engine.view(state)
        report = public_report("g", f"move {number}", view, list(state.log), None)
        if view["pending"] is not None:
            report = report.replace(f"({view['pending']['section']})", "")
        assert not YOU.search(report), report


@pytest.mark.parametrize("kind", ["tax", "move", "battle", "build"])
def test_done_is_offered_only_once_a_step_was_taken(start: Start, kind: str) -> None:
    # The prompt offers what is legal now: `done` stops a repeated action after a step.
    state = four_players(start)
    for taken in (0, 1):
        frame = {**FRAMES[kind], "taken": taken}
        said = prompt_of(state, frame)  # type: ignore[arg-type]
        assert ("`done`" in said) is bool(taken), said
        assert ("more" in said.split(":")[1]) is bool(taken), said
