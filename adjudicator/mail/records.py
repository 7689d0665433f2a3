"""The kinds of the mail's own JSON records that the outbox and the ledger keep.

Each is read through its kind (adjudicator/home/records.py), so that a record cut short or
edited into another shape is an error that names it. Their writers and readers are
adjudicator/mail/ledger.py (the ledger, the inbound messages' records),
adjudicator/mail/threads.py (the threads), adjudicator/mail/outbox/ (the accepted times,
the retry and failure records beside outbox files; a failure record, in PostgreSQL mode,
as a column of the outbox's table).
The bytes are those the service always wrote: see docs/email.md#what-is-kept-where.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from adjudicator.home.records import RECORD_CONFIG, IsoTime, RecordKind


class Ledger(BaseModel):
    """`mail/ledger/GAME.json`: the last commit of the game whose mails were queued."""

    model_config = RECORD_CONFIG

    commit: str


class Thread(BaseModel):
    """One player's mail thread: the Message-ID of its first message and of its last."""

    model_config = RECORD_CONFIG

    root: str | None = None
    last: str | None = None


class Inbound(BaseModel):
    """`mail/inbound/GAME/HASH` (in PostgreSQL mode a row of `pamir_inbound_messages`): what
    became of an inbound message. `{}` (or an empty file) is one handled before records
    were kept; the fields come in the order the service adds them."""

    model_config = RECORD_CONFIG

    status: Literal["pending", "accepted", "refused"] | None = None
    # Written as the message is taken (`pending`): what its answer needs.
    message_id: str | None = None
    subject: str | None = None
    player: str | None = None
    text: str | None = None
    head: str | None = None  # the game's commit then: its move is looked for after it
    signature: str | None = None  # the `b=` of the DKIM signature that proved it
    # Accepted: the move's number and commit. Refused: why, and that in a phrase's data.
    number: int | None = None
    commit: str | None = None
    reason: str | None = None
    reason_phrase: Any = None  # adjudicator.home.translations.phrase_data


class Retry(BaseModel):
    """`outbox/pending/NAME.eml.retry.json`: how often a message failed, and when next."""

    model_config = RECORD_CONFIG

    attempts: int
    next_attempt: IsoTime
    last_error: str


class Failure(BaseModel):
    """`outbox/failed/NAME.eml.failed.json`: why the server refused a message for good."""

    model_config = RECORD_CONFIG

    reason: str
    recipients: list[str]
    failed_at: IsoTime
    game: str
    player: str


LEDGER: RecordKind[Ledger] = RecordKind("a mail ledger", Ledger)
# {player: thread}
THREADS: RecordKind[dict[str, Thread]] = RecordKind("a record of mail threads", dict[str, Thread])
# {message key: when the SMTP server accepted it}
ACCEPTED: RecordKind[dict[str, str]] = RecordKind(
    "a record of accepted reports", dict[str, IsoTime]
)
INBOUND: RecordKind[Inbound] = RecordKind(
    "an inbound message's record", Inbound, ensure_ascii=False
)
RETRY: RecordKind[Retry] = RecordKind("a retry record", Retry)
FAILURE: RecordKind[Failure] = RecordKind("a failure record", Failure)
