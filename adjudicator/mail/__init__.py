"""Play by email: reports out, moves in.

`tokens` makes each player's reply address. Out: `compose/` writes every message from the
views; `report_mails` and `notices` put them in the players' threads (`threads`) and queue
them in the `outbox`, which sends them over `smtp` and retries. In: `incoming` turns a
player's reply into a move file adjudicated like any other (pushing it at once to a
forge-hosted game); `ledger` queues the mails of each commit once. Imports `games`, `forge`
and `home`.
"""
