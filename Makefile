# The two commands a newcomer needs: `make demo` and `make test`. `make test` sets up
# what the tests need: the venv, and Debian's chromium where it can (see `chromium`).
# `make demo DEMO_ARGS="--wakhan"` plays two bots against Wakhan instead.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit chromium bench clean

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

unit: $(STAMP) chromium
	$(BIN)/pytest

# The browser tests drive Debian's chromium. As root with apt-get (CI, a fresh machine)
# it is installed when missing; otherwise those tests skip, but under CI they fail.
chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium for the browser tests"; \
	  { apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	    echo "could not install chromium: the browser tests skip, or fail under CI"; \
	else \
	  echo "no chromium: the browser tests skip, or fail under CI (apt-get install chromium)"; \
	fi

bench: $(STAMP)
	$(BIN)/python benchmarks/playout.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
