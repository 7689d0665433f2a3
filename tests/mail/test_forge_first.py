"""An emailed move to a game hosted on a forge is judged after the moves already pushed
there, even when their webhook has not reached this service (it went to another node, or
has not come yet): the service's clone is brought up to the forge first (docs/cluster.md).

A real forge (a local bare repository), real pushes by the players, the real inbound path
and a real SMTP server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import decider, full_state, git
from mailserver import MailServer, mail_server
from test_crash_safety import Service, clone_of, email, on_a_forge, push_move

import engine
from adjudicator.mail.incoming import handle_message


@pytest.fixture
def server() -> Iterator[MailServer]:
    with mail_server() as running:
        yield running


def forge_moves(service: Service) -> list[str]:
    assert service.forge is not None
    return git(service.forge, "ls-tree", "--name-only", "main", "moves/").split()


def test_an_emailed_move_comes_after_a_move_pushed_to_the_forge_and_not_yet_delivered(
    tmp_path: Path, home: Path, server: MailServer
) -> None:
    service = on_a_forge(tmp_path, home, server)
    state = full_state(clone_of(service, "reader"))
    first, options = decider(state)
    push_move(service, first, options[0] + "\n")  # no webhook: the service knows nothing
    # The next decision once the pushed move is played: the emailed move answers it.
    state = engine.apply(state, state.seat(first), engine.read_action(options[0])[0])
    second, after = decider(state)
    assert second != first

    result = handle_message(service.settings, email(service, second, after[0] + "\n"))

    assert result.status == "accepted", result.reason
    assert result.number == 2
    assert forge_moves(service) == [f"moves/0001-{first}.txt", f"moves/0002-{second}.txt"]
    assert service.verified()
