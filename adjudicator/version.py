"""pamir's version, as pyproject.toml gives it (tests/project/test_packaging.py checks that the
two agree): `pamir --version` prints it without importing `importlib.metadata`, which
loads the email package and costs about 50 ms of start-up."""

__version__ = "0.1.0"
