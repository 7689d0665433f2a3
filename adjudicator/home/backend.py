"""The service's two modes, and the one choice between them (docs/architecture.md).

With no database configured (the embedded mode) one process tree on one machine serves:
its state is the files of PAMIR_HOME, its locks are file locks. With `database_url` set
(PostgreSQL mode, docs/cluster.md) several nodes serve the same games: their shared state
is in the database, their locks are advisory locks, each node keeps a PAMIR_HOME of its
own for its clones and caches.

Which mode a service is in is decided here, once per settings (`of`), and nowhere else: a
capability that keeps something differently in the two modes hands both implementations
to `Backend.service`, which builds the one of this mode once and keeps it, and the rest of
the code talks to that object through the capability's protocol. A few behaviours that are
not stores follow from one fact that `several_nodes` states.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from adjudicator.home import database, nodes, store
from adjudicator.home.settings import Settings

T = TypeVar("T")


class Kind(Generic[T]):
    """The name of something each mode keeps its own way, and the protocol it has: `T`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Kind({self.name!r})"


class Backend(Protocol):
    """What differs between the modes, for one service's settings."""

    settings: Settings

    @property
    def several_nodes(self) -> bool:
        """Whether other nodes serve the same games: then a forge-hosted game's clone here
        is one of several, which may be behind the forge or hold a commit not yet pushed,
        and the other nodes see only what is on the forge or in the database."""
        ...

    def service(
        self, kind: Kind[T], embedded: Callable[[Settings], T], clustered: Callable[[Settings], T]
    ) -> T:
        """The implementation of `kind` for this mode, built on first use from `embedded`
        or `clustered` and kept: every later call gets the same object."""
        ...

    def check(self) -> None:
        """Refuse (DatabaseError) to serve from a database whose schema is not this code's,
        or with a secret key that does not open its secrets; nothing in embedded mode."""
        ...

    def start(self) -> None:
        """What a serving process does first: `check`, then its heartbeat (PostgreSQL)."""
        ...

    def stop(self) -> None:
        """What a serving process does last: its heartbeat's row removed (PostgreSQL)."""
        ...

    def problem(self) -> str | None:
        """Why this node cannot serve right now (the database does not answer), or None."""
        ...


class _Services:
    """The implementations a backend has built, by kind."""

    def __init__(self) -> None:
        self._built: dict[str, object] = {}
        self._lock = threading.Lock()

    def get(self, kind: Kind[T], make: Callable[[], T]) -> T:
        with self._lock:
            if kind.name not in self._built:
                self._built[kind.name] = make()
            # What was built for `kind` is a T: only `get(kind, ...)` stores under its name.
            found: T = self._built[kind.name]  # type: ignore[assignment]
            return found


class _Mode:
    """What both modes do alike: keep what `service` built, for these settings."""

    several_nodes: bool

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._services = _Services()

    def service(
        self, kind: Kind[T], embedded: Callable[[Settings], T], clustered: Callable[[Settings], T]
    ) -> T:
        make = clustered if self.several_nodes else embedded
        return self._services.get(kind, lambda: make(self.settings))


class Embedded(_Mode):
    """One machine: the files of PAMIR_HOME."""

    several_nodes = False

    def check(self) -> None:
        pass

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def problem(self) -> str | None:
        return None


class Clustered(_Mode):
    """Several nodes sharing a PostgreSQL database (docs/cluster.md)."""

    several_nodes = True

    def check(self) -> None:
        database.require_schema(self.settings)
        found = store.of(self.settings)
        try:
            if isinstance(found, store.DatabaseStore):
                found.check_key()
        except store.StoreError as error:
            raise database.DatabaseError(str(error)) from None

    def start(self) -> None:
        self.check()
        nodes.start_heartbeat(self.settings)

    def stop(self) -> None:
        nodes.stop_heartbeat(self.settings)

    def problem(self) -> str | None:
        return database.problem(self.settings)


_backends: dict[Settings, Backend] = {}
_backends_lock = threading.Lock()


def of(settings: Settings) -> Backend:
    """The backend of these settings: one object for equal settings (they are frozen), so
    that what it builds is built once per process and settings."""
    with _backends_lock:
        found = _backends.get(settings)
        if found is None:
            found = Clustered(settings) if settings.database_url is not None else Embedded(settings)
            _backends[settings] = found
        return found
