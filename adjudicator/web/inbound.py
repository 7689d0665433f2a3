"""Inbound email: a mail gateway posts each received message, raw MIME, to /inbound/email.

The body is the message exactly as received (RFC 5322 bytes), at most
`max_inbound_bytes` long (413 beyond). `adjudicator.mailin.handle_message` reads it: the
reply address's token says which game and player it is from, and the move in it is
adjudicated.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

from flask import Blueprint, Response, jsonify, request

from adjudicator.files import optional_module
from adjudicator.web import current_settings

bp = Blueprint("inbound", __name__, url_prefix="/inbound")
log = logging.getLogger(__name__)


def as_json(result: Any) -> Any:
    """What handle_message returned, as JSON-ready data, whatever its kind."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        data: Any = dataclasses.asdict(result)
    elif hasattr(result, "model_dump"):
        data = result.model_dump(mode="json")
    elif result is None or isinstance(result, str | int | float | bool | list | dict):
        data = result
    else:
        data = str(result)
    return json.loads(json.dumps(data, default=str))


@bp.post("/email")
def email() -> tuple[Response, int]:
    settings = current_settings()
    limit = settings.max_inbound_bytes
    if (request.content_length or 0) > limit:
        return jsonify(error=f"messages are limited to {limit} bytes"), 413
    raw = request.stream.read(limit + 1)
    if len(raw) > limit:
        return jsonify(error=f"messages are limited to {limit} bytes"), 413
    if not raw.strip():
        return jsonify(error="the body must be a raw email message"), 400
    mailin = optional_module("adjudicator.mailin")
    if mailin is None:
        return jsonify(error="this service does not read email"), 503
    result = mailin.handle_message(settings, raw)
    return jsonify(result=as_json(result)), 200
