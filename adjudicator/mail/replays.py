"""A message captured and sent again is the same message, whatever was added to it.

A message handled before is recognised by its inbound key (`ledger.inbound_key`): a hash
of its Message-ID. Under `mail_auth = "dkim"` that only holds if nobody can give a
captured, validly signed message a new Message-ID while its signature still verifies:

- a second Message-ID put on top: DKIM verifies the last instance of a field (RFC 6376
  section 5.4.2) while the email package reads the first, so a message with more than one
  of the fields that RFC 5322 (section 3.6) allows once is refused in every mode
  (`repeated`): Message-ID, From, To, Subject and Date;
- a Message-ID the signer did not sign, replaced: the signature that passes must list
  `message-id` among its signed fields (`h=`), so that another one breaks it;
- lines added to a body signed with `l=` (a signature of its first bytes only), such as a
  second move under the first: a signature with `l=` does not count at all.
  (`signatures.verify_signatures` applies both.)

The passing signature's `b=` value (the signature itself) is kept in the message's
inbound record. It names the message as surely as its Message-ID: two messages with the
same `b=` have the same signed fields, Message-ID among them, so they have one inbound
key. A signed message without a Message-ID (its absence is signed) is known by its `b=`
instead of its bytes, which anyone could change outside the signed parts.
"""

from __future__ import annotations

from adjudicator.mail.envelope import Envelope

SINGLE = ("Message-ID", "From", "To", "Subject", "Date")


def repeated(envelope: Envelope) -> str | None:
    """Which field the message has more than once that RFC 5322 allows once, or None."""
    for name in SINGLE:
        count = envelope.count(name)
        if count > 1:
            return f"{count} {name} fields (RFC 5322 allows one)"
    return None
