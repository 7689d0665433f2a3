"""Escaped SVG text, written by hand: a few element helpers and nothing else.

Every text and attribute value is escaped (`escape`, `quoted`), so a player's name such as
`<script>` or `a&b` stays text. Attributes are written in the order given, in double
quotes, numbers with at most one decimal, so the same drawing always gives the same bytes.
The escaping is a translation table rather than `xml.sax.saxutils`, whose per-call
replacing was half the time of a drawing (one is made at every commit, and by `pamir
verify` for every commit).
"""

from __future__ import annotations

Attr = str | int | float

_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# In an attribute also the quote, and the white space a parser would fold into spaces.
_ATTRIBUTE = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\n": "&#10;",
        "\r": "&#13;",
        "\t": "&#9;",
    }
)


def escape(content: str) -> str:
    """Text content with &, < and > escaped."""
    return content.translate(_TEXT)


def quoted(value: str) -> str:
    """An attribute value, escaped, in double quotes."""
    return '"' + value.translate(_ATTRIBUTE) + '"'


def number(value: float) -> str:
    """A coordinate: an integer when it is one, else one decimal (stable bytes, short)."""
    if type(value) is int:
        return str(value)
    rounded = round(float(value), 1)
    return str(int(rounded)) if rounded.is_integer() else f"{rounded:.1f}"


# Attributes already written, by value: a board repeats the same colours, classes and
# coordinates thousands of times, and `pamir verify` draws one board per commit. Bounded,
# since names come from players.
_WRITTEN: dict[Attr, str] = {}
_WRITTEN_LIMIT = 8192


def _attribute(value: Attr) -> str:
    """A value written as `attrs` writes it. Numbers equal as keys (1, 1.0, True) are
    written alike by `number`, so sharing their entry changes no byte."""
    written = _WRITTEN.get(value)
    if written is None:
        written = quoted(number(value) if isinstance(value, int | float) else value)
        if len(_WRITTEN) < _WRITTEN_LIMIT:
            _WRITTEN[value] = written
    return written


def attrs(values: dict[str, Attr | None]) -> str:
    return "".join(
        f" {key}={_attribute(value)}" for key, value in values.items() if value is not None
    )


def element(tag: str, values: dict[str, Attr | None] | None = None, *children: str) -> str:
    """`<tag ...>children</tag>`; `children` are markup already made by these helpers."""
    opened = f"<{tag}{attrs(values or {})}"
    if not children:
        return opened + "/>"
    return opened + ">" + "".join(children) + f"</{tag}>"


def text(x: float, y: float, content: str, values: dict[str, Attr | None] | None = None) -> str:
    """A `<text>` with escaped content."""
    return element("text", {"x": x, "y": y, **(values or {})}, escape(content))


def title(content: str) -> str:
    """A `<title>`: what a screen reader says, and the tooltip of the shape around it."""
    return f"<title>{escape(content)}</title>"


def group(values: dict[str, Attr | None], *children: str) -> str:
    return element("g", values, *children)


def shorten(name: str, limit: int) -> str:
    """A name cut to `limit` characters for the drawing (the titles keep it whole)."""
    return name if len(name) <= limit else name[: limit - 1] + "…"
