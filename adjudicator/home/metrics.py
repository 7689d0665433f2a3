"""The service's counters and timings, in Prometheus' terms (docs/operations.md#metrics).

Each capability records here what it did: the moves adjudicated and refused by the way
they came in (`moves`), how long an adjudication took (`adjudicating`), the messages the
mail server did not take (`smtp_failures`), inbound mail refused (`inbound_refused`). The
web service serves them at /metrics (adjudicator/web/metrics.py), beside what it reads at
each scrape (the outbox, the scheduler's lag). Labels take a few fixed values only: never
a game, a player, an address or a token.

In one process (`pamir serve`, the tests) the values live in its memory. With
PROMETHEUS_MULTIPROC_DIR set, prometheus-client's multiprocess mode keeps each process's
values in files in that folder, and /metrics adds up those of every process that wrote
there: gunicorn's workers, and the scheduler, the hooks and `pamir inbound-email` when
they are given the same folder.

The metrics are made on first use, which is also when prometheus-client is imported (a
command that counts nothing does not load it), and counting never fails the work it
counts: a folder that cannot be written to is logged, and the work goes on.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal, Protocol, get_args

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

log = logging.getLogger(__name__)

MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"  # prometheus-client's own name for it
# How a move reached the service: a push to a bare repository (its hook, or the
# scheduler for pushes no hook adjudicated), a forge (a webhook or a poll), a reply by
# mail, the player's private page, the scheduler's default at a deadline.
Way = Literal["push", "webhook", "mail", "page", "deadline"]
# Why an inbound message was not taken as a player's: a fixed set of codes, so that a
# label never holds a sender's words or address.
InboundReason = Literal[
    "too-large",
    "too-complex",
    "malformed",
    "no-reply-address",
    "invalid-token",
    "replaced-token",
    "automatic",
    "unknown-game",
    "unknown-player",
    "wrong-sender",
    "unauthenticated",
    "no-text",
]
# A submission takes 15 to 50 ms (benchmarks/README.md#adjudication-latency), more under
# load; one that must replay a long game without the position cache, seconds.
ADJUDICATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class Outcome(Protocol):
    """An adjudication as the pipeline returns it: a move played, or one refused by a
    commit that records why (a pushed move that was not legal when its turn came)."""

    @property
    def refused(self) -> bool: ...


class _Metrics:
    def __init__(self) -> None:
        # prometheus_client loads only once a metric is counted: the short-lived commands
        # (the Git hooks, `pamir inbound-email`) start without it.
        from prometheus_client import REGISTRY, Counter, Histogram

        # Made outside any registry and registered once all are made: a failure half way
        # (a multiprocess folder that cannot be written) leaves nothing registered twice.
        self.adjudicated = Counter(
            "pamir_moves_adjudicated",
            "Moves adjudicated (committed as played), by the way they came in.",
            ["way"],
            registry=None,
        )
        self.refused = Counter(
            "pamir_moves_refused",
            "Moves refused by the rules or the game's state, by the way they came in.",
            ["way"],
            registry=None,
        )
        self.seconds = Histogram(
            "pamir_adjudication_seconds",
            "Seconds an adjudication took, from reading the game to its commit.",
            buckets=ADJUDICATION_BUCKETS,
            registry=None,
        )
        self.smtp = Counter(
            "pamir_smtp_failures",
            "Messages a delivery run could not hand to the mail server (retried later, "
            "or refused for good).",
            registry=None,
        )
        self.inbound = Counter(
            "pamir_inbound_refused",
            "Inbound messages not taken as a player's, by the reason's code.",
            ["reason"],
            registry=None,
        )
        for way in get_args(Way):  # every series from the start, at 0: rates need them
            self.adjudicated.labels(way)
            self.refused.labels(way)
        for reason in get_args(InboundReason):
            self.inbound.labels(reason)
        for metric in (self.adjudicated, self.refused, self.seconds, self.smtp, self.inbound):
            REGISTRY.register(metric)


_made: _Metrics | None = None
_made_lock = threading.Lock()


def _metrics() -> _Metrics:
    global _made
    with _made_lock:
        if _made is None:
            _made = _Metrics()
        return _made


def _record(what: Callable[[_Metrics], object]) -> None:
    try:
        what(_metrics())
    except Exception as error:  # counting never fails the move, the mail or the request
        log.warning("a metric was not recorded: %s", error)


def moves(way: Way, *, adjudicated: int = 0, refused: int = 0) -> None:
    """Count moves that came in by `way`: adjudicated, and refused."""

    def count(made: _Metrics) -> None:
        if adjudicated:
            made.adjudicated.labels(way).inc(adjudicated)
        if refused:
            made.refused.labels(way).inc(refused)

    _record(count)


def outcomes(way: Way, done: Iterable[Outcome]) -> None:
    """Count the adjudications of moves that came in by `way` (a refusal committed for a
    pushed move counts as refused)."""
    results = list(done)
    refused = sum(1 for result in results if result.refused)
    moves(way, adjudicated=len(results) - refused, refused=refused)


@contextmanager
def adjudicating() -> Iterator[None]:
    """Time the block as one adjudication; a block that raises (a refusal, which commits
    nothing) is not timed."""
    started = time.perf_counter()
    yield
    elapsed = time.perf_counter() - started
    _record(lambda made: made.seconds.observe(elapsed))


def smtp_failures(count: int) -> None:
    """Count messages that a delivery run could not hand to the mail server."""
    if count:
        _record(lambda made: made.smtp.inc(count))


def inbound_refused(reason: InboundReason) -> None:
    """Count an inbound message not taken as a player's, by the code of its reason."""
    _record(lambda made: made.inbound.labels(reason).inc())


def multiprocess_folder() -> str | None:
    """PROMETHEUS_MULTIPROC_DIR, when this process counts in multiprocess mode."""
    return os.environ.get(MULTIPROCESS_VARIABLE)


def registry() -> CollectorRegistry:
    """What /metrics serves: this process's metrics and what prometheus-client says of the
    process itself; in multiprocess mode, the metrics of every process that wrote to the
    folder, added up (and nothing of any process: its files hold only metrics)."""
    from prometheus_client import REGISTRY, CollectorRegistry  # as _Metrics: on use
    from prometheus_client.multiprocess import MultiProcessCollector

    _metrics()  # every metric is there from the first scrape, at 0
    if multiprocess_folder() is None:
        return REGISTRY
    every = CollectorRegistry()
    MultiProcessCollector(every)  # type: ignore[no-untyped-call]
    return every
