# Commands (README):  make figures RESULTS=../shared/mteb-cache,  make test-fast (every change),
# make test (everything: what CI runs),  make docs RESULTS=../shared/mteb-cache (the site)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
RESULTS ?=
export STATIC_RTEB_RESULTS := $(RESULTS)
BATCH := $(VENV)/bin/static-rteb batch $(if $(RESULTS),--results "$(RESULTS)")

.PHONY: setup docs figures runs all-figures test test-all test-fast lint typecheck goldens bench bench-scale slurm-up slurm-down bench-encode reproduce-full lab lab-check clean

# uv installs the pinned set (its version is pyproject.toml's dev pin) from the package
# sources pip is configured with (tools/uv_install_args.py): about 2x faster than pip
# (benchmarks/results/install.md). INSTALLER=pip installs with pip instead.
# --compile-bytecode writes every module's .pyc at install, as pip does: uv leaves it to
# the first import, and where nothing may write it then (PYTHONDONTWRITEBYTECODE, set on
# this project's CI machines; a read-only install) every process compiled mteb, torch and
# the rest again, about 20 s of CPU per process (34 s against 14 s for the notebooks' imports).
INSTALLER ?= uv
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
ifeq ($(INSTALLER),pip)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[runs,dev,docs]"
else
	$(PY) -m pip install --quiet "$$(grep -o 'uv==[0-9.]*' pyproject.toml)"
	UV_LINK_MODE=copy $(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) \
	  $$($(PY) tools/uv_install_args.py) -e ".[runs,dev,docs]"
endif
	touch $@

# `make setup` as the goal ends by printing the next commands (not when another target
# depends on it): the console script is in .venv/bin, not on PATH until it is activated.
setup: $(VENV)/.installed  ## create .venv and install the pinned dependencies
	@$(if $(filter setup,$(MAKECMDGOALS)),printf '%s\n' \
	  'next: source $(VENV)/bin/activate   (puts static-rteb on PATH; docs/getting_started.md)' \
	  '      static-rteb --help' \
	  '      make figures RESULTS=../shared/mteb-cache',:)

# The notebook pages are the figures batch's executed copies (build/notebooks/figures/):
# the batch runs first for those missing, older than their source or failed (tools/docs_notebooks.py).
docs: setup  ## the documentation site from docs/ into build/docs (fails on warnings); runs the figures batch for stale notebook pages
	@stale="$$($(PY) tools/docs_notebooks.py --stale)" || exit $$?; \
	if [ -n "$$stale" ]; then \
	  echo "make docs: running the figures batch for $$stale (executed copy missing, stale or failed)"; \
	  $(BATCH) --profile figures --jobs $(JOBS) --only $$stale || exit $$?; \
	fi
	$(PY) -m sphinx -W --keep-going -q -b html docs build/docs

# The figures batch runs JOBS notebooks at once, each in its own kernel (JOBS=1: one at a time).
JOBS ?= 2
figures: setup  ## the blog's tables and figures (params/figures.yaml, minutes): regenerates figures/
	$(BATCH) --profile figures --jobs $(JOBS)

runs: setup  ## the model-running notebooks (params/runs.yaml); finished runs in data/runs are reused
	$(BATCH) --profile runs

all-figures: setup  ## everything: `make runs`, then `make figures` (a failure in one does not skip the other)
	$(BATCH) --profile runs; runs=$$?; $(BATCH) --profile figures --jobs $(JOBS) && exit $$runs

# Both test targets run pytest-xdist workers, a whole file per worker at a time (module
# fixtures are made once; the SLURM cluster, the JupyterLab server and the docs build each
# belong to one file); files with slow tests are handed out first (tests/conftest.py), so
# xdist's own order (by number of tests) is turned off. WORKERS=1 for one process.
# Measured in a fresh clone on 2 idle cores through .ci/run: make test 1,288 s, and 614-704 s
# on a faster 2-core machine, 574-650 s there since the fork server preloads the encoders
# (docs/development.md); the xslow tier that make test-all adds, 3,257 s on one process at load 4-5.
# The distilled test model is kept here across runs (tests/_run_fixtures.py); `make clean` drops it.
STATIC_RTEB_TEST_MODELS ?= $(CURDIR)/build/test-models
WORKERS ?= 2
FAST_WORKERS ?= $(WORKERS)
PYTEST := STATIC_RTEB_TEST_MODELS="$(STATIC_RTEB_TEST_MODELS)" $(PY) -m pytest -q \
  --dist loadfile --no-loadscope-reorder

test: lint typecheck  ## lint + type check + the test suite, slow tests too, on 2 workers (what .ci/run calls); the exhaustive sweeps on a sample
	$(PYTEST) -n $(WORKERS) -m "not xslow" --durations=30

test-all: lint typecheck  ## `make test` and the tests marked xslow: the exhaustive sweeps whole (every file, every model, every signal with one worker)
	$(PYTEST) -n $(WORKERS) --durations=30

test-fast: lint typecheck  ## every change: lint + type check + the tests not marked slow, on 2 workers (about 5 minutes on 2 cores)
	$(PYTEST) -n $(FAST_WORKERS) -m "not slow" --durations=15

lint: setup  ## ruff: lint and formatting (notebooks are lint-only; see pyproject.toml)
	$(VENV)/bin/ruff check analysis tests benchmarks tools notebooks
	$(VENV)/bin/ruff format --check analysis tests benchmarks tools

typecheck: setup  ## mypy on analysis/ (config in pyproject.toml)
	$(VENV)/bin/mypy

goldens: setup  ## rewrite tests/golden/ from the results (review the diff before committing)
	$(PY) tools/regen_goldens.py $(if $(RESULTS),--results "$(RESULTS)")

bench: setup  ## loader speed, idle and beside 2 CPU-bound processes: benchmarks/results/loader.md
	$(PY) benchmarks/bench_loader.py --busy 0 2 $(if $(RESULTS),--results "$(RESULTS)")

LAB_ARGS ?=
lab: setup  ## JupyterLab at the repo root: notebooks/*.py open as notebooks; RESULTS=... is passed to them
	JUPYTER_CONFIG_PATH="$(CURDIR)/jupyter-config$${JUPYTER_CONFIG_PATH:+:$$JUPYTER_CONFIG_PATH}" \
	  PYTHONHASHSEED=0 $(VENV)/bin/jupyter lab --ServerApp.root_dir="$(CURDIR)" \
	  --ContentsManager.preferred_dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

lab-check: setup  ## every notebook, incl. the model-running ones, run in headless Chromium (slow; not in CI)
	STATIC_RTEB_LAB_ALL=1 $(PY) -m pytest -q -p no:cacheprovider -m slow tests/site/test_lab.py

clean:
	rm -rf build .pytest_cache

reproduce-full: setup  ## MiniLM on every shared task incl. SciFact and Banking77 (slow)
	STATIC_RTEB_FULL=1 $(PY) -m pytest -q tests/runs/test_reproduction.py

bench-scale: setup  ## sequential vs local workers vs a SLURM array: benchmarks/results/scale.md
	$(PY) benchmarks/bench_scale.py --start-slurm

slurm-up:  ## a one-node SLURM cluster on this machine (root; installs slurm with apt if missing)
	.ci/slurm.sh start

slurm-down:  ## stop the daemons slurm-up started
	.ci/slurm.sh stop

bench-encode: setup  ## encode throughput and wall time, written to benchmarks/results/encode.md
	$(PY) benchmarks/bench_encode.py
