# Two entry points (see README.md): `make demo` and `make test`.
# Both create .venv on first use and install everything in one pip command, so that torch
# resolves to the pinned 2.13.0 (on Linux x86-64 PyPI's wheel is the CUDA build; see TORCH_INDEX).
PYTHON ?= python3
# Optional, first install only: where pip also looks for torch. A URL is an extra index (the CPU
# build: TORCH_INDEX=https://download.pytorch.org/whl/cpu), anything else a folder of wheels.
TORCH_INDEX ?=
TORCH_SOURCE := $(if $(TORCH_INDEX),$(if $(findstring ://,$(TORCH_INDEX)),--extra-index-url,--find-links) $(TORCH_INDEX))
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
ROOT   ?= .
RESULTS ?= results
# two CPU processes that really are two (stack.md §7: `--cpu --num_processes 2` silently runs one)
LAUNCH := OMP_NUM_THREADS=1 $(BIN)/accelerate launch --multi_gpu --num_processes 2 --num_machines 1 \
          --mixed_precision no --dynamo_backend no

.PHONY: demo test install

# The stamp's name carries pyproject.toml's checksum, so the install reruns when its content changes,
# not when a checkout or clone merely gives the file a new modification time.
$(STAMP):
	@echo "make: installing rote-hf and its dependencies into $(VENV)/ (one pip command; a few minutes on first use)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --progress-bar on $(TORCH_SOURCE) -e ".[test]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# The main job on embedded defaults: build the local mirror ./rote/, train the smoke sweeps of
# ROTE and CogScale into ./results/ (resumable), then serve the leaderboard on 127.0.0.1:7860.
demo: $(STAMP)
	$(BIN)/rote-hf demo --root $(ROOT)
	$(LAUNCH) eval_suite/train.py --config eval_suite/configs/rote_smoke.yaml \
	  --config eval_suite/configs/cogscale_smoke.yaml --processes 2 --results $(RESULTS)
	GRADIO_ANALYTICS_ENABLED=False $(BIN)/python space/app.py --results $(RESULTS)

# The browser test drives a system chromium. When it is missing, install Debian's package with apt
# only where that is possible (root and apt-get present); otherwise stop with one line saying what to install.
test: $(STAMP)
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "make: installing Debian's chromium with apt-get (the leaderboard's browser test needs it)"; \
	    apt-get update -qq && apt-get install -y -qq chromium; \
	  else \
	    echo "make test: chromium is missing and cannot be installed here (needs root and apt-get): install it first, e.g. 'sudo apt-get install chromium', then rerun 'make test'" >&2; \
	    exit 1; \
	  fi
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m pytest -n 2 --dist loadfile
