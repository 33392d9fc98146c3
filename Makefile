# The first two targets are all the set-up a fresh machine needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: report test quick-report install clean

report: $(STAMP)
	$(BIN)/vale-sim report

test: $(STAMP)
	$(BIN)/python -m pytest -q

quick-report: $(STAMP)
	$(BIN)/vale-sim report --quick

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache
