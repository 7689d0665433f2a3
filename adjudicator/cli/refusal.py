"""How a `pamir` command refuses its input: `Refused`, exit status 2 (docs/cli.md)."""

from __future__ import annotations

EXIT_REFUSED = 2  # bad input: nothing was applied
EXIT_DIVERGED = 3  # `pamir verify` found a commit that does not replay
EXIT_TEMPFAIL = 75  # sysexits' EX_TEMPFAIL: the mail server tries again later


class Refused(Exception):
    """Input the command refuses; the message goes to standard error, exit status 2."""
