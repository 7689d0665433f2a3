# The two commands a newcomer needs: `make demo` and `make test`. `make test` sets up
# what the tests need: the venv, Debian's chromium and libcairo2 where it can (see
# `chromium` and `cairo`), and starts the local PostgreSQL server if it is stopped (see
# `postgres`).
# `make demo DEMO_ARGS="--wakhan"` plays two bots against Wakhan instead.
#
# The venv holds exactly the versions of the lock files in requirements/, checked against
# their hashes, so a new release of any package changes nothing here until `make lock`
# takes it (docs/development.md). `make test-latest` runs the suite with the newest
# releases instead, to see drift early; it gates nothing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOCK := requirements/dev.txt
LATEST_VENV := .venv-latest

.PHONY: demo test lint typecheck unit chromium cairo postgres bench clean catalogues messages \
	lock test-latest

# A venv made anew, so nothing installed before (or by hand) is left in it. Without
# build isolation: setuptools and Babel, which build the package, come from the lock too.
# LATEST=1 installs the newest releases the ranges in pyproject.toml allow instead.
$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv --clear $(VENV)
ifeq ($(LATEST),1)
	$(BIN)/pip install --quiet --upgrade pip setuptools babel
	$(BIN)/pip install --quiet --upgrade --upgrade-strategy eager -e '.[dev]'
else
	$(BIN)/pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
endif
	$(BIN)/pip check
	# Bytecode for the checkout, once: where PYTHONDONTWRITEBYTECODE is set, Python would
	# otherwise compile every module at every start (about 0.1 s of `pamir move`).
	$(BIN)/python -m compileall -q engine adjudicator
	touch $(STAMP)

# Refreshes the lock files to the newest releases that pyproject.toml allows: the
# development set first, then the runtime and build sets as subsets of it (same versions).
UV_COMPILE := $(BIN)/uv pip compile --quiet --universal --python-version 3.11 \
	--generate-hashes --custom-compile-command "make lock"
lock: $(STAMP)
	$(UV_COMPILE) --upgrade --extra dev pyproject.toml requirements/build.in -o $(LOCK)
	$(UV_COMPILE) -c $(LOCK) pyproject.toml -o requirements/runtime.txt
	$(UV_COMPILE) -c $(LOCK) requirements/build.in -o requirements/build.txt

# The suite with today's newest releases, in a venv of its own made anew each time.
test-latest:
	rm -rf $(LATEST_VENV)
	$(MAKE) test VENV=$(LATEST_VENV) LATEST=1

demo: $(STAMP)
	$(BIN)/pamir demo $(DEMO_ARGS)

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check engine adjudicator tests benchmarks
	$(BIN)/ruff format --check engine adjudicator tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) chromium cairo postgres catalogues
	$(BIN)/pytest

# The players' languages (docs/i18n.md). `make messages` extracts every marked message
# into the template catalogue and merges it into each language's messages.po;
# `make catalogues` compiles them (an error in a .po fails it, and so `make test`).
LOCALES := adjudicator/locale
KEYWORDS := -k _ -k N_ -k Unreadable:2 -k _to_creator:2 -k P -k PN:1,2 -k T -k words -k plural:1,2 -k gettext -k ngettext:1,2
messages: $(STAMP)
	$(BIN)/pybabel -q extract -F babel.cfg --no-default-keywords $(KEYWORDS) \
	  --sort-by-file --no-wrap --project pamir --copyright-holder "pamir" \
	  -o $(LOCALES)/messages.pot .
	$(BIN)/pybabel -q update -i $(LOCALES)/messages.pot -d $(LOCALES) --no-wrap --no-fuzzy-matching --ignore-obsolete

catalogues: $(STAMP)
	$(BIN)/pybabel -q compile --statistics -d $(LOCALES) || \
	  { echo "the catalogues do not compile (see above)"; exit 1; }

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

# CairoSVG draws the board's PNG for report mails and needs the cairo library at run time.
# As root with apt-get it is installed when missing; otherwise the picture tests skip, but
# under CI they fail (mail itself goes out without the picture).
cairo:
	@if ldconfig -p 2>/dev/null | grep -q 'libcairo\.so\.2 '; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing libcairo2 for the board's picture in mail"; \
	  { apt-get update -qq >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcairo2 >/dev/null; } || \
	    echo "could not install libcairo2: the picture tests skip, or fail under CI"; \
	else \
	  echo "no libcairo2: the picture tests skip, or fail under CI (apt-get install libcairo2)"; \
	fi

# The PostgreSQL-mode tests (tests/home/test_cluster.py) use the machine's server on
# 127.0.0.1:5432 and make a database of their own. A stopped Debian cluster is started
# here; without a server those tests skip, but under CI they fail.
postgres:
	@if command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; then \
	  :; \
	elif command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then \
	  echo "starting PostgreSQL for the cluster tests"; \
	  pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start || \
	    echo "could not start PostgreSQL: the cluster tests skip, or fail under CI"; \
	else \
	  echo "no PostgreSQL: the cluster tests skip, or fail under CI (apt-get install postgresql)"; \
	fi

bench: $(STAMP)
	$(BIN)/python benchmarks/playout.py

clean:
	rm -rf $(VENV) $(LATEST_VENV) .mypy_cache .pytest_cache .ruff_cache
