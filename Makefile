# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-slow test-all test-pytest typecheck bench-engine bench-leaderboard migrate demo clean backup restore

# The runtime set (requirements.txt, what the image installs) and the tools of tests, type checks
# and benchmarks (requirements-dev.txt, which includes it).
$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

venv: $(STAMP)

# `make test` is the fast lane: mypy, ruff, the import contracts (pyproject.toml), then every test not
# marked slow (browser, fault, integration and benchmark tests, solver sweeps, long hypothesis
# runs: tests/conftest.py).  PYTEST_MARKERS is
# its marker expression; set it to choose others, e.g. PYTEST_MARKERS='not servers' (.ci/run's
# server-less pass, slow tests included) or PYTEST_MARKERS= (everything, as `make test-all`).
# PYTEST_ARGS adds anything else (-k, -x, paths).  pytest keeps only the last -m it is given, so
# a -m in PYTEST_ARGS would silently replace PYTEST_MARKERS: that is refused.
# PYTEST_WORKERS is how many pytest-xdist processes share the tests (2, this project's machines'
# cores; 1 runs them in one process).  Every lane runs on two: each worker has a test database of
# its own (pytest-django) and, against Redis, a Redis database of its own
# (piramide_site/settings/test.py).
PYTEST_MARKERS ?= not slow
PYTEST_ARGS ?=
PYTEST_DURATIONS ?= --durations=15
PYTEST_WORKERS ?= 2
PYTEST_M = $(if $(strip $(PYTEST_MARKERS)),-m "$(PYTEST_MARKERS)")
PYTEST_N = $(if $(filter-out 0 1,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist worksteal)
define pytest_args_check
$(if $(filter -m -m%,$(PYTEST_ARGS)),$(error PYTEST_ARGS has its own -m, which would replace PYTEST_MARKERS: put the marker expression in PYTEST_MARKERS, e.g. PYTEST_MARKERS='not slow and not servers'))
endef

test: $(STAMP)
	$(pytest_args_check)
	$(PY) -m mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) -m pytest $(PYTEST_N) $(PYTEST_M) $(PYTEST_DURATIONS) $(PYTEST_ARGS)

# The slow tests alone, without mypy (narrow them with PYTEST_ARGS='tests/browser').
test-slow: $(STAMP)
	$(MAKE) test-pytest PYTEST_MARKERS=slow

test-pytest: $(STAMP)
	$(pytest_args_check)
	$(PY) -m pytest $(PYTEST_N) $(PYTEST_M) $(PYTEST_DURATIONS) $(PYTEST_ARGS)

# Everything, slow tests included (.ci/run's first pass, less its -m "not servers").
test-all: $(STAMP)
	$(MAKE) test PYTEST_MARKERS=

# The site on the embedded defaults (SQLite, in-memory channel layer, eager Celery tasks), or on
# Postgres / Redis / a Celery worker when DATABASE_URL and REDIS_URL are set.  uvicorn starts
# through piramide_site/serve.py, which gives it the settings' socket message limit.
HOST ?= 127.0.0.1
PORT ?= 8000
migrate: $(STAMP)
	$(PY) manage.py migrate --noinput

# A few proven-winnable race deals per preset, so races work at once (a few seconds of search,
# once); the web process tops the pools up after (races/pool.py).
RACE_DEALS ?= 5
demo: migrate
	$(PY) manage.py piramide_demo
	$(PY) manage.py races_pool_fill --size $(RACE_DEALS)

run: demo
	@echo "Piramide at http://$(HOST):$(PORT)/  (API docs at /api/docs/, admin at /admin/)"
	$(PY) -m piramide_site.serve --host $(HOST) --port $(PORT) --loop uvloop --http httptools

# Backups of the Postgres database DATABASE_URL names (docs/operations.md):
#   make backup [BACKUP_FILE=backups/<time>-<db>.dump]
#   make restore BACKUP_FILE=backups/<file>.dump [DATABASE_URL=postgres://.../<db>]
# restore replaces the tables of the target database (created if missing), then makes every
# leaderboard rebuild from the restored scores.
BACKUP_FILE ?=
backup: $(STAMP)
	$(PY) ops/pgbackup.py backup $(if $(BACKUP_FILE),--file "$(BACKUP_FILE)")

restore: $(STAMP)
	$(PY) ops/pgbackup.py restore $(if $(BACKUP_FILE),--file "$(BACKUP_FILE)")
	$(PY) manage.py leaderboards_invalidate

bench-leaderboard: $(STAMP)
	$(PY) bench/leaderboard.py

typecheck: $(STAMP)
	$(PY) -m mypy

bench-engine: $(STAMP)
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
