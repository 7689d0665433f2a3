"""Press from the private page, through real HTTP, real Git and a real SMTP server: relayed
by the code that relays mailed press, with its limits and its log, and shown as text on the
game's page and on the private pages of those it concerns.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from gitgame import isolate
from liveserver import Reply, fetch, serving
from mailserver import MailServer, mail_server, new_game, plain, settings_for
from test_private_page import form_fields, post, private_path

from adjudicator.games.repo import GameRepo
from adjudicator.home.settings import Settings
from adjudicator.mail import report_mails
from adjudicator.web import create_app

NAMES = ("alice", "bob", "carol")


@dataclass
class Site:
    settings: Settings
    server: MailServer
    repo: GameRepo
    url: str

    def page(self, player: str) -> str:
        return f"{self.url}{private_path(self.settings.home, 'g1', player)}"

    def send(self, player: str, text: str, to: str = "all") -> tuple[Reply, dict[str, str]]:
        fields = {**form_fields(fetch(self.page(player)).text), "to": to, "text": text}
        return post(self.page(player) + "/press", fields), fields

    def press_to(self, player: str) -> list[str]:
        return [
            plain(m)
            for m in self.server.messages
            if str(m["X-Pamir-Player"]) == player and "Press from" in str(m["Subject"])
        ]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port, press_per_day=2)
        repo, created = new_game(settings, NAMES)
        report_mails.notify(settings, repo, [created])
        with serving(create_app(settings.model_dump())) as url:
            yield Site(settings, server, repo, url)
        repo.repo.close()


def test_public_press_from_the_page_is_committed_mailed_and_shown(site: Site) -> None:
    reply, _ = site.send("alice", "Shall we hold Kabul?\r\nA.")

    assert reply.status == 200 and "press relayed to every other player" in reply.text
    document = site.repo.read("press/0001.md") or ""
    assert document.startswith("---\nnumber: 1\nfrom: alice\nto: all\n")
    assert document.endswith("\nShall we hold Kabul?\nA.\n")
    for player in ("bob", "carol"):
        (mailed,) = site.press_to(player)
        assert "press from alice, to all players" in mailed and "Shall we hold Kabul?" in mailed
    assert site.press_to("alice") == []
    game = fetch(f"{site.url}/games/g1").text
    assert "Shall we hold Kabul?\nA." in game and "after move 0" in game
    assert "Shall we hold Kabul?" in fetch(site.page("carol")).text


def test_private_press_reaches_one_player_and_only_their_pages(site: Site) -> None:
    reply, _ = site.send("carol", "I will not tax you.", to="bob")

    assert reply.status == 200 and "press relayed to bob" in reply.text
    assert [m.count("I will not tax you.") for m in site.press_to("bob")] == [1]
    assert site.press_to("alice") == []
    assert site.repo.names("press") == []
    assert "to you alone" in fetch(site.page("bob")).text
    assert "I will not tax you." in fetch(site.page("bob")).text
    assert "I will not tax you." in fetch(site.page("carol")).text
    assert "I will not tax you." not in fetch(site.page("alice")).text
    assert "I will not tax you." not in fetch(f"{site.url}/games/g1").text


def test_the_limit_refuses_with_its_reason_on_the_page(site: Site) -> None:
    for number in (1, 2):
        assert site.send("bob", f"message {number}")[0].status == 200
    reply, _ = site.send("bob", "message 3")

    assert reply.status == 422
    assert "press-limit" in reply.text and "press_per_day = 2" in reply.text
    assert ">message 3</textarea>" in reply.text  # kept, to send later
    assert site.repo.names("press") == ["0001.md", "0002.md"]
    assert all("message 3" not in m for m in site.press_to("alice"))


def test_a_form_posted_twice_is_relayed_once(site: Site) -> None:
    reply, fields = site.send("alice", "Only once, please.")
    assert reply.status == 200
    again = post(site.page("alice") + "/press", fields)

    assert again.status == 200 and "press relayed before" in again.text
    assert site.repo.names("press") == ["0001.md"]
    assert [len(site.press_to(p)) for p in ("bob", "carol")] == [1, 1]


def test_a_forged_form_is_refused(site: Site) -> None:
    fields = form_fields(fetch(site.page("alice")).text)
    others = form_fields(fetch(site.page("bob")).text)
    url = site.page("alice") + "/press"
    for forged in (
        {**fields, "token": "0" * 64},
        {**fields, "token": others["token"]},
        {k: v for k, v in fields.items() if k != "token"},
        {k: v for k, v in fields.items() if k != "nonce"},
    ):
        reply = post(url, {**forged, "to": "all", "text": "forged"})
        assert reply.status == 403 and "did not come from this page" in reply.text
    assert site.repo.names("press") == [] and site.press_to("bob") == []


def test_html_in_press_is_shown_as_text(site: Site) -> None:
    said = "<script>alert(1)</script> **bold** <b>x</b>"
    assert site.send("alice", said)[0].status == 200
    assert site.send("alice", said, to="bob")[0].status == 200

    for text in (fetch(f"{site.url}/games/g1").text, fetch(site.page("bob")).text):
        assert "<script>alert" not in text and "<b>x</b>" not in text
        assert html.escape(said, quote=False) in text.replace("&#34;", '"').replace("&#39;", "'")
    assert (
        len(re.findall(re.escape(html.escape(said, quote=False)), fetch(site.page("bob")).text))
        == 2
    )
