"""Inbound email: a mail gateway posts each received message, raw MIME, to /inbound/email.

The body is the message exactly as received (RFC 5322 bytes), at most
`max_inbound_bytes` long (413 beyond, found while reading: a chunked body is never
read further). `adjudicator.mail.incoming.handle_message` reads it: the
reply address's token says which game and player it is from, and the move in it is
adjudicated. The answer names no folder of the server (`adjudicator.mail.answers`).
"""

from __future__ import annotations

import logging

from flask import Blueprint, Response, jsonify

from adjudicator.games.repo import BranchLocked
from adjudicator.home import metrics
from adjudicator.mail.answers import answer, without_paths
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.outcomes import ForgeUnavailable
from adjudicator.mail.signatures import DnsUnavailable
from adjudicator.web.context import current_settings, read_body

bp = Blueprint("inbound", __name__, url_prefix="/inbound")
log = logging.getLogger(__name__)


@bp.post("/email")
def email() -> tuple[Response, int]:
    settings = current_settings()
    limit = settings.max_inbound_bytes
    raw = read_body(limit)
    if raw is None:
        metrics.inbound_refused("too-large")
        return jsonify(error=f"messages are limited to {limit} bytes"), 413
    if not raw.strip():
        metrics.inbound_refused("malformed")
        return jsonify(error="the body must be a raw email message"), 400
    try:
        result = handle_message(settings, raw)
    # The gateway posts it again: DNS or the forge away, or the game's branch locked by a
    # writer at work (or one that died: games/leftover_locks.py removes its lock in time).
    except (DnsUnavailable, ForgeUnavailable, BranchLocked) as error:
        log.warning("inbound mail not handled for now: %s", error)
        return jsonify(error=f"try again later: {without_paths(str(error), settings.home)}"), 503
    # Whoever can reach the endpoint reads this: no path of the server in it.
    return jsonify(result=answer(result, settings.home)), 200
