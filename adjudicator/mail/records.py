"""The kinds of the mail's own JSON records that the outbox and the ledger keep.

Each is read through its kind (adjudicator/home/records.py), so that a record cut short or
edited into another shape is an error that names it. Their writers and readers are
adjudicator/mail/ledger.py (the ledger), adjudicator/mail/outgoing.py (the threads, the
accepted times, the retry and failure records beside outbox files) and
adjudicator/mail/outbox_table.py (a failure record, in PostgreSQL mode, as a column).
The bytes are those the service always wrote: see docs/email.md#what-is-kept-where.
"""

from __future__ import annotations

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
RETRY: RecordKind[Retry] = RecordKind("a retry record", Retry)
FAILURE: RecordKind[Failure] = RecordKind("a failure record", Failure)
