# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test typecheck bench-engine clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(PY) -m mypy
	$(PY) -m pytest

typecheck: $(STAMP)
	$(PY) -m mypy

bench-engine: $(STAMP)
	$(PY) bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
