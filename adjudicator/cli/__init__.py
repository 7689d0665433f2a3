"""The `pamir` command line (docs/cli.md), on top of every capability.

`parser` holds every command's arguments and runs one, importing only its handler:
`commands` holds the game and engine commands, `mail` `pamir outbox` and `pamir
inbound-email`, `service` `pamir serve`, `pamir scheduler`, `pamir pause` and `pamir
games`, `host` `pamir deadlines` and `pamir email`; `demo` plays `pamir demo`. May
import every other part of `adjudicator` and `engine`; nothing imports it.
"""

from __future__ import annotations

from adjudicator.cli.parser import main

__all__ = ["main"]
