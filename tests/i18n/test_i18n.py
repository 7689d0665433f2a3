"""Players' languages (docs/i18n.md): the Polish catalogue is complete, compiles, and
nothing it covers reaches a Polish reader in English.

Strict by construction: each rendering in Polish is compared with the same rendering in
English, and any English word of the English rendering that is still in the Polish one
fails the test, unless it is a card's printed name, the notation (in backticks), a link,
a player's name, or a word the Polish catalogue itself uses (a proper noun such as Kabul,
a card name such as Safe House). What is rendered here is what the catalogue covers:

- the report templates (public report and private section) at every kind of decision;
- every decision's prompt, with its rulebook section;
- every action in words (`engine.phrase_action`), as history lines and subjects use it;
- every refusal code's explanation;
- the report mail's own parts: subjects, how to reply, the web links, the game over;
- the refusal mail, the answers to commands by mail and their notices, reminders and the
  notice of a refused forgery (tests/i18n/test_i18n_mail.py, through a real SMTP server);
- the web pages but for /help and the private page (tests/i18n/test_i18n_pages.py).

- every log line of the engine (the story of a turn), events' effects and Wakhan's notes
  included: none is plain English any more.

Card names stay as printed but for those the Polish rulebook names (docs/i18n.md).
"""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations
from mailserver import settings_for

import engine
from adjudicator.games import reports
from adjudicator.games.codes import CODES, explained_codes, refusal_phrase
from adjudicator.home.translations import LOCALE_DIR, Words, catalogue_paths
from adjudicator.mail.compose.reports import how_to_reply, report_subject, web_pages
from engine.cards import COURT_CARDS, EVENT_CARDS, WAKHAN_CARDS, card_name
from engine.game import legal_seat_actions
from engine.phrases import P, Phrase
from engine.rules.events import EFFECT_TERMS
from engine.rules.flow import DECISIONS
from engine.rules.wakhan_deck import ACTION_TERMS
from engine.rules.words import CARD_NAME_TERMS, PHRASES, card_term

ROOT = Path(__file__).resolve().parents[2]
POLISH = "pl"
PO, _ = catalogue_paths(POLISH)
POT = LOCALE_DIR / "messages.pot"
# Translations that are rightly the English text: proper nouns and pure notation.
SAME_IN_POLISH = {"Kabul", "Herat", "Kandahar", "Region", "%(first)s–%(second)s", "%(action)s"}
SAME_IN_POLISH |= {"%(kind)s", "%(line)s", "%(card)s: %(effect)s", "%(first)s, %(rest)s"}
SAME_IN_POLISH |= {"%(first)s-%(second)s", "%(name)s (%(number)s)"}
# A legal action's label and its cost, a card and its region (adjudicator/games/choices.py).
SAME_IN_POLISH |= {"%(action)s, %(cost)s", "%(card)s (%(region)s)"}
# A refusal's rulebook section after its reason (engine/errors.py).
SAME_IN_POLISH |= {"%(reason)s [%(section)s]"}
NAMES = ("ala", "bob", "cyd")
PL, EN = Words(POLISH), Words()


def read_catalogue(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=POLISH if path.suffix == ".po" else None)


def forms(message: Any) -> list[str]:
    """A message's translations: one, or one per plural form."""
    string = message.string
    return [string] if isinstance(string, str) else list(string or [])


def ids(catalog: Catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


# -- the catalogue ---------------------------------------------------------------------------


def test_the_template_catalogue_holds_every_marked_message(tmp_path: Path) -> None:
    """`make messages` was run: extracting again finds exactly the committed messages."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    keywords = re.search(r"^KEYWORDS := (.*)$", makefile, re.M)
    assert keywords is not None
    fresh = tmp_path / "messages.pot"
    extracted = subprocess.run(
        [
            *(str(Path(sys.executable).parent / "pybabel"), "-q", "extract", "-F", "babel.cfg"),
            *("--no-default-keywords", *keywords.group(1).split(), "-o", str(fresh), "."),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    assert ids(read_catalogue(fresh)) == ids(read_catalogue(POT)), "run `make messages`"
    # Babel warns of what it cannot extract, such as a message built with an f-string
    # (it could never be translated): every marked call must be one it reads.
    assert "warning" not in extracted.stderr.lower(), extracted.stderr


def test_every_message_has_a_polish_translation() -> None:
    template, polish = read_catalogue(POT), read_catalogue(PO)
    assert ids(polish) == ids(template), "run `make messages` and translate"
    untranslated = [m.id for m in polish if m.id and (m.fuzzy or not forms(m) or not all(forms(m)))]
    assert untranslated == []
    plural = [m for m in polish if m.id and m.pluralizable]
    assert plural and all(len(forms(m)) == 3 for m in plural), "Polish has three plural forms"
    assert polish.num_plurals == 3
    problems = [(m.id, [str(e) for e in errors]) for m, errors in polish.check()]
    assert problems == []  # python-format placeholders agree with the English


def test_no_translation_is_left_as_the_english_text() -> None:
    same = {
        m.id
        for m in read_catalogue(PO)
        if m.id and isinstance(m.id, str) and m.string == m.id and m.id not in SAME_IN_POLISH
    }
    assert same == set()


def test_the_polish_catalogue_compiles_and_counts_in_three_forms() -> None:
    compiled = io.BytesIO()
    write_mo(compiled, read_catalogue(PO))
    compiled.seek(0)
    translations = Translations(compiled)
    forms = [
        translations.ngettext("%(n)s rupee", "%(n)s rupees", n) % {"n": n}
        for n in (1, 3, 5, 22, 112)
    ]
    assert forms == ["1 rupia", "3 rupie", "5 rupii", "22 rupie", "112 rupii"]


# -- what a Polish reader sees -----------------------------------------------------------------

CARD_NAMES = sorted(
    {card_name(n) for n in (*COURT_CARDS, *EVENT_CARDS)}
    | {half for n in EVENT_CARDS for half in card_name(n).split(" / ")},
    key=len,
    reverse=True,
)
# Quoted, so not words of a language: the notation in backticks, a Markdown code line
# (indented by four spaces: a refusal as the engine words it, a mail server's reason),
# links, addresses, paths and commit ids.
QUOTED = re.compile(
    r"`[^`]*`|^    .*$|https?://\S+|[\w.+-]+@[\w.-]+|moves/\S+|\b[0-9a-f]{10,40}\b", re.M
)
WORD = re.compile(r"[A-Za-z]{3,}")


def polish_vocabulary() -> set[str]:
    found: set[str] = set()
    for message in read_catalogue(PO):
        for text in forms(message):
            found |= {w.lower() for w in WORD.findall(QUOTED.sub(" ", text))}
    return found


# Time zones keep their abbreviations (UTC, CET) in every language.
# `wakhan` is her seat's name, a player's name like the others.
ALLOWED = polish_vocabulary() | set(NAMES) | {"wakhan", "pamir", "svg", "png", "utc", "cet", "cest"}


def _bare(text: str) -> str:
    text = QUOTED.sub(" ", text)
    for name in CARD_NAMES:
        text = text.replace(name, " ")
    return text


def english_left(polish: str, english: str) -> list[str]:
    """The English words of `english` that are still in `polish`."""
    words = {w.lower() for w in WORD.findall(_bare(english))} - ALLOWED
    return sorted({w for w in WORD.findall(_bare(polish)) if w.lower() in words})


def positions() -> tuple[dict[str, engine.State], dict[str, list[tuple[engine.State, Any]]]]:
    """A position at each kind of decision, and some actions of each verb with the
    position they are taken in, from seeded random games."""
    found: dict[str, engine.State] = {}
    actions: dict[str, list[tuple[engine.State, Any]]] = {}
    for seed in range(40):
        state = engine.new_game(list(NAMES[: 2 + seed % 2]), seed)
        rng = random.Random(seed)
        while state.phase != "over":
            pending = engine.pending(state)
            if pending is not None and pending.kind not in found:
                found[pending.kind] = engine.loads(engine.dumps(state))
            seat, action = rng.choice(legal_seat_actions(state))
            if len(actions.setdefault(action.verb, [])) < 12:
                actions[action.verb].append((engine.loads(engine.dumps(state)), action))
            state = engine.apply(state, seat, action)
            for said in state.said:
                if len(LOG_LINES.setdefault(said.message, [])) < 6:
                    LOG_LINES[said.message].append(said)
        found.setdefault("over", state)
        if set(DECISIONS) | {"over"} <= set(found) and set(PHRASES) - {"policy"} <= set(actions):
            break
    return found, actions


# What the random games' log said, by message (a few of each), in translatable form.
LOG_LINES: dict[str, list[Any]] = {}
POSITIONS, ACTIONS = positions()


def wakhan_games() -> None:
    """Wakhan's log lines too, from a few games against her."""
    for seed in range(3):
        state = engine.new_game(list(NAMES[:2]), seed, {"wakhan": True})
        rng = random.Random(seed)
        while state.phase != "over":
            seat, action = rng.choice(legal_seat_actions(state))
            state = engine.apply(state, seat, action)
            for said in state.said:
                if len(LOG_LINES.setdefault(said.message, [])) < 6:
                    LOG_LINES[said.message].append(said)


wakhan_games()
UNTRANSLATED = "%(line)s"  # a line given as plain English (engine/state.py's `as_said`)


def test_the_engine_gives_no_log_line_as_plain_english() -> None:
    assert UNTRANSLATED not in LOG_LINES, [str(s) for s in LOG_LINES[UNTRANSLATED]]


@pytest.mark.parametrize("message", sorted(LOG_LINES))
def test_every_log_line_of_the_engine_is_in_polish(message: str) -> None:
    """The engine's log lines, as phrases: the whole story of a turn."""
    for said in LOG_LINES[message]:
        polish = PL.phrase(said)
        assert english_left(polish, str(said)) == [], polish


def test_the_core_of_the_log_is_translated() -> None:
    """Purchases, plays, card actions, bribes, placements, Dominance Checks: as phrases."""
    core = {
        "%(who)s purchased %(card)s for %(n)s rupee",
        "%(who)s played %(card)s (%(region)s) to the left of their court",
        "%(who)s taxes with %(card)s",
        "%(who)s placed a tribe in %(location)s",
        "%(who)s chose %(coalition)s loyalty",
        "%(who)s ended their turn",
        "%(who)s scored %(n)s victory point",
        "Wakhan ended her turn",
    }
    assert core <= set(LOG_LINES)


def test_the_tables_of_translated_texts_cover_the_card_data() -> None:
    """Events' effects and Wakhan's AI card actions are written out for extraction: every
    one the data holds is there, so none reaches a log line untranslated."""
    effects = {h.text for c in EVENT_CARDS.values() for h in (c.if_discarded, c.if_purchased)}
    assert effects == set(EFFECT_TERMS)
    listed = {a for c in WAKHAN_CARDS.values() for a in c.front.actions}
    assert listed <= set(ACTION_TERMS)
    names = {card_name(n) for n in (*COURT_CARDS, *EVENT_CARDS)}
    assert set(CARD_NAME_TERMS) <= names


def test_the_cards_the_polish_rulebook_names_are_named_in_polish() -> None:
    """Card names: the Polish edition's where its rulebook prints them, else the English."""
    check = next(n for n in EVENT_CARDS if card_name(n) == "Dominance Check")
    assert PL.phrase(P("buy %(card)s", card=card_term(check))) == (
        f"kup kartę Sprawdzenie dominacji ({check})"
    )
    assert str(card_term(check)) == f"Dominance Check ({check})"
    assert PL._value(card_term(1)) == f"{card_name(1)} ({1})"


RULEBOOK = ROOT.parent / "shared" / "rules" / "rulebook-2e-pl.md"


@pytest.mark.skipif(not RULEBOOK.exists(), reason="the Polish rulebook is not beside the checkout")
def test_the_polish_card_names_are_the_rulebooks() -> None:
    rulebook = RULEBOOK.read_text("utf-8")
    for english, term in CARD_NAME_TERMS.items():
        assert f"„{PL(term.text)}”" in rulebook, english


def test_the_random_games_reach_every_kind_of_decision() -> None:
    assert set(POSITIONS) == set(DECISIONS) | {"over"}


def _report(state: engine.State, words: Words) -> str:
    public_view, view = engine.view(state), engine.view(state, NAMES[0])
    if words.language == POLISH:
        prompt = engine.pending_phrase(state)
        public_view = reports.translated_view(public_view, prompt, words)
        view = reports.translated_view(view, prompt, words)
    title = words.phrase(P("move %(number)s by %(player)s", number=7, player="bob"))
    public = reports.public_report("g1", title, public_view, [], "—", words.language)
    asked = engine.follow_ups(state, NAMES[0]) if view["options"] else []
    return public + reports.private_section(view, 8, "both", asked, language=words.language)


@pytest.mark.parametrize("kind", sorted(POSITIONS))
def test_the_reports_at_every_decision_are_in_polish(kind: str) -> None:
    state = POSITIONS[kind]
    polish, english = _report(state, PL), _report(state, EN)
    assert polish != english
    assert english_left(polish, english) == [], polish


@pytest.mark.parametrize("kind", sorted(set(POSITIONS) - {"over"}))
def test_every_decision_prompt_is_in_polish(kind: str) -> None:
    state = POSITIONS[kind]
    phrase = engine.pending_phrase(state)
    pending = engine.pending(state)
    assert phrase is not None and pending is not None
    assert str(phrase) == pending.prompt  # the translatable form says what the view says
    polish = PL.phrase(phrase) + " " + PL(pending.section)
    assert english_left(polish, pending.prompt + " " + pending.section) == [], polish


@pytest.mark.parametrize("verb", sorted(PHRASES))
def test_every_action_in_words_is_in_polish(verb: str) -> None:
    samples = ACTIONS.get(verb) or [
        (POSITIONS["turn"], a) for a in engine.read_action(EXTRA_ACTIONS[verb])
    ]
    for state, action in samples:
        phrase = engine.phrase_action(state, action)
        assert str(phrase) == engine.describe_action(state, action)
        polish, english = PL.phrase(phrase), str(phrase)
        assert english_left(polish, english) == [], polish


# Verbs no random move plays (a standing policy is set apart from the moves).
EXTRA_ACTIONS = {"policy": "policy demand bob 2"}


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_refusal_code_is_explained_in_polish(code: str) -> None:
    (line,) = explained_codes(f"line 2: {code}: whatever the engine says", PL)
    assert line.startswith(f"`{code}`: ")
    assert english_left(line, CODES[code]) == [], line
    assert explained_codes(f"{code}: x", EN) == []  # English readers have the engine's words


def test_every_code_of_the_notation_is_explained() -> None:
    codes = re.findall(
        r"^\| `([a-z0-9-]+)` \| ", (ROOT / "docs" / "notation.md").read_text("utf-8"), re.M
    )
    refusals = [c for c in codes if c not in VERBS_AND_WORDS]
    assert set(refusals) - set(CODES) == set()


VERBS_AND_WORDS = set(PHRASES) | {"waive", "policy"}


@pytest.fixture
def mail_settings(tmp_path: Path) -> Any:
    return settings_for(tmp_path, None, base_url="https://pamir.example")


@pytest.mark.parametrize(
    ("decides", "over", "plays_by"),
    [(True, False, "both"), (False, False, "email"), (False, False, "git"), (False, True, "both")],
)
def test_the_report_mails_own_parts_are_in_polish(
    mail_settings: Any, decides: bool, over: bool, plays_by: str
) -> None:
    def parts(words: Words) -> str:
        how = how_to_reply(mail_settings, "g1", "ala", decides, over, plays_by, words)
        return how + web_pages(mail_settings, "g1", "ala", 3, words)

    polish, english = parts(PL), parts(EN)
    assert english_left(polish, english) == [], polish


@pytest.mark.parametrize("kind", ["over", "turn", "new", "refused", "moved", "plain"])
def test_every_subject_is_in_polish(kind: str) -> None:
    state = POSITIONS["turn"]
    document: dict[str, Any] = {"view": engine.view(state), "last": {"player": "bob"}}
    number = 0 if kind == "new" else 5
    if kind == "refused":
        document["last"]["refused"] = "not-in-hand: ..."
    if kind == "moved":
        document["last"]["actions"] = ["loyalty afghan", "purchase 14", "gift 14 2", "pass"]
    decides, over = kind == "turn", kind == "over"
    polish = report_subject("g1", number, document, decides=decides, over=over, words=PL)
    english = report_subject("g1", number, document, decides=decides, over=over)
    assert english_left(polish, english) == [], polish


def test_a_resignation_that_ends_the_game_is_said_in_polish() -> None:
    """engine.resign starts a log of its own: its phrases go with it, line for line."""
    state = POSITIONS["turn"]
    ended = engine.resign(state, state.name(state.active))
    assert ended.log == [str(said) for said in ended.said] and len(ended.log) == 1
    (said,) = ended.said
    assert english_left(PL.phrase(said), str(said)) == [], PL.phrase(said)


def test_a_refused_pushed_moves_line_gives_its_codes_meaning_in_polish() -> None:
    """The report of a refused pushed move quotes the engine's English; a Polish reader
    gets the code's meaning first, in Polish."""
    reason = "line 1: not-in-hand: card 43 is not in ala's hand [Play, p. 11]"
    phrase = P("move %(number)s by %(player)s was refused: %(reason)s", number=3, player="ala")
    phrase = Phrase(phrase.message, {**phrase.params, "reason": refusal_phrase(reason)})
    assert str(phrase) == f"move 3 by ala was refused: {reason}"
    polish = PL.phrase(phrase)
    assert polish.startswith("ruch 3 gracza ala odrzucono: " + PL(CODES["not-in-hand"]))
    assert polish.endswith(f"(słowami silnika: {reason})")
    assert str(refusal_phrase("no code here")) == "no code here"
