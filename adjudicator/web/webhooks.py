"""Push webhooks from GitHub and Gitea: a player pushed move files to a forge-hosted game.

Each delivery is checked against the forge's shared secret (HMAC-SHA256 of the body,
compared in constant time). Only pushes to `main` matter; other events and branches are
acknowledged and ignored. The game is the one whose service clone tracks the pushed
repository (`adjudicator.forge.remote.find_game`). Under the game's lock the clone is brought up
to date, the moves adjudicated and the adjudicator commits pushed back
(`adjudicator.forge.remote.update`). Forges deliver at least once: a delivery id already handled
is acknowledged without doing anything again.

Responses: 200 handled (or a repeated delivery), 202 ignored, 400 unreadable, 401 no
signature, 403 wrong signature or no secret configured, 404 no such game, 413 too big,
500 the game could not be updated (the forge may deliver again later), 503 the game cannot
be read and needs its host (it is marked so, and the operator is told). The signature
header is looked at before the body is read, and the body is read at most MAX_BODY_BYTES
far, chunked or not.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from flask import Blueprint, Response, jsonify, request
from pydantic import BaseModel, ConfigDict, ValidationError

from adjudicator.forge import notices, remote, transport
from adjudicator.forge.deliveries import deliveries
from adjudicator.games import needs_host
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.registry import game_lock, kept_game, mark_needs_host
from adjudicator.games.repo import REF, RepoError
from adjudicator.games.snapshot import GameError
from adjudicator.home import backend
from adjudicator.home.settings import Settings
from adjudicator.mail import ledger, outbox
from adjudicator.mail.answers import without_paths
from adjudicator.mail.operator import alert_operator
from adjudicator.web.context import current_settings, read_body

MAX_BODY_BYTES = 5_000_000
DELIVERY_ID = re.compile(r"^[A-Za-z0-9._:-]{1,100}$")

bp = Blueprint("webhooks", __name__, url_prefix="/webhooks")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Forge:
    """How one forge names its headers and writes its signature."""

    name: str
    event_header: str
    delivery_header: str
    signature_header: str
    signature_prefix: str

    def secret(self, settings: Settings) -> str | None:
        held = settings.github_secret if self.name == "github" else settings.gitea_secret
        return None if held is None else held.get_secret_value()


GITHUB = Forge("github", "X-GitHub-Event", "X-GitHub-Delivery", "X-Hub-Signature-256", "sha256=")
GITEA = Forge("gitea", "X-Gitea-Event", "X-Gitea-Delivery", "X-Gitea-Signature", "")


class PushRepository(BaseModel):
    """The parts of the pushed repository we use (forges send many more)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    full_name: str
    clone_url: str
    ssh_url: str | None = None
    html_url: str | None = None


class PushEvent(BaseModel):
    """A push event, in the format GitHub and Gitea share."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    ref: str
    after: str = ""
    deleted: bool = False
    repository: PushRepository


def signature(secret: str, body: bytes) -> str:
    """The hex HMAC-SHA256 of a body under a shared secret, as forges compute it."""
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def _reply(status: int, **fields: Any) -> tuple[Response, int]:
    return jsonify(fields), status


def _payload(body: bytes) -> PushEvent:
    """The push event, sent as JSON or (a forge option) as a form field `payload`."""
    if request.mimetype == "application/x-www-form-urlencoded":
        values = parse_qs(body.decode("utf-8"), strict_parsing=False).get("payload", [""])
        body = values[0].encode("utf-8")
    return PushEvent.model_validate_json(body)


def _handle(forge: Forge) -> tuple[Response, int]:
    settings = current_settings()
    secret = forge.secret(settings)
    if not secret:
        return _reply(403, error=f"no {forge.name} webhook secret is configured on this service")
    given = request.headers.get(forge.signature_header)
    if not given:  # refused before a byte of the body is read
        return _reply(401, error=f"the delivery has no {forge.signature_header} header")
    body = read_body(MAX_BODY_BYTES)
    if body is None:
        return _reply(413, error="the delivery is too large")
    expected = forge.signature_prefix + signature(secret, body)
    if not hmac.compare_digest(given.strip().encode(), expected.encode()):
        return _reply(403, error="the signature does not match the configured secret")

    event = request.headers.get(forge.event_header, "")
    if event != "push":
        return _reply(202, ignored=f"{event or 'unnamed'} events are not used")
    delivery = request.headers.get(forge.delivery_header)
    if delivery is not None and not DELIVERY_ID.match(delivery):
        return _reply(400, error=f"{forge.delivery_header} is not a delivery id")
    try:
        push = _payload(body)
    except (ValidationError, ValueError, UnicodeDecodeError) as error:
        return _reply(400, error=f"not a push event: {str(error).splitlines()[0]}")
    if push.ref != REF or push.deleted:
        return _reply(202, ignored=f"{push.ref}: only pushes to the main branch are adjudicated")

    urls = [u for u in (push.repository.clone_url, push.repository.ssh_url) if u]
    game_id = remote.find_game(settings, push.repository.full_name, urls)
    if game_id is None:
        return _reply(404, error=f"no game here tracks {push.repository.full_name}")
    return _synchronize(settings, forge, game_id, delivery)


def _synchronize(
    settings: Settings, forge: Forge, game_id: str, delivery: str | None
) -> tuple[Response, int]:
    key = f"{forge.name}:{delivery}" if delivery else None
    log_ = deliveries(settings)
    with game_lock(settings, game_id):
        repo = kept_game(settings, game_id)
        try:
            # The mails of the game's commits so far (a handling that died may have left
            # some unqueued), before anything new.
            ledger.reconcile(settings, repo)
            if key is not None and log_.seen(key):  # the same answer as the first time
                if not backend.of(settings).several_nodes:
                    return _reply(
                        200,
                        **(log_.outcome(key) or {"game": game_id, "delivery": delivery}),
                        duplicate=True,
                    )
                # PostgreSQL mode: the node that answered it first may have died after its
                # push and before it queued the mails, and this node's clone lacks its
                # commits: bring it up to date, queue what is missing, deliver below.
                ledger.announce(settings, repo, ledger.forge_update(settings, repo))
                outcome = log_.outcome(key) or {"game": game_id, "delivery": delivery}
                outcome["duplicate"] = True
            else:
                done = ledger.forge_update(settings, repo)
                outcome = _outcome(game_id, delivery, done)
                if key is not None:
                    log_.remember(key, outcome)
                ledger.announce(settings, repo, done)
            needs_host.clear(settings, game_id)  # it read and adjudicated: fine again
        except (GameError, GameFileError) as error:
            # The game cannot be read: it needs its host, and nothing else is affected.
            mark_needs_host(settings, game_id, repo, str(error))
            _tell_operator(settings)
            # The forge shows the answer in its delivery log: no folder of the server in it.
            said = without_paths(str(error), settings.home)
            return _reply(503, game=game_id, error=f"the game needs its host: {said}")
        except (transport.RemoteError, RepoError) as error:
            log.error("delivery %s for game %s failed: %s", delivery, game_id, error)
            return _reply(500, game=game_id, error="the game could not be updated; see the log")
    _deliver(settings)  # with the lock released: a slow mail server holds up no game
    return _reply(200, **outcome)


def _outcome(game_id: str, delivery: str | None, done: notices.Update) -> dict[str, Any]:
    return {
        "game": game_id,
        "delivery": delivery,
        "adjudicated": [d.number for d in done.results],
        "refused": [r.number for r in done.refused],
        "attempts": done.attempts,
        "restored": [b.commit for b in done.restored],
        "held": done.held,
    }


def _deliver(settings: Settings) -> None:
    try:
        outbox.deliver(settings)
    except Exception:  # the outbox keeps the messages; the scheduler's outbox job retries
        log.exception("delivering the outbox failed")


def _tell_operator(settings: Settings) -> None:
    try:
        alert_operator(settings)
    except Exception:  # the mail is written again on the scheduler's next poll
        log.exception("writing the mail about games that need their host failed")


@bp.post("/github")
def github() -> tuple[Response, int]:
    return _handle(GITHUB)


@bp.post("/gitea")
def gitea() -> tuple[Response, int]:
    return _handle(GITEA)
