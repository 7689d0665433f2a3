"""A game as a Git repository of move files, and adjudicating it.

`repo` (Git access; `refs` moves a ref as git does), `gamefile` (game.toml), `moves`
(move files), `seeds` (commit-reveal), `snapshot` (a game at a commit, replayed from its
seed), `deadlines` (deadline arithmetic of game.toml's [deadlines]), `reports` and
`outputs` (what an adjudication writes), `pipeline` (submission -> engine -> one commit),
`rollback`, `verify`, `history`, and `registry` (the games under PAMIR_HOME and one lock
per game). Imports `engine` and `adjudicator.home` only: it knows nothing of mail, forges,
the scheduler or the web.
"""
