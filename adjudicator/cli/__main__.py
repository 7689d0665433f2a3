"""`python -m adjudicator.cli ...`: the same as `pamir ...` (the Git hooks run it so)."""

from adjudicator.cli import main

raise SystemExit(main())
