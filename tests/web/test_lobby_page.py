"""The lobby on the web (docs/lobby.md#on-the-web): `/lobby` writes the `new game` mail
that the visitor's mail program sends, and lists the open games, which anyone joins by
mail. The page's own link, sent as mail through the service, makes the game.
"""

from __future__ import annotations

import html
import re
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from mailserver import MailServer, mail_server, plain, settings_for

from adjudicator.home.settings import Settings
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.lobby import records
from adjudicator.web import create_app

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
SERVICE = "pamir@localhost"


def lobby_settings(home: Path, server: MailServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"lobby": "open", "reply_local": "pamir", "reply_domain": "localhost"}
    return settings_for(home, server.port, **(values | overrides))


def app_of(settings: Settings) -> Any:
    return create_app({k: v for k, v in settings.model_dump().items() if v is not None})


def mail(sender: str, to: str, body: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, "lobby"
    message["Date"], message["Message-ID"] = formatdate(), make_msgid(domain="example.org")
    message.set_content(body)
    return message.as_bytes()


def links(page: str, scheme: str = "mailto:") -> list[str]:
    return [html.unescape(h) for h in re.findall(r'href="([^"]+)"', page) if h.startswith(scheme)]


def body_of(link: str) -> str:
    return unquote(link.partition("&body=")[2])


def test_no_lobby_page_while_the_lobby_is_off(home: Path) -> None:
    with mail_server() as server:
        client = app_of(lobby_settings(home, server, lobby="off")).test_client()
        assert client.get("/lobby").status_code == 404


def test_the_form_writes_the_mail_that_makes_the_game(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        client = app_of(settings).test_client()
        fields = {"game": "herat", "invites": f"{BOB}\n{CAROL} as carol\n", "hours": "72"}
        page = client.get("/lobby", query_string=fields).get_data(as_text=True)
        (send,) = [link for link in links(page) if link.startswith(f"mailto:{SERVICE}?subject=new")]
        body = body_of(send)
        assert body == f"new game herat\ninvite {BOB}\ninvite {CAROL} as carol\ndeadline 72h\n"
        assert handle_message(settings, mail(ALICE, SERVICE, body)).status == "accepted"
    pending = records.read(settings, "herat")
    assert pending is not None and pending.turn_hours == 72
    assert [s.address for s in pending.invited] == [BOB, CAROL]


def test_a_bad_form_is_told_why_and_gets_no_link(home: Path) -> None:
    with mail_server() as server:
        client = app_of(lobby_settings(home, server)).test_client()
        fields = {"game": "herat", "invites": f"{BOB} as <script>alert(1)</script>"}
        page = client.get("/lobby", query_string=fields).get_data(as_text=True)
    assert "Nothing was changed: line 2: a player&#39;s name is" in page
    assert "<script>alert" not in page
    assert not [link for link in links(page) if "subject=new" in link]


def test_an_open_game_is_listed_and_joined_by_mail_then_started(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server)
        client = app_of(settings).test_client()
        assert (
            handle_message(settings, mail(ALICE, SERVICE, "new game kabul\nopen\n")).status
            == "accepted"
        )
        page = client.get("/lobby").get_data(as_text=True)
        (join,) = [link for link in links(page) if "subject=join" in link]
        assert body_of(join) == "join kabul\n"
        joined = handle_message(settings, mail(BOB, SERVICE, body_of(join)))
        twice = handle_message(settings, mail(BOB, SERVICE, "join kabul\n"))
        assert "this address is invited already" in plain(server.to(BOB)[-1])
        assert "bob@example.org joined, as bob." in plain(server.to(ALICE)[-1])
        seat = str(server.to(ALICE)[-1]["Reply-To"])
        started = handle_message(settings, mail(ALICE, seat, "start\n"))
        assert "kabul" not in client.get("/lobby").get_data(as_text=True)  # no longer open
        firsts = [m for m in server.messages if m["X-Pamir-Game"] == "kabul"]
    assert (joined.status, twice.status, started.status) == ("accepted", "refused", "accepted")
    assert sorted(str(m["To"]).rpartition("<")[2].rstrip(">") for m in firsts) == [ALICE, BOB]


def test_nobody_joins_unless_the_lobby_is_open(home: Path) -> None:
    with mail_server() as server:
        settings = lobby_settings(home, server, lobby="invite", lobby_allow="example.org")
        handle_message(settings, mail(ALICE, SERVICE, f"new game kabul\nopen\ninvite {CAROL}\n"))
        refused = handle_message(settings, mail(BOB, SERVICE, "join kabul\n"))
        assert "no open game of that name waits for players" in plain(server.to(BOB)[-1])
        page = app_of(settings).test_client().get("/lobby").get_data(as_text=True)
    assert refused.status == "refused" and "join kabul" not in page
