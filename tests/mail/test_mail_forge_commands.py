"""A forge-hosted game gets the commits of commands and press by mail at once: a pause, a
resignation and public press are on the forge when the answer goes out, as a move by mail
is. Real `git push` to a local bare repository standing in for the forge, a real SMTP
server and the real inbound path.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from gitgame import git, isolate
from mailserver import MailServer, mail_server, plain, reply_to, settings_for
from test_webhooks import Hosted, host_game, push_move

from adjudicator.cli.parser import build_parser
from adjudicator.games.outputs import Adjudication
from adjudicator.games.registry import open_game
from adjudicator.games.repo import GameRepo
from adjudicator.home.settings import Settings
from adjudicator.mail import report_mails
from adjudicator.mail.incoming import handle_message


@dataclass
class Forge:
    settings: Settings
    server: MailServer
    repo: GameRepo
    origin: Path

    def on_forge(self, path: str) -> str:
        return git(self.origin, "show", f"main:{path}")

    def forge_head(self) -> str:
        return git(self.origin, "rev-parse", "main").strip()

    def mail_to(self, player: str) -> bytes:
        found = [m for m in self.server.messages if str(m["X-Pamir-Player"]) == player]
        return found[-1].as_bytes()


@pytest.fixture
def forge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Forge]:
    home = isolate(tmp_path, monkeypatch)
    with mail_server() as server:
        settings = settings_for(home, server.port)
        hosted = host_game(tmp_path, settings)
        repo = open_game(settings, hosted.game_id)
        head = repo.head()
        assert head is not None
        report = repo.read("reports/0000.md", head) or ""
        report_mails.notify(settings, repo, [Adjudication(0, head, report)])
        yield Forge(settings, server, repo, hosted.origin)
        repo.repo.close()


def reply(forge: Forge, player: str, text: str) -> str:
    last = [m for m in forge.server.messages if str(m["X-Pamir-Player"]) == player][-1]
    result = handle_message(forge.settings, reply_to(last, text))
    assert result.status == "accepted", result.reason
    return result.reason


def test_a_pause_by_mail_is_on_the_forge_at_once(forge: Forge) -> None:
    before = forge.forge_head()
    reply(forge, "bob", "pause 24h a wedding\n")
    assert forge.forge_head() == forge.repo.head() != before
    assert "a wedding" in forge.on_forge("deadlines.toml")


def test_public_press_is_on_the_forge_at_once(forge: Forge) -> None:
    reply(forge, "alice", "press:\nShall we stop bob in Kabul?\n")
    assert forge.forge_head() == forge.repo.head()
    assert "Shall we stop bob in Kabul?" in forge.on_forge("press/0001.md")


def test_a_resignation_is_on_the_forge_at_once(forge: Forge) -> None:
    reply(forge, "bob", "resign\n")
    assert forge.forge_head() == forge.repo.head()
    assert "resigned = true" in forge.on_forge("game.toml")
    told = [m for m in forge.server.messages if "bob resigns" in str(m["Subject"])]
    assert told and "stand-in" in plain(told[0])


def test_a_pause_after_a_push_the_service_has_not_seen_goes_on_top_of_it(
    forge: Forge, tmp_path: Path
) -> None:
    """A move pushed to the forge whose webhook has not come yet: the pause by mail is
    committed on top of its adjudication, and both are on the forge."""
    hosted = Hosted("g1", forge.origin, forge.repo.path, "players/g1")
    number = push_move(hosted)
    reply(forge, "bob", "pause 24h a wedding\n")
    assert forge.forge_head() == forge.repo.head()
    log = git(forge.origin, "log", "--format=%s", "main")
    assert log.index("Pause the clock") < log.index(f"Adjudicate move {number}")  # newest first
    assert "a wedding" in forge.on_forge("deadlines.toml")


def test_the_hosts_pause_is_on_the_forge_at_once(forge: Forge) -> None:
    args = build_parser().parse_args(
        ["pause", str(forge.repo.path), "--as", "alice", "--hours", "6", "--reason", "a storm"]
    )
    args.func(args)
    assert forge.forge_head() == forge.repo.head()
    assert "a storm" in forge.on_forge("deadlines.toml")
