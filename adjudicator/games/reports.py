"""Markdown turn reports, rendered from views only (templates/report.md.j2, private.md.j2).

The public report is committed as `reports/NNNN.md`; each player's private section (their
hand and their legal actions) is rendered for them alone and never committed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from typing import TypeVar

import jinja2

from adjudicator.drawing.labels import NAMES
from adjudicator.games.choices import Choice, grouped, heading
from adjudicator.home.translations import N_, SOURCE, Words
from engine.cards import BORDERS, card_name
from engine.followups import FollowUp
from engine.phrases import Phrase
from engine.view_types import EffectRecord, PendingRecord, PlayerView, PublicView


def _card(number: int | None) -> str:
    return "—" if number is None else f"{number} {card_name(number)}"


# The ids a report shows in its tables, in words. English shows the ids themselves (the
# reports' canonical text); another language shows the board drawing's names for them.
ID_WORDS = NAMES
ROWS = (N_("top"), N_("bottom"))
# The rulebook sections that decisions and refusals cite (engine/rules/*.py `section`),
# as the Polish rulebook names them; the engine's words are the message ids.
SECTIONS = (
    N_("Battle, p. 14"),
    N_("Betray, p. 14"),
    N_("Build, p. 13"),
    N_("Card Precedence and Special Abilities, p. 8"),
    N_("Cleanup, p. 9"),
    N_("Component Limits, p. 8"),
    N_("Discarding a Card in Your Court, p. 8"),
    N_("Game End, p. 9"),
    N_("Hostage Actions, p. 12"),
    N_("Move, p. 14"),
    N_("Play, p. 11"),
    N_("Playing with Wakhan, p. 16"),
    N_("Purchase, p. 10"),
    N_("Sequence of Play, p. 9"),
    N_("Setup, p. 4"),
    N_("Tax, p. 13"),
)
UNTIL_NEXT_CHECK = N_("the next Dominance Check has resolved")
# The board's picture in the committed report (templates/report.md.j2): a relative link to
# the repository's board.svg, which means something only beside the repository's files.
BOARD_IMAGE = re.compile(r"^!\[[^\]\n]*\]\(\.\./board\.svg\)\n?", re.MULTILINE)


def without_board_image(report: str, instead: str = "") -> str:
    """The report with its picture of the board (`![...](../board.svg)`) replaced by the
    line `instead` (or by nothing): a page that draws the board itself, or a mail, which
    carries it as a picture of its own, shows no link to a file beside it."""
    return BOARD_IMAGE.sub(lambda _: f"{instead}\n" if instead else "", report)


def _effect(effect: EffectRecord, words: Words) -> EffectRecord:
    until = str(effect["until"])
    return {**effect, "until": words(until)} if until == UNTIL_NEXT_CHECK else effect


AnyView = TypeVar("AnyView", PublicView, PlayerView)


def translated_view(view: AnyView, prompt: Phrase | None, words: Words) -> AnyView:
    """The view with its pending decision's prompt and section, and its events' duration,
    in `words`' language (the view itself keeps the engine's English: state.json)."""
    pending: PendingRecord | None = view["pending"]
    if pending is not None:
        section = pending["section"]
        pending = {
            **pending,
            "prompt": pending["prompt"] if prompt is None else words.phrase(prompt),
            "section": words(section) if section in SECTIONS else section,
        }
    effects = [_effect(e, words) for e in view["effects"]]
    return {**view, "pending": pending, "effects": effects}


class _Filters:
    """The report's filters in one language."""

    def __init__(self, words: Words) -> None:
        self.words = words

    def id_word(self, value: str | None) -> str | None:
        if value is None or self.words.language == SOURCE or value not in ID_WORDS:
            return value
        return self.words(ID_WORDS[value])

    def border(self, border: str) -> str:
        if self.words.language == SOURCE or border not in BORDERS:
            return border
        first, second = BORDERS[border].regions
        return f"{self.id_word(first)}–{self.id_word(second)}"

    def counts(self, counts: dict[str, int]) -> str:
        return ", ".join(f"{self.id_word(who)} {n}" for who, n in counts.items()) or "—"

    def row_name(self, index: int) -> str:
        return self.words(ROWS[index])


@cache
def environment(language: str = SOURCE) -> jinja2.Environment:
    """The templates' environment in one language (`{% trans %}` through its catalogue)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pamir_templates", ""),
        autoescape=False,  # Markdown, not HTML; the HTML is rendered from it later
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        auto_reload=False,  # installed templates do not change: no stat at every render
        extensions=["jinja2.ext.i18n"],
    )
    words = Words(language)
    env.install_gettext_translations(words.translations, newstyle=True)  # type: ignore[attr-defined]
    filters = _Filters(words)
    env.filters["card"] = _card
    env.filters["counts"] = filters.counts
    env.filters["row_name"] = filters.row_name
    env.filters["region"] = filters.id_word
    env.filters["coalition"] = filters.id_word
    env.filters["suit"] = filters.id_word
    env.filters["border"] = filters.border
    return env


def public_report(
    game_id: str,
    title: str,
    view: PublicView,
    happened: list[str],
    deadline: str | None,
    language: str = SOURCE,
) -> str:
    """The report every player (and the repository, in the game's language) sees."""
    text = (
        environment(language)
        .get_template("report.md.j2")
        .render(game_id=game_id, title=title, view=view, happened=happened, deadline=deadline)
    )
    return _tidy(text)


def private_section(
    view: PlayerView,
    next_number: int,
    plays_by: str = "both",
    follow_ups: Sequence[FollowUp] = (),
    language: str = SOURCE,
    notes: Sequence[Phrase] = (),
    choices: Sequence[Choice] = (),
) -> str:
    """One player's own section, in `language`: rendered from their view (`view["viewer"]`),
    with the follow-ups their legal actions raise (`engine.follow_ups`). How to push a move
    is said only to a player who plays by Git (`plays_by` of game.toml). The legal actions
    are listed by group, each in words, when `choices` describes them
    (adjudicator/games/choices.py); else in the notation alone. `notes` are for this
    player alone (their continuation kept, or dropped: games/continuations.py)."""
    seat = next(i for i, p in enumerate(view["players"]) if p["name"] == view["viewer"])
    words = Words(language)
    groups = [
        (verb, words.said(heading(verb)), [_listed(choice, words) for choice in members])
        for verb, members in grouped(choices)
    ]
    text = (
        environment(language)
        .get_template("private.md.j2")
        .render(
            view=view,
            seat=seat,
            next_number=next_number,
            by_git=plays_by != "email",
            follow_ups=follow_ups,
            groups=groups,
        )
    )
    if notes:
        text += "\n\n" + "\n\n".join(words.phrase(note) for note in notes) + "\n"
    return _tidy(text)


def _listed(choice: Choice, words: Words) -> dict[str, object]:
    """A choice as the private section lists it, in the reader's words."""
    return {
        "line": choice.line,
        "label": words.phrase(choice.label),
        "warnings": [words.phrase(warning) for warning in choice.warnings],
    }


def _tidy(text: str) -> str:
    """At most one blank line in a row, one newline at the end."""
    lines: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip() + "\n"
