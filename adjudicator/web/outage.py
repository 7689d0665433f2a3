"""PostgreSQL mode: a request that meets the database out of reach is answered 503.

A node that loses its database (a restart, a network cut, a failover) cannot read or
record anything a request needs: the move, the inbound message, the delivery of a
webhook. Such a request fails whole and changes nothing that counts, so it is answered
503 Service Unavailable with `Retry-After`, never 500: the mail gateway and the forge
deliver again, a load balancer sends the player to another node, a reader reloads. The
forge and the gateway are answered in JSON, a reader with the error page.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import ServiceUnavailable

from adjudicator.home.database import DatabaseError

log = logging.getLogger(__name__)

RETRY_AFTER = "10"  # seconds; a node's database is back, or it is out of the balancer, by then
UNAVAILABLE = "the database cannot be reached: try again later"
# The callers that are programs, answered in JSON as their endpoints always are.
PROGRAMS = ("/inbound/", "/webhooks/")


def install(app: Flask, *, several_nodes: bool) -> None:
    """Answer 503 for the database's errors of connection. The client library is only
    loaded in PostgreSQL mode, so its errors are only looked for there."""
    app.register_error_handler(DatabaseError, unavailable)
    if several_nodes:
        import psycopg  # PoolTimeout and a server's shutdown are OperationalErrors too

        app.register_error_handler(psycopg.OperationalError, unavailable)


def unavailable(error: Exception) -> tuple[Any, int, dict[str, str]]:
    log.warning("%s %s not served: %s: %s", request.method, request.path, UNAVAILABLE, error)
    headers = {"Retry-After": RETRY_AFTER}
    if request.path.startswith(PROGRAMS):
        return jsonify(error=UNAVAILABLE), 503, headers
    page = render_template("web/error.html", error=ServiceUnavailable(UNAVAILABLE))
    return page, 503, headers
