"""Every report mail links the move's page, the game's page and the reader's own private
page; the links resolve on the running service, and no mail carries another player's."""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage
from urllib.parse import urlsplit

from gitgame import SECRET, TWO

import engine
from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import position, submit
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import report_mails
from adjudicator.web import create_app

LINK = re.compile(r"https?://\S+")


def test_report_mails_link_the_pages_and_they_resolve(settings: Settings) -> None:
    players = [(n, f"{n}@example.org") for n in TWO]
    repo = create_game(settings.games_dir / "linked", players, home=settings.home, secret=SECRET)
    state = position(snapshot(repo), settings.home)
    player, action = engine.legal_actions(state)[0]
    done = submit(repo, player, engine.format_action(action) + "\n", home=settings.home)
    client = create_app({"home": settings.home}).test_client()
    private: dict[str, str] = {}
    for path in report_mails.notify(settings, repo, [done], deliver_now=False):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        body = message.get_body(preferencelist=("plain",))
        assert body is not None
        text = str(body.get_content())
        reader = str(message["X-Pamir-Player"])
        links = [url.rstrip(").,") for url in LINK.findall(text.split("## On the web", 1)[1])]
        assert len(links) == 4, links  # the move, the game, one's own page, and /help
        for url in links:
            assert client.get(urlsplit(url).path).status_code == 200, url
        (own,) = [url for url in links if "/play/" in url]
        private[reader] = own
    assert len(set(private.values())) == len(TWO)  # each reader gets only their own
    for reader, url in private.items():
        assert f"/{reader}/" in url.lower()
