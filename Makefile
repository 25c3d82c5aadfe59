# The README's commands. Each one installs what it needs into .venv first.
# The venv's interpreter: the fastest CPython 3.11+ build on the machine (a distribution's,
# built with profile-guided optimisation, runs the pool ~12% faster than an unoptimised
# build of the same version: tools/pick_python.py, docs/performance.md). `make setup
# PY=python3` takes the one on PATH instead. Only read when the venv is made.
PY ?= $(shell python3 tools/pick_python.py 2>/dev/null || echo python3)
VENV := .venv
BIN := $(VENV)/bin
# mypy's cache is kept in the venv (ignored by git, made before any test runs): see test.
MYPY := $(BIN)/mypy --cache-dir $(VENV)/mypy-cache
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench clean browser chaos fuzz load bytecode

$(STAMP): pyproject.toml
	test -d $(VENV) || { echo "making $(VENV) with $(PY)"; $(PY) -m venv $(VENV); }
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

# Every pool is a handful of Python processes, and each one imports the whole package: with
# PYTHONDONTWRITEBYTECODE set (as it is on the project's machines) each would compile it from
# source every time (about 0.3 CPU s of a daemon's 1 s start). Write the bytecode once here;
# compileall skips what is up to date, and an edited file is simply compiled in memory again.
# The knob table's checked rows are kept the same way (condorsim/config/_knobs.py).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q condorsim daemons benchmarks >/dev/null
	$(BIN)/python -c 'from condorsim.config._knobs import write_table_cache; write_table_cache()'

demo: bytecode
	$(BIN)/condorsim demo

lint: $(STAMP)
	$(BIN)/ruff check condorsim daemons tests benchmarks tools
	$(MYPY) condorsim daemons

# Debian's Chromium, for the report's browser test (never a downloaded browser build).
browser:
	@command -v chromium >/dev/null || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

# The tests run in two pytest-xdist workers (pyproject.toml, docs/performance.md). mypy without
# its cache (a clean clone, as in CI) takes about a minute of one core: it runs beside the
# tests instead of before them, and what it says is printed after them. Its cache is in the
# venv so that what it writes meanwhile is not taken for a file a test left in the checkout.
test: browser bytecode
	$(BIN)/ruff check condorsim daemons tests benchmarks tools
	@typed=$$(mktemp) && { $(MYPY) condorsim daemons >$$typed 2>&1 & mypy=$$!; } && \
	CONDOR_CONFIG=/dev/null $(BIN)/pytest; tests=$$?; \
	wait $$mypy; mypy=$$?; echo "$(MYPY) condorsim daemons"; cat $$typed; rm -f $$typed; \
	test $$tests -eq 0 && test $$mypy -eq 0

bench: bytecode
	CONDOR_CONFIG=/dev/null $(BIN)/python -m benchmarks

# docs/reliability.md: daemons killed at random moments over 100 seeds; a million mutated
# frames to a live pool; 50 concurrent tool clients for a minute.
chaos: bytecode
	CONDOR_CONFIG=/dev/null $(BIN)/python -m condorsim.reliability chaos --seeds 100

fuzz: bytecode
	CONDOR_CONFIG=/dev/null $(BIN)/python -m condorsim.reliability fuzz --frames 1000000

load: bytecode
	CONDOR_CONFIG=/dev/null $(BIN)/python -m condorsim.reliability load --clients 50 --seconds 60

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
