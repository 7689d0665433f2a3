"""How a mail's HTML looks: styles inline for every client, a dark mode for those that
honour one.

Many mail clients drop a message's `<style>` (or keep only parts of it), so what a mail
needs to read well on a phone is written on each element: a readable size, tables that
scroll sideways rather than squeeze, framed cells. Colours are the
exception: an inline colour would beat the dark mode, so text and backgrounds stay the
client's own, borders and shades are greys that read on light and dark alike, and only the
`<style>` (with `@media (prefers-color-scheme: dark)`) sets colours. The HTML styled is
what the sanitizer let through (adjudicator/games/safehtml.py), plus the service's own
card faces: the tags matched here carry no style of their own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

FONT = "-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif"
MONO = "ui-monospace,Menlo,Consolas,monospace"
LINE = "1px solid rgba(128,128,128,.45)"
SHADE = "rgba(128,128,128,.14)"

# The style of each block, written on the element. What stands inside a line (code, links,
# list items) is styled by the `<style>` alone: a player's note may hold thousands of them,
# and the mail's size budget (adjudicator/mail/cuts.py) counts a few bytes for each.
INLINE: dict[str, str] = {
    "h1": "font-size:1.35em;margin:.8em 0 .4em;line-height:1.25",
    "h2": "font-size:1.2em;margin:1.1em 0 .4em;line-height:1.25;"
    f"border-bottom:{LINE};padding-bottom:.15em",
    "h3": "font-size:1.05em;margin:1em 0 .3em",
    "h4": "font-size:1em;margin:.9em 0 .3em",
    "p": "margin:.5em 0",
    "ul": "margin:.4em 0;padding-left:1.3em",
    "ol": "margin:.4em 0;padding-left:1.5em",
    "table": "border-collapse:collapse;margin:.5em 0;font-size:.92em;min-width:60%",
    "th": f"border:{LINE};padding:4px 8px;text-align:left;background:{SHADE};white-space:nowrap",
    "td": f"border:{LINE};padding:4px 8px;vertical-align:top",
    "pre": f"font-family:{MONO};font-size:.9em;background:{SHADE};padding:8px;"
    "border-radius:4px;overflow-x:auto;white-space:pre-wrap",
    "blockquote": f"margin:.5em 0;padding:0 .8em;border-left:3px solid {SHADE}",
    "hr": f"border:0;border-top:{LINE};margin:1em 0",
}
BODY = f"margin:0;padding:12px;font-family:{FONT};font-size:16px;line-height:1.45"
WRAPPER = "max-width:42em;margin:0 auto"
SCROLLER = "overflow-x:auto;-webkit-overflow-scrolling:touch"

# For clients that keep a `<style>`: what stands inside a line, the card faces, zebra rows,
# and the colours of both schemes (the dark ones `!important`, since a client may have set
# its own).
STYLE = (
    "table{border-collapse:collapse}li{margin:.2em 0}"
    f"code{{font-family:{MONO};font-size:.92em;background:{SHADE};padding:0 .25em;"
    "border-radius:3px}"
    "a{text-decoration:underline;word-break:break-all}"
    "tr:nth-child(even) td{background:rgba(128,128,128,.07)}"
    ".card{border:1px solid #999;border-radius:6px;padding:2px 10px;margin:6px 0;"
    "max-width:36em}.card p{margin:4px 0}.card-name{font-weight:bold}"
    "a{color:#0b57d0}"
    "@media (prefers-color-scheme: dark){"
    "body,.mail{background:#121212 !important;color:#e6e6e6 !important}"
    "a{color:#8ab4f8 !important}"
    ".card{border-color:#666 !important}"
    "}"
)

TAGS = "|".join(sorted(INLINE, key=len, reverse=True))  # the longest first: `h1` before `hr`
START_TAG = re.compile(rf"<({TAGS})(?=[\s>/])")
TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)


def styled(body: str) -> str:
    """`body` (sanitized HTML) with each known tag's style on it, its tables in a box that
    scrolls sideways on a narrow screen."""
    inline = START_TAG.sub(
        lambda match: f'<{match.group(1)} style="{INLINE[match.group(1)]}"', body
    )
    return TABLE.sub(lambda match: f'<div style="{SCROLLER}">{match.group(0)}</div>', inline)


def page(body: str) -> str:
    """A whole mail's HTML: the head for phones and both colour schemes, `body` styled."""
    return _page(styled(body))


def page_of(parts: Sequence[str]) -> str:
    """`page("\\n".join(parts))`, each part styled once per distinct text: a report mail's
    HTML is the report all readers of its language share, then the player's own parts, and
    it is made two or three times a mail. Styled part by part it is the same as styled
    whole, since each part is HTML made whole (a tag starts and each table ends within the
    part it begins in)."""
    return _page("\n".join(_styled_part(part) for part in parts))


@lru_cache(maxsize=64)
def _styled_part(part: str) -> str:
    return styled(part)


def _page(body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        '<meta name="supported-color-schemes" content="light dark">\n'
        f"<style>{STYLE}</style></head>\n"
        f'<body class="mail" style="{BODY}">\n<div style="{WRAPPER}">\n{body}\n</div>\n'
        "</body></html>\n"
    )
