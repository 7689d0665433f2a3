"""Links in what players write show where they go (docs/email.md#links-in-press-and-notes).

A link whose text is not its address loses its link and is followed by its address; only
https and mailto addresses stay links; a look-alike host shows in ASCII. Checked in the
HTML of a real press mail (through a real SMTP server) and of a real page (over real
HTTP) showing a move's note.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from liveserver import fetch, serving
from mailserver import DOMAIN, reply_to
from mailserver import html as html_of
from test_mail_in import Table, options
from test_mail_press import last_to, open_table, press_to

from adjudicator.mail.incoming import handle_message
from adjudicator.web import create_app

# One line of player text with every kind of link a phisher might try.
LINKS = (
    "[your private page](https://evil.example/login) · "
    "<http://plain.example/page> · "
    "[the rules](//elsewhere.example/rules) · "
    "[bank](https://\u0440aypal.example/) · "
    '[help](https://help.example/ "https://pamir.example/help") · '
    "<https://fine.example/a> · "
    "[write to me](mailto:someone@evil.example)"
)
ANCHOR = re.compile(r"<a\b([^>]*)>(.*?)</a>", re.S)


def external_anchors(page: str) -> list[tuple[str, str]]:
    """(href, text) of every link that leaves the service (relative ones are its own)."""
    found = []
    for attributes, inner in ANCHOR.findall(page):
        target = re.search(r'href="([^"]*)"', attributes)
        assert target is not None, attributes
        href = html.unescape(target.group(1))
        if re.match(r"^[a-z]+:|^//", href):
            assert "title=" not in attributes, attributes
            found.append((href, html.unescape(re.sub(r"<[^>]+>", "", inner))))
    return found


def check_links(page: str) -> None:
    # The mail's own reply address is a link too (mailto:), and no note's: left out here.
    links = [(h, t) for h, t in external_anchors(page) if not h.endswith("@" + DOMAIN)]
    assert links, page
    for href, text in links:  # each link's text is its address, and secure
        assert href.startswith(("https://", "mailto:")), href
        assert text == href.removeprefix("mailto:"), (href, text)
    assert sorted(href for href, _ in links) == sorted(
        [
            "https://evil.example/login",
            "https://xn--aypal-uye.example/",
            "https://help.example/",
            "https://fine.example/a",
            "mailto:someone@evil.example",
        ]
    )
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "your private page (https://evil.example/login)" in text
    assert "http://plain.example/page" in text  # shown, not a link
    assert "the rules (//elsewhere.example/rules)" in text
    assert "write to me (someone@evil.example)" in text
    assert 'title="https://pamir.example/help"' not in page  # a tooltip's claim goes


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    yield from open_table(tmp_path, monkeypatch)


def test_links_in_press_show_their_addresses(table: Table) -> None:
    raw = reply_to(last_to(table, "alice"), f"press:\n{LINKS}\n")
    assert handle_message(table.settings, raw).status == "accepted"
    for player in ("bob", "carol"):
        (relayed,) = press_to(table, player)
        check_links(html_of(relayed))


def test_links_in_a_note_show_their_addresses_on_the_moves_page(table: Table) -> None:
    _, report = table.deciding()
    move = f"# note: {LINKS}\n{options(report)[0]}\n"
    result = handle_message(table.settings, reply_to(report, move))
    assert result.status == "accepted", result.reason
    with serving(create_app({"home": table.settings.home})) as site:
        page = fetch(f"{site}/games/g1/turns/{result.number}")
        assert page.status == 200
        check_links(page.text)
        check_links(fetch(f"{site}/games/g1").text)
    reports = [m for m in table.server.messages if m["X-Pamir-Kind"] == "report"]
    check_links(html_of(reports[-1]))  # and in the report mailed to every player
