"""Rule cases: special abilities of court cards [Card Precedence and Special Abilities, p. 8].

"Some event cards and court cards with special abilities will modify the rules of the game.
These cards always take precedence over the rules. If a court card has a special ability, it
is active as long as the card remains in your court." Each case builds the same position
with and without the card and shows the difference the ability makes; the ability's text is
quoted from engine/data/court_cards.json.
"""

from __future__ import annotations

from positions import Position, act, options, waiting_for

from engine.cards import RegionId
from engine.invariants import violations

KHYBER_PASS = 29  # Punjab, economic, rank 2: tax, move
KARAKUL_SHEEP = 61  # Herat, economic, rank 2: tax
AKALI_SIKHS = 38  # Punjab, military, rank 2: battle
HARRY_FLASHMAN = 18  # Punjab, intelligence, rank 1: gift, betray
KANDAHARI_MARKETS = 49  # Kandahar, economic, rank 1: tax, build
NASRULLAH_KHAN = 90  # Transcaspia, political
GHILZAI_NOMADS = 13  # Kabul, economic
AFGHAN_HANDICRAFTS = 9  # Kabul, economic
BANK = 46  # Kandahar, economic
BOLAN_PASS = 47  # Kandahar, economic
PAOLO_AVITABILE = 26  # Punjab, political, rank 1: betray
DOMINANCE_CHECK = 101
TOP = [75, 76, 77, 79, 80, 81]
BOTTOM = [84, 85, 86, 87, 88, 89]


def cati_and_hope(cati: str = "british", hope: str = "russian") -> Position:
    return (
        Position({"Cati": cati, "Hope": hope})
        .market(TOP, BOTTOM)
        .favored("intelligence")
        .rupees("Cati", 4)
        .rupees("Hope", 4)
    )


def maybe(position: Position, name: str, card: int, present: bool) -> Position:
    """Add `card` at the right end of `name`'s court when `present`."""
    return position.court(name, card) if present else position


def test_indispensable_advisors() -> None:
    """[Mohan Lal (1), Indispensable Advisors] "Your spies cannot be removed when a battle is
    fought against other spies."
    """

    def battles(present: bool) -> list[str]:
        position = cati_and_hope().court("Cati", AKALI_SIKHS).court("Hope", KHYBER_PASS)
        state = (
            maybe(position, "Hope", 1, present)
            .spies("Cati", KHYBER_PASS, 1)
            .spies("Hope", KHYBER_PASS, 1)
            .build()
        )
        return [o for o in options(state, "Cati") if o.startswith("battle")]

    assert battles(present=False) == ["battle 38 29"]
    assert battles(present=True) == []


def test_insurrection() -> None:
    """[Prince Akbar Khan (3), Insurrection] "Each time a Dominance Check finishes resolving,
    two Afghan armies are placed in Kabul."
    """

    def afghan_armies_after_a_check(present: bool) -> int:
        position = cati_and_hope("afghan").market([DOMINANCE_CHECK, *TOP[1:]], BOTTOM)
        state = maybe(position, "Cati", 3, present).build()
        state = act(state, "Cati", "purchase 101")
        assert state.checks_resolved == 1 and state.phase == "play"
        assert violations(state) == []
        return state.armies["kabul"]["afghan"]

    assert afghan_armies_after_a_check(present=False) == 0
    assert afghan_armies_after_a_check(present=True) == 2


def test_claim_of_ancient_lineage() -> None:
    """[Shah Shujah Durrani (5), Claim of Ancient Lineage] "When you take a tax action you are
    treated as ruling every region." Cati rules nothing; Hope has a Punjab card.
    """

    def sources(present: bool) -> list[str]:
        position = (
            cati_and_hope()
            .market_rupees(0, 1, 1)
            .market_rupees(1, 1, 1)
            .court("Cati", KARAKUL_SHEEP)
            .court("Hope", KHYBER_PASS)
            .rupees("Hope", 5)
        )
        state = act(maybe(position, "Cati", 5, present).build(), "Cati", "tax 61")
        return sorted(options(state, "Cati"))

    assert sources(present=False) == ["collect 76", "collect 85"]
    assert sources(present=True) == ["collect 76", "collect 85", "collect Hope"]


def test_bodyguards() -> None:
    """[Durrani Royal Guard (15), Bodyguards] "Political cards in your court cannot be chosen
    as the target of a betray action."
    """

    def betrayals(present: bool) -> set[str]:
        position = (
            cati_and_hope()
            .court("Cati", HARRY_FLASHMAN)
            .court("Hope", NASRULLAH_KHAN, KHYBER_PASS)
            .spies("Cati", NASRULLAH_KHAN, 1)
            .spies("Cati", KHYBER_PASS, 1)
        )
        state = maybe(position, "Hope", 15, present).build()
        return {o for o in options(state, "Cati") if o.startswith("betray")}

    assert betrayals(present=False) == {"betray 18 90", "betray 18 29"}
    assert betrayals(present=True) == {"betray 18 29"}


def tribe_in_a_battle(region: RegionId, border: str, citadel: int, present: bool) -> list[str]:
    """Cati (British) battles in `region`, where Hope (Russian) has a tribe, next to a
    Russian army and a Russian road on `border`.
    """
    position = (
        cati_and_hope()
        .court("Cati", AKALI_SIKHS)
        .armies(region, "british", 2)
        .armies(region, "russian", 1)
        .roads(border, "russian", 1)
        .tribes("Hope", region, 1)
    )
    state = maybe(position, "Hope", citadel, present).build()
    state = act(state, "Cati", f"battle 38 {region}")
    return sorted(options(state, "Cati"))


def test_citadel_kabul() -> None:
    """[Citadel of Ghazni (17), Citadel] "Your tribes in Kabul are immune to attack."."""
    assert tribe_in_a_battle("kabul", "kabul-punjab", 17, present=False) == [
        "remove army russian",
        "remove road kabul-punjab russian",
        "remove tribe Hope",
    ]
    assert tribe_in_a_battle("kabul", "kabul-punjab", 17, present=True) == [
        "remove army russian",
        "remove road kabul-punjab russian",
    ]


def test_citadel_transcaspia() -> None:
    """[The Ark of Bukhara (97), Citadel] "Your tribes in Transcaspia are immune to
    attack."
    """
    border = "persia-transcaspia"
    assert tribe_in_a_battle("transcaspia", border, 97, present=False) == [
        "remove army russian",
        "remove road persia-transcaspia russian",
        "remove tribe Hope",
    ]
    assert tribe_in_a_battle("transcaspia", border, 97, present=True) == [
        "remove army russian",
        "remove road persia-transcaspia russian",
    ]


def test_strange_bedfellows() -> None:
    """[Alexander Burnes (21), Strange Bedfellows] "When your spies travel, any two court
    cards of the same region count as adjacent." Cati's spy is on Ghilzai Nomads (Kabul);
    Afghan Handicrafts (Kabul) is three cards away.
    """

    def spy_moves(present: bool) -> list[str]:
        position = maybe(cati_and_hope().court("Cati", KHYBER_PASS), "Cati", 21, present)
        state = (
            position.court("Hope", GHILZAI_NOMADS, KARAKUL_SHEEP, BANK, AFGHAN_HANDICRAFTS)
            .spies("Cati", GHILZAI_NOMADS, 1)
            .build()
        )
        state = act(state, "Cati", "move 29")
        return sorted(options(state, "Cati"))

    assert "march spy 13 9" not in spy_moves(present=False)
    assert "march spy 13 9" in spy_moves(present=True)


def test_civil_service_reforms() -> None:
    """[Ranjit Singh (24), Civil Service Reforms] "You never owe a bribe when using a
    card-based action on a card held hostage by another player's spies."
    """

    def after_tax(present: bool) -> tuple[tuple[str, list[str]] | None, int]:
        position = (
            cati_and_hope()
            .market_rupees(0, 1, 2)
            .market_rupees(1, 1, 1)
            .court("Cati", KHYBER_PASS)
            .spies("Hope", KHYBER_PASS, 2)
        )
        state = act(maybe(position, "Cati", 24, present).build(), "Cati", "tax 29")
        return waiting_for(state), state.players[1].rupees

    assert after_tax(present=False) == (("bribe", ["Hope"]), 4)
    assert after_tax(present=True) == (("tax", ["Cati"]), 4)


def test_safe_house() -> None:
    """[Charles Masson (41), Safe House] "If another player removes one of your spies in a
    battle, you may move that spy onto this card instead of losing it." The owner of the
    spy decides, though it is not their turn.
    """

    def after_battle(present: bool, answer: str | None) -> tuple[dict[int, list[int]], int]:
        position = (
            cati_and_hope()
            .court("Cati", AKALI_SIKHS)
            .court("Hope", KHYBER_PASS)
            .spies("Cati", KHYBER_PASS, 1)
            .spies("Hope", KHYBER_PASS, 1)
        )
        state = act(maybe(position, "Hope", 41, present).build(), "Cati", "battle 38 29")
        if answer is not None:
            assert waiting_for(state) == ("safe_house", ["Hope"])
            assert options(state, "Hope") == ["spy 41", "decline"]
            state = act(state, "Hope", answer)
        assert waiting_for(state) == ("turn", ["Cati"])
        assert violations(state) == []
        return state.spies, state.players[1].cylinders

    assert after_battle(present=False, answer=None) == ({KHYBER_PASS: [1, 0]}, 10)
    assert after_battle(present=True, answer="spy 41") == ({KHYBER_PASS: [1, 0], 41: [0, 1]}, 9)
    assert after_battle(present=True, answer="decline") == ({KHYBER_PASS: [1, 0]}, 10)


def test_charismatic_courtiers() -> None:
    """[Barakzai Sadars (42), Charismatic Courtiers] "You never owe a bribe when playing a
    card to your court." Hope rules Punjab with two tribes.
    """

    def after_play(present: bool) -> tuple[tuple[str, list[str]] | None, int]:
        position = cati_and_hope().hand("Cati", KHYBER_PASS).tribes("Hope", "punjab", 2)
        state = act(maybe(position, "Cati", 42, present).build(), "Cati", "play 29 right")
        return waiting_for(state), state.players[1].rupees

    assert after_play(present=False) == (("bribe", ["Hope"]), 4)
    assert after_play(present=True) == (("road", ["Cati"]), 4)


def blackmail_at_turn_start(card: int, region_card: int, present: bool) -> list[str]:
    """Hope ends her turn; Cati's turn begins. Hope has a spy-free card of the region."""
    position = cati_and_hope().active("Hope").court("Hope", region_card, KANDAHARI_MARKETS)
    state = maybe(position, "Cati", card, present).spies("Hope", KANDAHARI_MARKETS, 1).build()
    state = act(state, "Hope", "pass")
    decision = waiting_for(state)
    assert decision is not None and decision[1] == ["Cati"]
    return [decision[0], *options(state, "Cati")]


def test_blackmail_kandahar() -> None:
    """[Giljee Nobles (43), Blackmail] "At the start of your turn you may put one of your
    spies on a Kandahar court card that has no spies on it."
    """
    assert blackmail_at_turn_start(43, BOLAN_PASS, present=False)[0] == "turn"
    found = blackmail_at_turn_start(43, BOLAN_PASS, present=True)
    assert found[0] == "blackmail"
    assert "spy 47" in found and "done" in found
    assert "spy 49" not in found  # Hope's spy is already on Kandahari Markets
    position = cati_and_hope().active("Hope").court("Hope", BOLAN_PASS).court("Cati", 43)
    state = act(position.build(), "Hope", "pass")
    state = act(state, "Cati", "spy 47")
    assert state.spies == {BOLAN_PASS: [1, 0]}
    assert waiting_for(state) == ("turn", ["Cati"])


def test_blackmail_herat() -> None:
    """[Herati Bandits (54), Blackmail] "At the start of your turn you may put one of your
    spies on a Herat court card that has no spies on it."
    """
    assert blackmail_at_turn_start(54, KARAKUL_SHEEP, present=False)[0] == "turn"
    found = blackmail_at_turn_start(54, KARAKUL_SHEEP, present=True)
    assert found[0] == "blackmail"
    assert "spy 61" in found and "done" in found
    assert "spy 47" not in found and "spy 49" not in found


def test_indian_supplies() -> None:
    """[Sir John Keane (51), Indian Supplies] "Your armies can move between regions without
    needing a road."
    """

    def army_moves(present: bool) -> list[str]:
        position = (
            cati_and_hope()
            .court("Cati", KHYBER_PASS)
            .court("Hope", KARAKUL_SHEEP)
            .spies("Cati", KARAKUL_SHEEP, 1)
            .armies("kandahar", "british", 1)
            .roads("kabul-kandahar", "british", 1)
        )
        state = act(maybe(position, "Cati", 51, present).build(), "Cati", "move 29")
        return sorted(o for o in options(state, "Cati") if o.startswith("march army"))

    assert army_moves(present=False) == ["march army kandahar kabul"]
    assert army_moves(present=True) == [
        "march army kandahar herat",
        "march army kandahar kabul",
        "march army kandahar punjab",
    ]


def test_well_connected() -> None:
    """[Yar Mohammad Alikozai (56), Well-Connected] "When you take a move action, each of
    your spies may travel twice the normal distance." Two cards away is one move.
    """

    def spy_moves(present: bool) -> list[str]:
        position = maybe(cati_and_hope().court("Cati", KHYBER_PASS), "Cati", 56, present)
        state = (
            position.court("Hope", GHILZAI_NOMADS, KARAKUL_SHEEP, BANK, AFGHAN_HANDICRAFTS)
            .spies("Cati", KARAKUL_SHEEP, 1)
            .build()
        )
        state = act(state, "Cati", "move 29")
        return sorted(options(state, "Cati"))

    assert spy_moves(present=False) == ["march spy 61 13", "march spy 61 46"]
    assert spy_moves(present=True) == [
        "march spy 61 13",
        "march spy 61 46",
        "march spy 61 56",
        "march spy 61 9",
    ]


def free_purchase(card: int, market_card: int, present: bool) -> tuple[bool, int]:
    """Whether Cati (3 rupees) may buy `market_card` in the last column, and her rupees."""
    position = cati_and_hope().market([*TOP[:5], market_card], BOTTOM).rupees("Cati", 3)
    state = maybe(position, "Cati", card, present).build()
    if f"purchase {market_card}" not in options(state, "Cati"):
        return False, 3
    state = act(state, "Cati", f"purchase {market_card}")
    assert state.players[0].hand == [market_card]
    assert state.market_rupees[0] == [0] * 6
    return True, state.players[0].rupees


def test_herat_influence() -> None:
    """[Baluchi Smugglers (66), Herat Influence] "Herat cards in the market cost you nothing
    to purchase."
    """
    assert free_purchase(66, 62, present=False) == (False, 3)
    assert free_purchase(66, 62, present=True) == (True, 3)
    assert free_purchase(66, 95, present=True) == (False, 3)


def test_persian_influence() -> None:
    """[Ghaem Magham Farahani (68), Persian Influence] "Persia cards in the market cost you
    nothing to purchase."
    """
    assert free_purchase(68, 78, present=False) == (False, 3)
    assert free_purchase(68, 78, present=True) == (True, 3)
    assert free_purchase(68, 62, present=True) == (False, 3)


def test_russian_influence() -> None:
    """[Alexander Griboyedov (70), Russian Influence] "Russian patriots in the market cost you
    nothing to purchase."
    """
    assert free_purchase(70, 95, present=False) == (False, 3)
    assert free_purchase(70, 95, present=True) == (True, 3)
    assert free_purchase(70, 96, present=True) == (False, 3)  # Transcaspia, no patriot


def test_infrastructure() -> None:
    """[Civic Improvements (78), Infrastructure] "After resolving a build action, you place
    one extra block in any legal space."
    """

    def armies_after_build(present: bool) -> tuple[int, int]:
        position = (
            cati_and_hope()
            .court("Cati", KANDAHARI_MARKETS)
            .tribes("Cati", "kabul", 1)
            .rupees("Cati", 2)
        )
        state = maybe(position, "Cati", 78, present).build()
        state = act(state, "Cati", "build 49", "army kabul")
        if present:
            assert waiting_for(state) == ("infrastructure", ["Cati"])
            assert "road kabul-punjab" in options(state, "Cati")
            state = act(state, "Cati", "army kabul")
        assert waiting_for(state) == ("turn", ["Cati"])
        assert violations(state) == []
        return state.armies["kabul"]["british"], state.players[0].rupees

    assert armies_after_build(present=False) == (1, 0)
    assert armies_after_build(present=True) == (2, 0)


def after_two_purchases(card: int) -> tuple[tuple[str, list[str]] | None, list[str]]:
    """Cati (Russian) buys two free cards with `card` in court, while economic is favored.
    She has a spy on Hope's Khyber Pass and a Russian army facing a British one in Kandahar.
    """
    position = (
        cati_and_hope("russian", "british")
        .favored("economic")
        .court("Cati", card)
        .court("Hope", KHYBER_PASS)
        .spies("Cati", KHYBER_PASS, 1)
        .armies("kandahar", "russian", 1)
        .armies("kandahar", "british", 1)
    )
    state = act(position.build(), "Cati", "purchase 75", "purchase 84")
    return waiting_for(state), options(state, "Cati")


def test_savvy_operator() -> None:
    """[Allah Quli Bahadur (91), Savvy Operator] "This card always counts as belonging to the
    favored suit." Its betray is a bonus action once both actions are used; that of Paolo
    Avitabile (political, betray) is not.
    """
    assert after_two_purchases(PAOLO_AVITABILE) == (("turn", ["Hope"]), [])
    assert after_two_purchases(91) == (("turn", ["Cati"]), ["betray 91 29", "pass"])


def test_irregulars() -> None:
    """[Cossacks (99), Irregulars] "This card always counts as belonging to the favored
    suit." Its battle is a bonus action once both actions are used; that of Akali Sikhs
    (military, battle) is not.
    """
    assert after_two_purchases(AKALI_SIKHS) == (("turn", ["Hope"]), [])
    assert after_two_purchases(99) == (("turn", ["Cati"]), ["battle 99 kandahar", "pass"])
