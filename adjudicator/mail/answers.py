"""What the service answers about an inbound message to whoever handed it over.

`POST /inbound/email` answers anyone who can reach it, and a mail server may put what
`pamir inbound-email` prints into a bounce to the message's sender: neither may show the
folders the service runs in. The outbox files queued in answer are named by their file
name alone (the same in `outbox/pending/`, `written/` or `sent/`), and every absolute
path in a reason is cut to its last part, PAMIR_HOME itself written so.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from adjudicator.mail.outcomes import InboundResult

# An absolute path of two parts or more, not inside a word or a URL (`https://host/a/b`).
ABSOLUTE = re.compile(r"(?<![\w.:/~-])/(?:[^\s/'\"`<>()]+/)+(?P<last>[^\s/'\"`<>()]*)")
HOME = "PAMIR_HOME"


def without_paths(text: str, home: Path) -> str:
    """`text` with PAMIR_HOME written as such and any other absolute path cut to its last
    part (`/srv/other/games/x` -> `x`)."""
    for where in sorted({str(home), str(home.resolve())}, key=len, reverse=True):
        text = text.replace(where, HOME)
    return ABSOLUTE.sub(lambda match: match.group("last") or "/", text)


def answer(result: InboundResult, home: Path) -> dict[str, Any]:
    """The outcome of an inbound message as JSON data, with no path of the server."""
    data = dataclasses.asdict(result)
    data["messages"] = [Path(path).name for path in result.messages]
    data["reason"] = without_paths(result.reason, home)
    return data
