"""pamir's adjudicator: game repositories, the adjudication pipeline and the CLI.

One module per concern: `repo` (Git), `game` (a game at a commit, replay), `moves`,
`pipeline`, `outputs` and `reports` (what an adjudication writes), `rollback`, `verify`,
`hooks`, `history`, `cli`, `demo`.
"""
