"""The Jinja templates of reports, mails and pages.

This folder is installed as the package `pamir_templates` (pyproject.toml maps it), so the
templates ship inside a wheel and are found with `importlib.resources`, from any folder.
"""
