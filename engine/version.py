"""The engine's version, in a module of its own: `pamir --version` reads this file alone,
without running the package (which loads the card data and the state's checks)."""

__version__ = "0.1.0"  # recorded in each game's game.toml; replays need the same rules
