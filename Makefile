# The first two targets are all the set-up a fresh machine needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# numba compiles the fast engine and the spoil-odds engines on first use (~20 s
# and ~17 s on one core).  Compile them two at a time, before the first
# report; redone only when their sources change.
COMPILED := $(VENV)/.compiled
FAST_SOURCES := $(wildcard vale_sim/kernels/*.py vale_sim/games/mystic_vale/fast/*.py vale_sim/games/mystic_vale/spoil/*.py)

.PHONY: report test test-fast quick-report install clean compile serve

compile: $(COMPILED)

# Both games' reports at once (two processes, one per core), then results/index.html
# linking them.  The Mystic Lands report's progress goes to results/.report-mystic-lands.log.
report: $(STAMP) $(COMPILED)
	@mkdir -p results
	$(BIN)/vale-sim report --game mystic-lands 2> results/.report-mystic-lands.log & \
	pid=$$!; \
	$(BIN)/vale-sim report; \
	rc=$$?; wait $$pid; rc2=$$?; cat results/.report-mystic-lands.log >&2; \
	test $$rc -eq 0 && test $$rc2 -eq 0
	$(BIN)/vale-sim report --index results

# Every test (what CI's .ci/run calls), in two processes (pytest-xdist: one per core,
# each test file in one process).  test-fast: local work, without the tests marked
# slow (tests/conftest.py MARKS; docs/testing.md).
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

quick-report: $(STAMP) $(COMPILED)
	@mkdir -p results
	$(BIN)/vale-sim report --quick --game mystic-lands 2> results/.report-mystic-lands.log & \
	pid=$$!; \
	$(BIN)/vale-sim report --quick; \
	rc=$$?; wait $$pid; rc2=$$?; cat results/.report-mystic-lands.log >&2; \
	test $$rc -eq 0 && test $$rc2 -eq 0
	$(BIN)/vale-sim report --index results

install: $(STAMP)

# The designer's workbench in the browser (docs/workbench.md): http://127.0.0.1:8765/
serve: $(STAMP)
	$(BIN)/vale-sim serve

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache

# Both compilations at once (two processes); the first run of each then loads the cache.
$(COMPILED): $(STAMP) $(FAST_SOURCES)
	$(BIN)/vale-sim simulate --games 1 --summary-only --no-progress > /dev/null & \
	pid=$$!; \
	$(BIN)/vale-sim spoil-odds --deck thornhide --pushes 1 --engine compiled --json > /dev/null; \
	rc=$$?; wait $$pid && test $$rc -eq 0
	$(BIN)/vale-sim spoil-odds --deck thornhide --pushes 1 --simulate --games 1 --json > /dev/null
	touch $(COMPILED)
