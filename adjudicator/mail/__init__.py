"""Play by email: reports out, moves in.

`tokens` makes each player's reply address; `outgoing` composes every message from the
views (reports, refusals, confirmations) and keeps the on-disk outbox with its retries;
`incoming` turns a player's reply into a move file adjudicated like any other (pushing it
at once to a forge-hosted game). Imports `games`, `forge` and `home`.
"""
