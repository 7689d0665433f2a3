"""Where each game's repository lives, in PostgreSQL mode: the registry of games.

In PostgreSQL mode (docs/cluster.md) every node keeps a PAMIR_HOME of its own, and the
games live on a forge: the table `pamir_games` says which games the service has and the
URL of each one's forge repository. A node's clone of a game (PAMIR_HOME/games/ID) is a
cache of the forge's: a node that starts empty, or is asked about a game it has no clone
of (a webhook, an email, the scheduler), clones it from the URL registered. A commit the
node made in its clone and had not pushed yet is lost with the node's disk: the mails of
a commit are queued only once it is on the forge (adjudicator/mail/ledger.py), and the
forge delivers the push that caused it again.

A game that is not on a forge (a bare repository players push to, a working repository)
lives on one node's disk only: the other nodes never see it, so this mode refuses to
create one (`pamir new`) and the registry holds only forge-hosted games.

With no database configured nothing is registered (`NoRegistry`): the games are the
folders of PAMIR_HOME/games, as on one machine. The backend picks one of the two once
(adjudicator/home/backend.py).
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import unquote, urlsplit

import git

from adjudicator.games.repo import BRANCH, GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import backend, database
from adjudicator.home.keys import adjudicator_key
from adjudicator.home.settings import Settings

if TYPE_CHECKING:  # the client is imported where it is used: only PostgreSQL mode loads it
    import psycopg

log = logging.getLogger(__name__)

ORIGIN = "origin"
GIT_TIMEOUT = 120  # seconds for one clone
GIT_ENV = {"GIT_TERMINAL_PROMPT": "0"}
_cloning = threading.Lock()  # one clone at a time in a process: two threads, one game


def register(settings: Settings, game_id: str, url: str) -> None:
    """Record that the game lives at `url` (PostgreSQL mode; nothing otherwise)."""
    _of(settings).register(game_id, url)


def registered(settings: Settings) -> dict[str, str]:
    """Every registered game's forge URL, by id ({} with no database)."""
    return _of(settings).registered()


def url_of(settings: Settings, game_id: str) -> str | None:
    return _of(settings).url_of(game_id)


def find(settings: Settings, urls: list[str]) -> tuple[str, str] | None:
    """The registered game (id, URL) whose forge repository is at one of `urls` (compared
    in their `normalize_url` form), by one indexed lookup; None when there is none (or no
    database is configured)."""
    return _of(settings).find(urls)


def forge_head(settings: Settings, game_id: str) -> str | None:
    """The game's branch on its forge as the service last saw it (the last push or fetch
    by any node); None when unknown, or with no database."""
    return _of(settings).forge_head(game_id)


def saw_forge_head(settings: Settings, game_id: str, head: str) -> None:
    """Record the game's branch as this node just saw it on its forge (nothing with no
    database)."""
    _of(settings).saw_forge_head(game_id, head)


def clone(settings: Settings, game_id: str, url: str | None = None) -> Path | None:
    """This node's clone of a registered game, cloned from its forge first when the node
    has none; None when the game is not registered (or no database is configured).
    RepoError when the forge cannot be reached or holds another game."""
    return _of(settings).clone(game_id, url)


def rebuild(settings: Settings) -> list[str]:
    """Clone every registered game this node has no clone of (a node that starts empty),
    and register the forge-hosted clones the registry lacks (cloned by hand); return the
    games cloned. A game that cannot be cloned is logged and the others go on. Nothing
    with no database."""
    return _of(settings).rebuild()


def register_clones(settings: Settings, known: dict[str, str] | None = None) -> list[str]:
    """Register the forge-hosted clones of the settings' PAMIR_HOME/games that the
    registry lacks; return their ids (none with no database)."""
    return _of(settings).register_clones(known)


def normalize_url(url: str) -> str:
    """A comparable form of a repository URL: `host/owner/name` for forges (any scheme,
    credentials, port and `.git` dropped; lower case), the resolved path for local ones."""
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme == "file" or (not parts.scheme and text.startswith(("/", "."))):
        path = unquote(parts.path) if parts.scheme == "file" else text
        return str(Path(path).resolve()).removesuffix("/").removesuffix(".git")
    if parts.scheme and parts.hostname:
        host, path = parts.hostname, parts.path
    elif match := re.match(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>.+)$", text):
        host, path = match.group("host"), match.group("path")  # scp-like: git@host:owner/name
    else:
        return str(Path(text).resolve()).removesuffix(".git")
    path = path.strip("/").removesuffix(".git")
    return f"{host}/{path}".lower()


class Registry(Protocol):
    def register(self, game_id: str, url: str) -> None: ...

    def registered(self) -> dict[str, str]: ...

    def url_of(self, game_id: str) -> str | None: ...

    def find(self, urls: list[str]) -> tuple[str, str] | None: ...

    def forge_head(self, game_id: str) -> str | None: ...

    def saw_forge_head(self, game_id: str, head: str) -> None: ...

    def clone(self, game_id: str, url: str | None = None) -> Path | None: ...

    def rebuild(self) -> list[str]: ...

    def register_clones(self, known: dict[str, str] | None = None) -> list[str]: ...


class NoRegistry:
    """The embedded mode: the games are the folders of PAMIR_HOME/games, none registered."""

    def __init__(self, settings: Settings) -> None:
        pass

    def register(self, game_id: str, url: str) -> None:
        pass

    def registered(self) -> dict[str, str]:
        return {}

    def url_of(self, game_id: str) -> str | None:
        return None

    def find(self, urls: list[str]) -> tuple[str, str] | None:
        return None

    def forge_head(self, game_id: str) -> str | None:
        return None

    def saw_forge_head(self, game_id: str, head: str) -> None:
        pass

    def clone(self, game_id: str, url: str | None = None) -> Path | None:
        return None

    def rebuild(self) -> list[str]:
        return []

    def register_clones(self, known: dict[str, str] | None = None) -> list[str]:
        return []


REGISTRY: backend.Kind[Registry] = backend.Kind("games.registry")


def _of(settings: Settings) -> Registry:
    return backend.of(settings).service(REGISTRY, NoRegistry, ForgeRegistry)


class ForgeRegistry:
    """PostgreSQL mode: the table `pamir_games`, and this node's clones of its games."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def register(self, game_id: str, url: str) -> None:
        with database.connection(self.settings) as connection:
            connection.execute(
                "INSERT INTO pamir_games (game_id, url, url_key) VALUES (%s, %s, %s)"
                " ON CONFLICT (game_id) DO UPDATE"
                " SET url = excluded.url, url_key = excluded.url_key",
                (game_id, url, normalize_url(url)),
            )

    def registered(self) -> dict[str, str]:
        with database.connection(self.settings) as connection:
            rows = connection.execute("SELECT game_id, url FROM pamir_games ORDER BY game_id")
            return {str(row[0]): str(row[1]) for row in rows.fetchall()}

    def url_of(self, game_id: str) -> str | None:
        with database.connection(self.settings) as connection:
            row = connection.execute(
                "SELECT url FROM pamir_games WHERE game_id = %s", (game_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def find(self, urls: list[str]) -> tuple[str, str] | None:
        keys = sorted({normalize_url(u) for u in urls if u})
        if not keys:
            return None
        with database.connection(self.settings) as connection:
            if not _keyed.is_set():
                _fill_url_keys(connection)
            row = connection.execute(
                "SELECT game_id, url FROM pamir_games WHERE url_key = ANY(%s)"
                " ORDER BY game_id LIMIT 1",
                (keys,),
            ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def forge_head(self, game_id: str) -> str | None:
        with database.connection(self.settings) as connection:
            row = connection.execute(
                "SELECT head FROM pamir_games WHERE game_id = %s", (game_id,)
            ).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def saw_forge_head(self, game_id: str, head: str) -> None:
        with database.connection(self.settings) as connection:
            connection.execute(
                "UPDATE pamir_games SET head = %s WHERE game_id = %s AND head IS DISTINCT FROM %s",
                (head, game_id, head),
            )

    def clone(self, game_id: str, url: str | None = None) -> Path | None:
        target = self.settings.games_dir / game_id
        if target.is_dir():
            return target
        url = url or self.url_of(game_id)
        if url is None:
            return None
        with _cloning:
            if target.is_dir():
                return target  # another thread made it meanwhile
            _clone_into(self.settings, game_id, url, target)
        log.info("game %s cloned from its forge into %s", game_id, target)
        return target

    def rebuild(self) -> list[str]:
        known = self.registered()
        made: list[str] = []
        for game_id, url in known.items():
            if (self.settings.games_dir / game_id).is_dir():
                continue
            try:
                self.clone(game_id, url)
            except RepoError as error:
                log.warning("game %s: %s", game_id, error)
                continue
            made.append(game_id)
        self.register_clones(known)
        return made

    def register_clones(self, known: dict[str, str] | None = None) -> list[str]:
        known = self.registered() if known is None else known
        found: list[str] = []
        games = self.settings.games_dir
        if not games.is_dir():
            return found
        for path in sorted(games.iterdir()):
            if path.name in known or path.name.startswith(".") or not path.is_dir():
                continue
            origin = _origin(path)
            if origin is not None:
                self.register(path.name, origin)
                found.append(path.name)
        return found


_keyed = threading.Event()  # this process filled in the url_key of older rows


def _fill_url_keys(connection: psycopg.Connection[tuple[object, ...]]) -> None:
    """Give the rows registered before url_key existed theirs (once a process: every
    registration since writes it)."""
    rows = connection.execute(
        "SELECT game_id, url FROM pamir_games WHERE url_key IS NULL"
    ).fetchall()
    for game_id, url in rows:
        connection.execute(
            "UPDATE pamir_games SET url_key = %s WHERE game_id = %s",
            (normalize_url(str(url)), game_id),
        )
    _keyed.set()


class CloneFailed(Exception):
    """git could not clone the forge's repository; `stderr` says why."""

    def __init__(self, stderr: str) -> None:
        super().__init__(stderr)
        self.stderr = stderr


@contextmanager
def scratch_clone(settings: Settings, url: str, prefix: str) -> Iterator[Path]:
    """A clone of the forge's game branch in a scratch folder under PAMIR_HOME/tmp, for
    the block to check and rename into place; removed after the block if it is still
    there. CloneFailed when git cannot clone it."""
    scratch = settings.home / "tmp"
    scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=scratch))
    try:
        try:
            git.Repo.clone_from(
                url, str(folder), branch=BRANCH, env=GIT_ENV, kill_after_timeout=GIT_TIMEOUT
            ).close()
        except git.GitCommandError as error:
            raise CloneFailed(str(error.stderr).strip()) from None
        yield folder
    finally:
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)


def _clone_into(settings: Settings, game_id: str, url: str, target: Path) -> None:
    try:
        with scratch_clone(settings, url, "clone-") as folder:
            repo = GameRepo(folder)
            try:
                game = snapshot(repo).game
                if game.id != game_id:
                    raise RepoError(f"the forge repository of game {game_id} holds game {game.id}")
                if game.adjudicator is not None:
                    repo.configure_signing(adjudicator_key(settings.home))
            except GameError as error:
                raise RepoError(f"game {game_id} on its forge cannot be read: {error}") from None
            finally:
                repo.repo.close()
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                folder.rename(target)
            except OSError:
                if not target.is_dir():
                    raise
                # Another process of this node (a gunicorn worker) cloned it meanwhile: the
                # same forge's game, which is all this one was for.
    except CloneFailed as error:
        why = error.stderr[:200]
        raise RepoError(f"cannot clone game {game_id} from its forge: {why}") from None


def _origin(path: Path) -> str | None:
    """The `origin` URL of a working clone (None: not a clone of a forge-hosted game)."""
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    try:
        if repo.bare:
            return None
        return str(repo.remote(ORIGIN).url) if ORIGIN in repo.remotes else None
    finally:
        repo.close()
