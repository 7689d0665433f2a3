"""Links in what players wrote show where they go: press and notes, in mail and on pages.

The service writes no Markdown link of its own: every `<a>` that Markdown makes comes from
a player's text (a note, press, a reason), rendered for the other players. A link whose
text is not its address is the oldest phishing trick (`[your private page](https://...)`),
so, in the rendered tree (before the sanitizer):

- a link whose text is its address stays, its address as its text;
- any other link loses its link: its text stays as text, followed by its address in
  parentheses, which is the link;
- only `https` and `mailto` addresses are links: an `http` address would travel unencrypted,
  to be read or changed on the way, and an address with no scheme (`//host`, which a page
  would open on another site), with a user name (`https://bank.example@evil.example`) or a
  host that cannot be written in ASCII is shown as text only;
- a host in another script is shown as its ASCII form (`xn--...`), so that a look-alike of
  a known name does not pass for it;
- a relative link (a page of the service itself) stays as it is.

In mail, an address written out in the text (`https://...`, or an email address) becomes
such a link too (`link_addresses`), and so goes through the same rules.

docs/email.md states the rule for players.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit, urlunsplit

CONTROL = re.compile(r"[\x00-\x20\x7f]+")  # what browsers ignore inside an address
# An address written out in text: a URL up to a space or a bracket, less the punctuation
# that ends a sentence after it; or an email address.
WRITTEN = re.compile(
    r"(?P<url>https?://[^\s<>()\[\]\"'`]*[^\s<>()\[\]\"'`.,;:!?])"
    r"|(?P<email>[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)"
)
NOT_LINKED = {"a", "code", "pre"}  # an address in code is notation; a link is one already


def link_addresses(root: ET.Element) -> None:
    """Make each address written out in the text under `root` a link (email addresses
    `mailto:`), to be shown by the rules above; none inside a link or code."""
    if root.tag in NOT_LINKED:
        return
    children = list(root)
    for child in children:
        link_addresses(child)  # first: the links made below are not walked again
    _link_text(root, children)


def _link_text(element: ET.Element, children: list[ET.Element]) -> None:
    """Links for the addresses in `element`'s own text and in the tails of its children."""
    made = _split(element.text or "")
    element.text = made[0] if isinstance(made[0], str) else ""
    at = 0
    for piece in made[1:]:
        if isinstance(piece, ET.Element):
            element.insert(at, piece)
            at += 1
    for child in children:
        at = list(element).index(child) + 1
        made = _split(child.tail or "")
        child.tail = made[0] if isinstance(made[0], str) else ""
        for piece in made[1:]:
            if isinstance(piece, ET.Element):
                element.insert(at, piece)
                at += 1


def _split(text: str) -> list[str | ET.Element]:
    """`text` as its first plain run, then a link element for each address, each carrying
    the plain text after it as its tail."""
    pieces: list[str | ET.Element] = []
    last = 0
    current: ET.Element | None = None
    for match in WRITTEN.finditer(text):
        before = text[last : match.start()]
        if current is None:
            pieces.append(before)
        else:
            current.tail = before
        address = match.group(0)
        href = address if match.group("url") else f"mailto:{address}"
        current = ET.Element("a", {"href": href})
        current.text = address
        pieces.append(current)
        last = match.end()
    if current is None:
        return [text]
    current.tail = text[last:]
    return pieces


def show_addresses(root: ET.Element) -> None:
    """Make every link under `root` show its address, by the rules above."""
    parents = {child: parent for parent in root.iter() for child in parent}
    for link in [element for element in root.iter("a") if element.get("href") is not None]:
        target = _target(str(link.get("href")))
        if target is not None:
            _show(parents[link], link, *target)


def _target(href: str) -> tuple[str, str | None] | None:
    """How a link's address is shown, and where it may still link to (None: nowhere); None
    for a relative link. Browsers read `\\` as `/`: `/\\host` is another site too."""
    cleaned = CONTROL.sub("", href).replace("\\", "/")
    parts = urlsplit(cleaned)
    scheme = parts.scheme.lower()
    if not scheme and not cleaned.startswith("//"):
        return None
    if scheme == "mailto":
        address = cleaned[len("mailto:") :]
        return address, f"mailto:{address}"
    if scheme not in ("http", "https") or parts.username is not None or not parts.hostname:
        return cleaned, None
    try:
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError:
        return cleaned, None
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc = f"{netloc}:{parts.port}"
    address = urlunsplit((scheme, netloc, parts.path, parts.query, parts.fragment))
    return address, address if scheme == "https" else None


def _same(text: str, address: str, href: str) -> bool:
    """Whether a link's text is its address (written with or without its scheme)."""
    said = text.strip().rstrip("/").casefold()
    candidates = {address, href, address.partition("://")[2]}
    return said in {c.rstrip("/").casefold() for c in candidates if c}


def _show(parent: ET.Element, link: ET.Element, address: str, target: str | None) -> None:
    text = "".join(link.itertext())
    href = str(link.get("href"))
    tail = link.tail or ""
    link.attrib.clear()  # the title too: a tooltip may claim anything
    if _same(text, address, href):
        for child in list(link):
            link.remove(child)
        link.text = address
        if target is None:
            link.tag = "span"
        else:
            link.set("href", target)
        return
    link.tag = "span"  # the text, no longer a link
    if target is None:
        link.tail = f" ({address}){tail}"
        return
    shown = ET.Element("a", {"href": target})
    shown.text, shown.tail = address, f"){tail}"
    link.tail = " ("
    parent.insert(list(parent).index(link) + 1, shown)
