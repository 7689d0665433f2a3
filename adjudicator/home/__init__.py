"""The service's own data: the PAMIR_HOME folder, the settings, and safe file writes.

`settings` merges the defaults, `PAMIR_HOME/pamir.toml` and `PAMIR_*` variables; `paths`
reads PAMIR_HOME (for the settings) and names the folders under it; `files` writes a file
so a crash leaves the old one or the new one. Imports nothing else from `adjudicator`:
every other capability builds on it.
"""
