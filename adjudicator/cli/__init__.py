"""The `pamir` command line (docs/cli.md), on top of every capability.

`commands` builds the parser and holds the game and engine commands; `mail` adds
`pamir outbox` and `pamir inbound-email`, `service` adds `pamir serve`, `pamir scheduler`
and `pamir pause`; `demo` plays `pamir demo`. May import every other part of
`adjudicator` and `engine`; nothing imports it.
"""

from __future__ import annotations

from adjudicator.cli.commands import main

__all__ = ["main"]
