"""The threads of a game's mail: one per player, kept in the store as
`mail/threads/GAME.json` ({player: {"root": ID, "last": ID}}), never in the game repository.

The first message a player gets (usually the report of move 0) is the thread's root;
every later one carries `References: ROOT PREVIOUS` and `In-Reply-To: PREVIOUS`, and keeps
the subject, so that mail programs show a game as one conversation.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adjudicator.home import locks, store
from adjudicator.home.settings import Settings
from adjudicator.mail.records import THREADS


def _threads_dir(settings: Settings) -> Path:
    path = settings.home / "mail" / "threads"
    path.mkdir(parents=True, exist_ok=True)
    return path


def threads_record(game_id: str) -> str:
    """The store's record of a game's threads ({player: {"root": ID, "last": ID}})."""
    return f"mail/threads/{game_id}.json"


@contextmanager
def locked_threads(settings: Settings, game_id: str) -> Iterator[dict[str, dict[str, str]]]:
    """The game's thread state ({player: {"root": ID, "last": ID}}), locked; saved after."""
    folder = _threads_dir(settings)
    name, records = threads_record(game_id), store.of(settings)
    with locks.exclusive(settings, f"threads:{game_id}", folder / f"{game_id}.lock"):
        state = read_threads(settings, game_id)
        yield state
        THREADS.write(records, name, THREADS.check(name, state))


def read_threads(settings: Settings, game_id: str) -> dict[str, dict[str, str]]:
    """The game's thread state ({player: {"root": ID, "last": ID}}; {} before the first
    message). StoreError when the record is not one."""
    name = threads_record(game_id)
    found = THREADS.read(store.of(settings), name)
    plain: dict[str, dict[str, str]] = {} if found is None else THREADS.plain(found)
    return plain


def thread_of(settings: Settings, game_id: str, player: str) -> dict[str, str]:
    """A player's thread in a game: {"root": ID, "last": ID}, or {} before the first."""
    return dict(read_threads(settings, game_id).get(player.lower(), {}))
