"""pamir's adjudicator: everything around the rules engine, one folder per capability.

The folders, from the bottom up; each imports only from those above it in this list (and
from `engine`, which imports nothing from here):

- `home`: the service's own data folder (PAMIR_HOME), its settings, safe file writes.
- `drawing`: pictures of a position: the board as SVG, card faces and card texts, drawn
  from views with nothing but the engine and the standard library.
- `games`: a game as a Git repository of move files: its format, the adjudication
  pipeline, reports, rollback, verify, history, and the registry of hosted games.
- `forge`: games hosted on a forge (GitHub, Gitea): keeping the service's clone in step.
- `mail`: reports and refusals by mail (the outbox), reply tokens, moves by email.
- `hooks`: the Git hooks of self-hosted bare game repositories.
- `schedule`: a game's clock, deadlines and timeouts, reminders, the scheduler process.
- `web`: the Flask service: pages, forge webhooks, inbound email over HTTP.
- `cli`: the `pamir` command line, on top of everything; nothing imports it.
"""
