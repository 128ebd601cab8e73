# Two entry points, each creating .venv on first use:
#   make demo   -- set up and train the micrograd moons demo (plots go to out/)
#   make test   -- set up and run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench bench-quick system-deps clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[demo]"
	touch $@

$(VENV)/.test: pyproject.toml tests/mg010-requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[test]"
	$(BIN)/python -m pip install -q --no-deps --require-hashes --target $(VENV)/mg010 \
		-r tests/mg010-requirements.txt
	touch $@

demo: $(VENV)/.demo
	$(BIN)/micrograd demo moons --out out

system-deps:
	bash scripts/system-deps.sh

test: $(VENV)/.test system-deps
	$(BIN)/python -m pytest -n 2 -q

bench: $(VENV)/.test
	$(BIN)/python -m benchmarks

bench-quick: $(VENV)/.test
	$(BIN)/python -m benchmarks --quick

clean:
	rm -rf $(VENV) out .pytest_cache
