"""GET /metrics: the service's metrics in Prometheus' text format (docs/operations.md#metrics).

Two kinds: the counters and timings that the capabilities record as they work
(adjudicator/home/metrics.py: this process's, or in multiprocess mode those of every
process that wrote to PROMETHEUS_MULTIPROC_DIR), and gauges read at each scrape from
where every process keeps its work: the outbox's backlog, the scheduler's lag behind the
deadlines and, in PostgreSQL mode, whether this node runs the elected scheduler. So the
scheduler's state reaches /metrics whichever process, or node, runs it. Nothing in it
names a game, a player, an address or a token. Registered unless `metrics = false`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator

from flask import Blueprint, Response
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from adjudicator.home import backend, metrics
from adjudicator.home.settings import Settings
from adjudicator.mail import outbox
from adjudicator.schedule import health
from adjudicator.schedule.jobs import utc_now
from adjudicator.web.context import current_settings

bp = Blueprint("metrics", __name__)
log = logging.getLogger(__name__)


class _Together:
    """Several collectors, collected as one."""

    def __init__(self, *parts: Collector) -> None:
        self.parts = parts

    def collect(self) -> Iterator[Metric]:
        for part in self.parts:
            yield from part.collect()


class _Read:
    """The gauges read at each scrape. A part that cannot be read now (the database is
    away) is left out and logged; the rest is answered."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def collect(self) -> Iterator[Metric]:
        parts: list[Callable[[], Iterable[Metric]]] = [self.outbox, self.scheduler]
        if backend.of(self.settings).several_nodes:  # a leader among them
            parts.append(self.leader)
        for part in parts:
            try:
                found = list(part())
            except Exception:
                log.exception("metrics: %s could not be read", part.__name__)
                continue
            yield from found

    def outbox(self) -> Iterator[Metric]:
        backlog = outbox.backlog(self.settings)
        age = (utc_now() - backlog.oldest).total_seconds() if backlog.oldest else 0.0
        yield GaugeMetricFamily(
            "pamir_outbox_pending_messages",
            "Messages in the outbox waiting to be sent, those waiting for a retry included.",
            value=backlog.pending,
        )
        yield GaugeMetricFamily(
            "pamir_outbox_failed_messages",
            "Messages in the outbox that the mail server refused for good.",
            value=backlog.failed,
        )
        yield GaugeMetricFamily(
            "pamir_outbox_oldest_pending_age_seconds",
            "Seconds since the oldest message still waiting in the outbox was queued (0: none).",
            value=max(0.0, age),
        )

    def scheduler(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "pamir_scheduler_lag_seconds",
            "Seconds since the most overdue deadline that has not been played fell (0: none).",
            value=health.lag_seconds(self.settings),
        )

    def leader(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "pamir_node_scheduler_leader",
            "1 when this node runs the elected scheduler, else 0 (PostgreSQL mode).",
            value=1.0 if health.leads(self.settings) else 0.0,
        )


@bp.get("/metrics")
def scrape() -> Response:
    # The text format every Prometheus reads (0.0.4), whatever the scraper offers to take.
    every = _Together(metrics.registry(), _Read(current_settings()))
    return Response(generate_latest(every), headers={"Content-Type": CONTENT_TYPE_PLAIN_0_0_4})
