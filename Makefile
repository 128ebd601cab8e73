# Two entry points, each creating .venv on first use:
#   make demo   -- set up and train the micrograd moons demo (plots go to out/)
#   make test   -- set up and run the whole test suite
# and, for development:
#   make test-fast -- the tests without the slow, browser, notebook and checker-sandbox
#                     markers (pyproject.toml): the quick check while you work
#   make docs   -- build the docs site with `mkdocs build --strict` into site/
#   make lint   -- ruff and mypy with the settings in pyproject.toml (needs no `make test`)
#   make bench  -- every benchmark workload W1-W10 in one run, rewriting docs/benchmarks.md
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-fast bench bench-quick docs lint system-deps clean

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

$(VENV)/.docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[docs]"
	touch $@

$(VENV)/.lint: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[lint]"
	touch $@

demo: $(VENV)/.demo
	$(BIN)/micrograd demo moons --out out

system-deps:
	bash scripts/system-deps.sh

test: $(VENV)/.test system-deps
	$(BIN)/python -m pytest -n 2 -q

test-fast: $(VENV)/.test
	$(BIN)/python -m pytest -n 2 -q -m "not slow and not browser and not notebook and not checker"

# The ratios against torch must be measured with numpy's BLAS as a user's machine runs it.
# The suite removes OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE from its benchmark processes itself
# (the report names the kernel that ran), but say so, so that the command can be fixed.
# Run as: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE make bench (~30 min on 2 quiet cores)
bench: $(VENV)/.test
	@if [ -n "$${OPENBLAS_CORETYPE+set}$${OPENBLAS_L2_SIZE+set}" ]; then \
		echo "WARNING: OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE are set ($${OPENBLAS_CORETYPE-unset}/$${OPENBLAS_L2_SIZE-unset}): they pin numpy to another BLAS kernel than a user's machine runs. The suite unsets them for its benchmark processes; run as: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE make bench" >&2; \
	fi
	$(BIN)/python -m benchmarks

bench-quick: $(VENV)/.test
	$(BIN)/python -m benchmarks --quick

# The API pages are read from src/ without importing it, so no other extra is needed.
docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site

# Both tools run even when the first finds something, so one run shows every finding.
lint: $(VENV)/.lint
	@status=0; \
	$(BIN)/python -m ruff check src tests benchmarks tools || status=1; \
	$(BIN)/python -m mypy || status=1; \
	exit $$status

clean:
	rm -rf $(VENV) out .pytest_cache
