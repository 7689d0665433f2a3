# The two commands a newcomer needs: `make demo` and `make test`.
# `make demo DEMO_ARGS="--wakhan"` plays two bots against Wakhan instead.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/pamir demo $(DEMO_ARGS)

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check engine adjudicator tests benchmarks
	$(BIN)/ruff format --check engine adjudicator tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/playout.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
