"""The languages players read: gettext catalogues managed with Babel (docs/i18n.md).

English is the source language: every message is written in English in the code and the
templates, marked for extraction (`words(...)` and `N_()` here and in the adjudicator, the
engine's `P()`, `PN()` and `T()`, `{% trans %}` and `_()` in templates; `make messages`
names them to Babel), and translated in `adjudicator/locale/LANG/LC_MESSAGES/messages.po`.
The compiled `messages.mo` is built by `make catalogues` (part of `make test`) and by the
wheel's build; a checkout whose `.mo` is missing or older than its `.po` reads the `.po`
itself, so a fresh clone speaks every language before anything is compiled.

Parameters are named (`%(card)s`), so a translation may put them in any order. Words the
engine produces (`engine.phrases.Phrase`) are rendered here, through the same catalogue.
"""

from __future__ import annotations

import gettext
import io
import re
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_date, format_time
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from engine.phrases import Phrase, Term
from engine.rules.words import ARTICLE_ID_TERMS, ID_TERMS

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "messages"
SOURCE = "en"  # the language the messages are written in
# The languages a player may choose, by their code and in their own words.
LANGUAGES: dict[str, str] = {"en": "English", "pl": "polski"}


def N_(message: str) -> str:
    """Mark a message for extraction where it is defined; it is translated where used."""
    return message


class UnknownLanguage(ValueError):
    """A language code the service has no catalogue for."""


def check_language(code: str) -> str:
    """The code itself when the service speaks it; raise UnknownLanguage otherwise."""
    if code not in LANGUAGES:
        known = ", ".join(sorted(LANGUAGES))
        raise UnknownLanguage(f"unknown language {code!r}: one of {known}")
    return code


def catalogue_paths(language: str) -> tuple[Path, Path]:
    """The `.po` and `.mo` files of a language."""
    folder = LOCALE_DIR / language / "LC_MESSAGES"
    return folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"


@lru_cache(maxsize=8)
def catalogue(language: str) -> gettext.NullTranslations:
    """The translations of a language (English: the messages as written)."""
    if check_language(language) == SOURCE:
        return gettext.NullTranslations()
    po, mo = catalogue_paths(language)
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as handle:
            return Translations(handle, domain=DOMAIN)
    with po.open("rb") as handle:
        compiled = io.BytesIO()
        write_mo(compiled, read_po(handle, locale=language, domain=DOMAIN))
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


@dataclass(frozen=True)
class Words:
    """Everything a reader sees, in their language: messages, phrases of the engine, plural
    forms and dates. `Words("pl")("Your turn")` is "Twoja kolej"."""

    language: str = SOURCE

    @property
    def translations(self) -> gettext.NullTranslations:
        return catalogue(self.language)

    def __call__(self, message: str, **params: object) -> str:
        text = self.translations.gettext(message)
        return text % params if params else text

    def plural(self, singular: str, plural: str, n: int, **params: object) -> str:
        """The form of `n` (Polish has three: 1 rupia, 2 rupie, 5 rupii); `%(n)s` is n."""
        return self.translations.ngettext(singular, plural, n) % {"n": n, **params}

    def phrase(self, phrase: Phrase) -> str:
        """Words the engine produced (a message id and its parameters), translated."""
        params = {name: self._value(value) for name, value in phrase.params.items()}
        if phrase.plural is not None:
            return self.plural(phrase.message, phrase.plural, phrase.n, **params)
        return self(phrase.message, **params)

    def said(self, value: Phrase | Term | str | int) -> str:
        """Any value of a phrase (a phrase, a term, a plain value) in the reader's words."""
        return str(self._value(value))

    def _value(self, value: object) -> object:
        if isinstance(value, Phrase):
            return self.phrase(value)
        if isinstance(value, Term):
            return self(value.message or value.text) if value.translated else value.text
        return value

    def datetime(self, when: datetime, timezone: ZoneInfo | str) -> str:
        """`when` in the reader's words, at the game's time zone: '25 listopada 2026 21:05
        CET' (the zone's abbreviation, as the English reports give it)."""
        zone = ZoneInfo(timezone) if isinstance(timezone, str) else timezone
        locale = Locale.parse(self.language)
        local = when.astimezone(zone)
        day = format_date(local, "long", locale=locale)
        hour = format_time(local, "short", tzinfo=zone, locale=locale)
        return f"{day} {hour} {local.tzname()}"


def words_for(language: str | None) -> Words:
    """The Words of a language code (None, or one not spoken: the source language)."""
    return Words(language if language in LANGUAGES else SOURCE)


# -- phrases kept as data (state.json's `phrases`, docs/game-repository.md) -------------------
# A phrase is kept as {"message", "params", and "plural" and "n" when it counts}; a term
# with a translation as {"term", and "message" when it is not the term's own text}; a plain
# value (a name, a number, a text shown as it is) as itself.


def phrase_data(value: Phrase | Term | str | int) -> Any:
    """A phrase (or any value of one) as JSON data: `phrase_from` reads it back."""
    if isinstance(value, Phrase):
        data: dict[str, Any] = {
            "message": value.message,
            "params": {name: phrase_data(v) for name, v in value.params.items()},
        }
        if value.plural is not None:
            data |= {"plural": value.plural, "n": value.n}
        return data
    if isinstance(value, Term):
        if not value.translated:
            return value.text
        return {"term": value.text} | ({"message": value.message} if value.message else {})
    return value


# Phrases are read back from files a player may have written (a forged commit on a forge):
# what `phrase_from` accepts is bounded (nesting, values, and the length of what it says,
# all parameters in: `"%(a)s" * 4000` over itself would say 320 GB), its messages are
# plain catalogue messages (`%(name)s` placeholders only: no width that could make `%`
# build a huge string), and a term that is translated by another message than its own
# text is one of the engine's ids (`kabul`, said as "Kabul"): any other pair could show a
# reader of another language words the English does not say.
PHRASE_DEPTH = 8
PHRASE_NODES = 500
PHRASE_TEXT = 20_000
PHRASE_SAID = 50_000  # characters a phrase read back may say in English
_PLACEHOLDERS = re.compile(r"%\((\w+)\)s|%%")
_ID_TERMS = {(t.text, t.message) for t in (*ID_TERMS.values(), *ARTICLE_ID_TERMS.values())}


def phrase_from(data: Any) -> Phrase | Term | str | int:
    """What `phrase_data` made, back; ValueError for anything else."""
    return _phrase_from(data, 0, [PHRASE_NODES])[0]


def _phrase_from(data: Any, depth: int, budget: list[int]) -> tuple[Phrase | Term | str | int, int]:
    """The value and the length of what it says (at most: a message's placeholders each
    say their parameter)."""
    budget[0] -= 1
    if depth > PHRASE_DEPTH or budget[0] < 0:
        raise ValueError("a phrase nested too deep or too large")
    if isinstance(data, int) and not isinstance(data, bool):
        return data, len(str(data))
    if isinstance(data, str):
        if len(data) > PHRASE_TEXT:
            raise ValueError("a phrase's value too long")
        return data, len(data)
    if isinstance(data, dict) and isinstance(data.get("term"), str):
        text, message = data["term"], data.get("message")
        if len(text) > PHRASE_TEXT:
            raise ValueError("a term too long")
        if message is None:
            return Term(text), len(text)
        if (text, message) not in _ID_TERMS:
            raise ValueError(f"not a term of the engine: {text!r} said as {message!r}")
        return Term(text, message=message), len(text) + len(message)
    if (
        isinstance(data, dict)
        and isinstance(data.get("message"), str)
        and isinstance(data.get("params", {}), dict)
    ):
        read = {
            _name(k): _phrase_from(v, depth + 1, budget) for k, v in data.get("params", {}).items()
        }
        plural, n = data.get("plural"), data.get("n", 0)
        if plural is not None and not (
            isinstance(plural, str) and isinstance(n, int) and not isinstance(n, bool)
        ):
            raise ValueError(f"not a counted phrase: {data!r}")
        lengths = {name: length for name, (_, length) in read.items()}
        lengths.setdefault("n", len(str(n)))
        messages = [_message(data["message"]), *([] if plural is None else [_message(plural)])]
        said = max(_said_length(message, lengths) for message in messages)
        if said > PHRASE_SAID:
            raise ValueError("a phrase that says too much")
        params = {name: value for name, (value, _) in read.items()}
        return Phrase(messages[0], params, None if plural is None else messages[1], n), said
    raise ValueError(f"not a phrase: {data!r}")


def _said_length(message: str, lengths: dict[str, int]) -> int:
    return len(message) + sum(
        lengths.get(found.group(1), 0)
        for found in _PLACEHOLDERS.finditer(message)
        if found.group(1)
    )


def _message(text: str) -> str:
    if len(text) > PHRASE_TEXT or "%" in _PLACEHOLDERS.sub("", text):
        raise ValueError(f"not a message: {text[:80]!r}")
    return text


def _name(key: object) -> str:
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"not a parameter's name: {key!r}")
    return key
