# Two commands (README):  make figures RESULTS=../shared/mteb-cache   and   make test
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
RESULTS ?=
PROFILE ?= full
export STATIC_RTEB_RESULTS := $(RESULTS)

.PHONY: setup figures test lint bench bench-encode reproduce-full lab clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[runs,dev]"
	touch $@

setup: $(VENV)/.installed  ## create .venv and install the pinned dependencies

figures: setup  ## run every notebook (params/$(PROFILE).yaml): regenerates figures/
	$(PY) -m analysis.batch --profile $(PROFILE) $(if $(RESULTS),--results "$(RESULTS)")

test: setup  ## lint + the whole test suite (what .ci/run calls)
	$(VENV)/bin/ruff check analysis tests benchmarks tools notebooks
	$(PY) -m pytest -q

bench: setup  ## speed benchmarks, written to benchmarks/results/
	$(PY) benchmarks/bench_loader.py $(if $(RESULTS),--results "$(RESULTS)")

lab: setup  ## JupyterLab on the notebooks (jupytext opens the .py files as notebooks)
	$(VENV)/bin/jupyter lab notebooks

clean:
	rm -rf build .pytest_cache

reproduce-full: setup  ## MiniLM on every shared task incl. SciFact and Banking77 (slow)
	STATIC_RTEB_FULL=1 $(PY) -m pytest -q tests/test_reproduction.py

bench-encode: setup  ## encode throughput and wall time, written to benchmarks/results/encode.md
	$(PY) benchmarks/bench_encode.py
