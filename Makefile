# make setup: idempotent set-up on a fresh machine (.venv, pinned packages, the package itself
#             in editable mode with its command, tdbg (pyproject.toml; it builds the C engine too),
#             the C inference programs)
# make test:  setup, then the test suite without the tests marked slow (long oracle and learning runs)
# make test-all: setup, then every test (what .ci/run runs)
# make setup-ray: optional, Ray for --backend ray (requirements-ray.txt)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CORE_SO := tdbg/game/.built

.PHONY: setup setup-ray test test-all bench clean gnubg demo lint

DEMO_MODEL ?= best_models/dmp_256x3_live.pt

setup: $(VENV)/.installed $(CORE_SO) c_inference/tdbg_move c_inference/tdbg_play

$(VENV)/.installed: requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	touch $@

setup-ray: setup $(VENV)/.ray-installed

$(VENV)/.ray-installed: requirements-ray.txt $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-ray.txt
	touch $@

$(CORE_SO): $(VENV)/.installed c_engine/bgcore.c c_engine/bgcore.h c_engine/mlp_lowp.c c_engine/mlp_lowp.h c_engine/build_cffi.py
	$(PY) c_engine/build_cffi.py
	touch $@

c_inference/tdbg_move c_inference/tdbg_play &: c_inference/*.c c_inference/*.h c_engine/bgcore.c c_engine/bgcore.h
	$(MAKE) -C c_inference

test: setup
	$(PY) -m pytest -q tests -m "not slow"

test-all: setup
	$(PY) -m pytest -q tests

# ruff (lint, then the format check) over the code and mypy over the library; pyproject.toml holds
# the rule set and mypy's settings.  Ray is installed first so that mypy checks the Ray backend
# against Ray's own types, the same way wherever it runs (without Ray the import is untyped and
# wrong calls into it pass unseen)
lint: setup-ray $(VENV)/.lint-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

$(VENV)/.lint-installed: requirements-dev.txt $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# the real GNU Backgammon binary for gnubg_external.py and gnubg_eval.py: 1.08.003 (the seed's
# opponent, weights md5 14184acc...) built from Debian 13's source package into .gnubg/1.08.003;
# a second run does nothing.  Debian 12's gnubg 1.07.001 stays usable with --gnubg /usr/games/gnubg.
gnubg:
	@tools/build_gnubg.sh

# the best DMP model against gnubg-nn 0-ply: 1,000 games in duplicate pairs
demo: setup
	$(PY) play_models.py --model1 $(DEMO_MODEL) --gnubg-nn --games 1000 --workers 2

bench: setup
	$(PY) experiments/benchmarks/movegen.py

clean:
	rm -f tdbg/game/_bgcore.c tdbg/game/*.o tdbg/game/*.so c_engine/*.o $(CORE_SO)
	$(MAKE) -C c_inference clean
