"""The pages in the visitor's language (docs/i18n.md): their `Accept-Language`, or the
language they chose with the switch at the top of every page (`?lang=pl`, kept in a
cookie). The templates' `{% trans %}` blocks and `_()` go through the same catalogues as
the mail (adjudicator/home/translations.py), with Babel's `Locale` negotiation picking the
language; the public record a page quotes (a committed report) stays in the game's
language. The board is drawn in the visitor's language too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from babel import Locale
from flask import g, request
from markupsafe import Markup

from adjudicator.drawing.board import board_svg
from adjudicator.drawing.cards import court_faces, market_faces, row_label
from adjudicator.games.codes import explained_codes
from adjudicator.games.reports import ID_WORDS, SECTIONS, UNTIL_NEXT_CHECK
from adjudicator.games.wording import in_words
from adjudicator.home.translations import LANGUAGES, N_, SOURCE, Words, phrase_data, phrase_from
from adjudicator.web import rendering
from engine.cards import COURT_CARDS
from engine.rules.words import card_name_term
from engine.view_types import PlayerRecord, View

if TYPE_CHECKING:
    from flask import Flask, Response

COOKIE = "lang"
PARAMETER = "lang"
COOKIE_SECONDS = 365 * 24 * 3600
EVENT, ADJUDICATOR, AND = N_("event"), N_("adjudicator"), N_(" and ")
# The statuses the service answers with an error page, by their code.
STATUSES = {
    400: N_("Bad Request"),
    403: N_("Forbidden"),
    404: N_("Not Found"),
    405: N_("Method Not Allowed"),
    413: N_("Request Entity Too Large"),
    429: N_("Too Many Requests"),
    500: N_("Internal Server Error"),
    503: N_("Service Unavailable"),
}


def chosen() -> str | None:
    """A language the visitor chose: by the switch now, or earlier (the cookie)."""
    for value in (request.args.get(PARAMETER), request.cookies.get(COOKIE)):
        if value in LANGUAGES:
            return value
    return None


def negotiated() -> str:
    """The language of `Accept-Language` the service speaks best (default English)."""
    wanted = [value.replace("-", "_") for value, _ in request.accept_languages]
    found = Locale.negotiate(wanted, list(LANGUAGES), sep="_")
    return str(found.language) if found is not None else SOURCE


def page_words() -> Words:
    """The Words of this request (chosen once per request)."""
    words: Words | None = g.get("words")
    if words is None:
        words = Words(chosen() or negotiated())
        g.words = words
    return words


def _id_word(value: str | None) -> str | None:
    """A coalition or suit id in the visitor's words (English shows the id)."""
    words = page_words()
    if value is None or words.language == SOURCE or value not in ID_WORDS:
        return value
    return words(ID_WORDS[value])


def _region_name(region: str) -> str:
    return page_words()(rendering.region_name(region))


def _border_name(border: str) -> str:
    if page_words().language == SOURCE:
        return rendering.border_name(border)
    return "–".join(_region_name(part) for part in rendering.border_regions(border))


def _names(names: list[str] | None) -> str:
    items = list(names or [])
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + page_words()(AND) + items[-1]


def _counts(values: dict[str, int] | None) -> str:
    found = [f"{_id_word(who)} {n}" for who, n in (values or {}).items() if n]
    return ", ".join(found) or "—"


def _until(until: str) -> str:
    return page_words()(until) if until == UNTIL_NEXT_CHECK else until


def _section(section: str) -> str:
    return page_words()(section) if section in SECTIONS else section


def _card_details(number: int) -> str:
    card = COURT_CARDS.get(number)
    if card is None:
        return page_words()(EVENT)
    return f"{_id_word(card.suit)}, {_region_name(card.region)}"


def _card_name(name: str) -> str:
    """A card's name: in the visitor's words where the Polish rulebook names the card
    (docs/i18n.md#card-names), else as printed."""
    return page_words().said(card_name_term(name))


def _board(view: View) -> Markup:
    """The board drawn as inline SVG, its labels in the visitor's words (not sanitized:
    see `rendering.board_markup`)."""
    return Markup(board_svg(view, page_words()))


def _market_faces(view: View) -> list[list[Markup]]:
    """The market's card faces (escaped by the drawing code), their labels in the
    visitor's words."""
    return [[Markup(face) for face in row] for row in market_faces(view, words=page_words())]


def _court_faces(player: PlayerRecord) -> list[Markup]:
    return [Markup(face) for face in court_faces(player, words=page_words())]


def _row_label(label: str, card: Any) -> Shown:
    """A row's label of a card's page (drawing/cards.py `CardText.rows`), in the visitor's
    words."""
    words = page_words()
    if words.language == SOURCE:
        return Shown(label, SOURCE)
    court = COURT_CARDS.get(int(card.number))
    ability = court.ability.name if court is not None and court.ability is not None else None
    return Shown(row_label(label, words, ability), words.language)


# A refusal's code as a translation quotes it for mail: ``wiersz 1: `not-in-market`: ``.
_QUOTED_CODE = re.compile(r"`([a-z][a-z0-9-]*)`(?=: )")


def plain(said: str) -> str:
    """Words said for a mail, for a page: a page is no Markdown, and the backticks a
    translation puts around a refusal's code would show (other backticks are quoted
    words, a player's among them, and stay)."""
    return _QUOTED_CODE.sub(r"\1", said)


def _refusal_meaning(refusal: str) -> str:
    """What a refusal's code means, in the visitor's words (nothing in English: the
    engine's own words, which the page quotes, say it)."""
    return " ".join(line.replace("`", "") for line in explained_codes(refusal, page_words()))


def _status(error: object) -> str:
    """An error's status name (`Not Found`) in the visitor's words."""
    code, name = getattr(error, "code", None), str(getattr(error, "name", ""))
    return page_words()(STATUSES[code]) if code in STATUSES else name


def _who(author: str) -> str:
    """A move's author: a player's name, or the adjudicator (the service itself)."""
    return page_words()(ADJUDICATOR) if author == "adjudicator" else author


def _in_words(actions: str) -> str:
    words = page_words()
    return in_words(actions) if words.language == SOURCE else in_words(actions, words)


@dataclass(frozen=True)
class Shown:
    """A text a page shows, and the language it is in (`lang` of its element)."""

    text: str
    language: str


def _said(data: object, english: str) -> Shown:
    """What the engine said, kept in state.json as a phrase (`phrases`), in the visitor's
    words; its English, and marked as such, when state.json has no phrase for it (a file
    made before it) or the phrase cannot be read. English readers get the line itself."""
    words = page_words()
    if words.language == SOURCE or data is None:
        return Shown(english, SOURCE)
    try:
        said = phrase_from(data)
        if str(said) != english:  # a phrase that does not say what the record says
            return Shown(english, SOURCE)
        return Shown(plain(words.said(said)), words.language)
    except (ValueError, KeyError, TypeError, RecursionError, MemoryError):  # not a phrase
        return Shown(english, SOURCE)


def _prompt(position: Any) -> Shown:
    """The pending decision's prompt of a game's position, in the visitor's words."""
    phrases = position.phrases or {}
    return _said(phrases.get("prompt"), str(position.view["pending"]["prompt"]))


def _log(position: Any) -> list[Shown]:
    """The last move's log lines of a game's position, in the visitor's words."""
    lines = list((position.last or {}).get("log") or [])
    said = (position.phrases or {}).get("log")
    if not isinstance(said, list) or len(said) != len(lines):
        said = [None] * len(lines)
    return [_said(data, str(line)) for data, line in zip(said, lines, strict=True)]


def _refused(position: Any) -> Shown:
    """The refusal of the last move (a refused pushed move), in the visitor's words."""
    phrases = position.phrases or {}
    return _said(phrases.get("refused"), str((position.last or {}).get("refused")))


def _entry_what(entry: Any) -> Shown:
    """What a history entry of a refused pushed move says (its reason), in the visitor's
    words when its commit keeps the phrase; else the commit's English, marked so."""
    said = getattr(entry, "said", None)
    return _said(None if said is None else phrase_data(said), str(entry.what))


# The page filters that say something in words, in the visitor's language.
FILTERS = {
    "region_name": _region_name,
    "border_name": _border_name,
    "names": _names,
    "counts": _counts,
    "suit_word": _id_word,
    "coalition_word": _id_word,
    "until_word": _until,
    "in_words_here": _in_words,
    "section_word": _section,
    "who_word": _who,
    "status_name": _status,
    "card_details": _card_details,
    "card_name": _card_name,
    "board": _board,
    "market_faces": _market_faces,
    "court_faces": _court_faces,
    "refusal_meaning": _refusal_meaning,
    "prompt_here": _prompt,
    "log_here": _log,
    "refused_here": _refused,
    "entry_what": _entry_what,
    "row_label": _row_label,
}


def use_language(language: str) -> Words:
    """Speak `language` on this page unless the visitor chose one with the switch (a
    player's private page speaks the player's language, whatever the browser prefers)."""
    words = Words(chosen() or (language if language in LANGUAGES else SOURCE))
    g.words = words
    return words


def install(app: Flask) -> None:
    """Give the app's templates `{% trans %}` and `_()` in the visitor's language, the
    language switch's links, and remember a choice made with the switch."""
    app.jinja_env.add_extension("jinja2.ext.i18n")
    # Jinja's new-style gettext fills the parameters in (escaped) itself: these only
    # translate.
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda message: page_words().translations.gettext(message),
        ngettext=lambda one, many, n: page_words().translations.ngettext(one, many, n),
        newstyle=True,
    )

    app.jinja_env.filters.update(FILTERS)

    @app.context_processor
    def languages() -> dict[str, object]:
        return {"language": page_words().language, "languages": LANGUAGES}

    @app.after_request
    def remember(response: Response) -> Response:
        choice = request.args.get(PARAMETER)
        if choice in LANGUAGES:
            response.set_cookie(COOKIE, choice, max_age=COOKIE_SECONDS, samesite="Lax")
        response.vary.add("Accept-Language")
        response.vary.add("Cookie")
        return response
