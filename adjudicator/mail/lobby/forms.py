"""The lobby's web form (web/pages.py, `/lobby`), as mail: its fields become the lines of
a `new game` mail, read by the very parser the mail is (`parsing.new_game`), and a
`mailto:` link sends it from the visitor's own mail. The page creates nothing itself: the
mail proves who its creator is as every lobby mail does (its From address, `mail_auth`),
which a form's typed address could not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from adjudicator.mail.lobby import parsing
from adjudicator.mail.lobby.parsing import Unreadable

MOST_FIELD = 4000  # characters of a field read; more is no game of five players


@dataclass(frozen=True)
class Composed:
    """The mail a filled form makes, and the first thing wrong with it (None: none)."""

    text: str
    error: Unreadable | None


def compose(fields: Mapping[str, str]) -> Composed | None:
    """The `new game` mail of the form's fields; None for a form not filled in yet."""
    name = _one_line(fields.get("game", ""))
    if not name:
        return None
    lines = [f"new game {name}"]
    invites = fields.get("invites", "")[:MOST_FIELD].splitlines()
    lines += [f"invite {' '.join(line.split())}" for line in invites if line.strip()]
    hours = _one_line(fields.get("hours", ""))
    optional = {
        "as": _one_line(fields.get("name", "")),
        "language": _one_line(fields.get("language", "")),
        "deadline": hours and hours + "h",
    }
    lines += [f"{key} {value}" for key, value in optional.items() if value]
    lines += [word for word in ("wakhan", "open") if fields.get(word)]
    text = "\n".join(lines) + "\n"
    try:
        parsing.new_game(text.splitlines())
    except Unreadable as error:
        return Composed(text, error)
    return Composed(text, None)


def _one_line(value: str) -> str:
    """A field of one line: its words, one space between, however it was typed."""
    return " ".join(value[:MOST_FIELD].split())


def mailto(address: str, subject: str, body: str) -> str:
    """A `mailto:` link (RFC 6068) that writes `body` to `address`."""
    return f"mailto:{address}?subject={quote(subject)}&body={quote(body)}"
