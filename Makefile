# The README's commands. Each one installs what it needs into .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench clean browser chaos fuzz load

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/condorsim demo

lint: $(STAMP)
	$(BIN)/ruff check condorsim daemons tests benchmarks
	$(BIN)/mypy condorsim daemons

# Debian's Chromium, for the report's browser test (never a downloaded browser build).
browser:
	@command -v chromium >/dev/null || (apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

test: lint browser
	CONDOR_CONFIG=/dev/null $(BIN)/pytest

bench: $(STAMP)
	CONDOR_CONFIG=/dev/null $(BIN)/python -m benchmarks

# docs/reliability.md: daemons killed at random moments over 100 seeds; a million mutated
# frames to a live pool; 50 concurrent tool clients for a minute.
chaos: $(STAMP)
	CONDOR_CONFIG=/dev/null $(BIN)/python -m condorsim.reliability chaos --seeds 100

fuzz: $(STAMP)
	CONDOR_CONFIG=/dev/null $(BIN)/python -m condorsim.reliability fuzz --frames 1000000

load: $(STAMP)
	CONDOR_CONFIG=/dev/null $(BIN)/python -m condorsim.reliability load --clients 50 --seconds 60

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
