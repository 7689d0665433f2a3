"""Games hosted on a forge (GitHub, Gitea): the service's clone of each, kept in step.

`remote` fetches what players pushed, adjudicates it, pushes the adjudicator's commits and
refuses rewritten history, through Git processes (`transport`); `recovery` puts back what
a push may not change, `notices` say what an update did, `records` hold the last commit
adjudicated, `newgames` sets a game up; `contact` remembers whether the last fetch reached
the forge, for `/healthz`. Imports `games` and `home`; telling the players what an update
did is the caller's part (`adjudicator.mail.ledger.announce`).
"""
