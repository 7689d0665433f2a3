# The two commands a newcomer needs: `make demo` and `make test`. `make test` sets up
# what the tests need: the venv, Debian's chromium and libcairo2 where it can (see
# `chromium` and `cairo`), and starts the local PostgreSQL server if it is stopped (see
# `postgres`).
# `make demo DEMO_ARGS="--wakhan"` plays two bots against Wakhan instead.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit chromium cairo postgres bench clean catalogues messages

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	# Bytecode for the checkout, once: where PYTHONDONTWRITEBYTECODE is set, Python would
	# otherwise compile every module at every start (about 0.1 s of `pamir move`).
	$(BIN)/python -m compileall -q engine adjudicator
	touch $(STAMP)

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
KEYWORDS := -k _ -k N_ -k P -k PN:1,2 -k T -k words -k plural:1,2 -k gettext -k ngettext:1,2
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

# The PostgreSQL-mode tests (tests/test_cluster.py) use the machine's server on
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
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
