"""Markdown to HTML that is safe to show: the one renderer of the web pages and the mail.

Reports are Markdown written by the adjudicator, but some of their text comes from players
(a move's `# note:`, a refused move's reason, a rollback's reason). So the HTML goes
through three layers, in order:

1. Markdown renders with raw HTML disabled: `<div>` in a note is text, never markup.
2. A tree pass shifts headings under the page's own, turns images into their alt text
   (no remote image, so no tracking pixel in mail) and labels tables for screen readers.
3. The rendered HTML goes through nh3 (the Ammonia sanitizer) with an allow-list of tags,
   attributes and URL schemes. This runs on the final HTML, after entities are decoded, so
   `JaVaScRiPt&#58;alert(1)` is seen as the `javascript:` link a browser would follow.
   Links keep only http, https, mailto and relative targets.

Before the sanitizer, every link that leaves the service shows its address, and only https
and mailto addresses stay links (`adjudicator.games.links`): the links come from players.
"""

from __future__ import annotations

import re
import threading
import xml.etree.ElementTree as ET

import markdown
import nh3
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from adjudicator.games.links import link_addresses, show_addresses

SAFE_SCHEMES = ("", "http", "https", "mailto")
CONTROL = re.compile(r"[\x00-\x20\x7f]+")
HEADING = re.compile(r"^h([1-6])$")
EXTENSIONS = ["tables", "fenced_code"]

# What Markdown (with tables and fenced code) produces, and no more.
TAGS = {
    *(f"h{n}" for n in range(1, 7)),
    *("p", "br", "hr", "blockquote", "pre", "code", "em", "strong", "b", "i", "del"),
    *("ul", "ol", "li", "dl", "dt", "dd", "a", "span", "sub", "sup"),
    *("table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td"),
}
ATTRIBUTES = {"a": {"href"}, "ol": {"start"}}  # no title: a tooltip may claim anything
ATTRIBUTE_VALUES = {"th": {"scope": {"col", "row"}}}
CLASSES = {"caption": {"visually-hidden"}}
URL_SCHEMES = {"http", "https", "mailto"}


def is_safe_url(url: str) -> bool:
    """A link target that cannot run script: relative, http(s) or mailto. (A first check on
    the Markdown tree; the sanitizer decides on the final HTML.)"""
    cleaned = CONTROL.sub("", url)  # browsers ignore these inside a scheme
    scheme, sep, _ = cleaned.partition(":")
    if not sep or "/" in scheme or "?" in scheme or "#" in scheme:
        return True  # no scheme at all: a relative link
    return scheme.lower() in SAFE_SCHEMES


def sanitize(html: str) -> str:
    """HTML reduced to the allow-list: no script, no style, no images, no event handlers,
    links only to http, https, mailto or relative targets."""
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        tag_attribute_values=ATTRIBUTE_VALUES,
        allowed_classes=CLASSES,
        url_schemes=URL_SCHEMES,
        link_rel=None,  # no target=_blank is allowed, and Referrer-Policy covers the rest
        strip_comments=True,
    )


def markdown_html(
    text: str, shift: int = 0, *, label_tables: bool = True, autolink: bool = False
) -> str:
    """Markdown as sanitized HTML, its headings `shift` levels lower; `label_tables` adds
    header scopes and captions (the pages' screen-reader aids; mail keeps plain tables);
    `autolink` makes the addresses written out in the text links (mail, where the text
    names pages and reply addresses), by the same rules as every link."""
    return sanitize(_converter(shift, label_tables, autolink).convert(text))


_converters = threading.local()  # a Markdown instance holds the state of one conversion


def _converter(shift: int, label_tables: bool, autolink: bool = False) -> markdown.Markdown:
    """This thread's converter for these options, reset for a new text. Making one (its
    processors, its extensions) cost more than a short conversion: a report mail renders
    a few blocks, and a game's page every report of the game."""
    made: dict[tuple[int, bool, bool], markdown.Markdown] | None = getattr(
        _converters, "made", None
    )
    if made is None:
        made = _converters.made = {}
    key = (shift, label_tables, autolink)
    converter = made.get(key)
    if converter is None:
        tidy = _TidyExtension(shift, label_tables, autolink)
        converter = made[key] = markdown.Markdown(extensions=[*EXTENSIONS, tidy])
    else:
        converter.reset()  # what the last text left (stashed HTML, references) goes
    return converter


class _Tidy(Treeprocessor):
    """Shift headings under the page's own, defuse links and images, show where links
    go, label tables."""

    def __init__(
        self, md: markdown.Markdown, shift: int, label_tables: bool, autolink: bool
    ) -> None:
        super().__init__(md)
        self.shift = shift
        self.label_tables = label_tables
        self.autolink = autolink

    def run(self, root: ET.Element) -> None:
        for element in root.iter():
            if match := HEADING.match(element.tag):
                element.tag = f"h{min(6, int(match.group(1)) + self.shift)}"
            elif element.tag == "a" and not is_safe_url(element.get("href", "")):
                element.attrib.pop("href", None)
            elif element.tag == "img":
                alt = element.get("alt", "")
                element.attrib.clear()
                element.tag, element.text = "span", alt
        if self.autolink:
            link_addresses(root)
        show_addresses(root)  # after unsafe targets lost their href above
        if self.label_tables:
            self._label_tables(root)

    def _label_tables(self, root: ET.Element) -> None:
        previous: ET.Element | None = None
        for element in root:
            if element.tag == "table":
                for cell in element.iterfind("thead/tr/th"):
                    cell.set("scope", "col")
                for row in element.iterfind("tbody/tr"):
                    if len(row) and row[0].tag == "td":
                        row[0].tag = "th"
                        row[0].set("scope", "row")
                if previous is not None and HEADING.match(previous.tag):
                    caption = ET.Element("caption", {"class": "visually-hidden"})
                    caption.text = "".join(previous.itertext())
                    element.insert(0, caption)
            previous = element


class _TidyExtension(Extension):
    def __init__(self, shift: int, label_tables: bool, autolink: bool) -> None:
        super().__init__()
        self.shift = shift
        self.label_tables = label_tables
        self.autolink = autolink

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        tidy = _Tidy(md, self.shift, self.label_tables, self.autolink)
        md.treeprocessors.register(tidy, "pamir-tidy", 0)
