"""Escaped SVG text, written by hand: a few element helpers and nothing else.

Every text and attribute value goes through `xml.sax.saxutils`, so a player's name such as
`<script>` or `a&b` stays text. Attributes are written in the order given, numbers with at
most one decimal, so the same drawing always gives the same bytes.
"""

from __future__ import annotations

from xml.sax.saxutils import escape as escape
from xml.sax.saxutils import quoteattr

Attr = str | int | float


def number(value: float) -> str:
    """A coordinate: an integer when it is one, else one decimal (stable bytes, short)."""
    rounded = round(float(value), 1)
    return str(int(rounded)) if rounded.is_integer() else f"{rounded:.1f}"


def attrs(values: dict[str, Attr | None]) -> str:
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        text = number(value) if isinstance(value, int | float) else value
        parts.append(f" {key}={quoteattr(text)}")
    return "".join(parts)


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
