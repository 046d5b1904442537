# The two commands the README gives: `make sim` and `make test`.
# Each sets up its own venv (idempotent: the stamp file is redone only when
# pyproject.toml changes).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

CHROMIUM := /usr/bin/chromium
# The unit's tests run systemd's own checker (systemd-analyze verify/security).
ANALYZE := /usr/bin/systemd-analyze
SYSBENCH := /usr/bin/sysbench
# The vendor's panel code, pinned; without its declared dependencies (RPi.GPIO
# and spidev, which a desktop cannot build and keystand never imports).
WAVESHARE := waveshare-epaper==1.4.0

.PHONY: test sim lint venv clean browser systemd-tools micropython sysbench install-pi bench soak appliance-check enclosure enclosure-test openscad

venv: $(STAMP)

# The simulator page is tested in Debian's Chromium (Playwright drives it; it
# never downloads a browser of its own). Installed here when we are root.
browser: $(CHROMIUM)

$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "keystand: Debian's chromium is missing; the page test will be skipped."; \
		echo "          sudo apt-get install chromium   (then make test again)"; \
	fi

systemd-tools: $(ANALYZE)

$(ANALYZE):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null; \
	else \
		echo "keystand: systemd-analyze is missing; the unit's tests will be skipped."; \
		echo "          sudo apt-get install systemd   (then make test again)"; \
	fi

# The grid firmware's checks also run under MicroPython itself: its WebAssembly
# port, pinned by version and by the registry's sha512, fetched from npm into the
# venv (tools/npm_fetch.py: it has no dependencies, so no npm is needed), run by
# Debian's Node.js (installed here when we are root). tests/test_grid_firmware.py
# skips it without.
MPY_WASM := @micropython/micropython-webassembly-pyscript
MPY_WASM_VERSION := 1.27.0
MPY_WASM_SHA512 := sha512-DnXx4EqxgkeaFESrS3uKrL7mLMk4mRTd0mMzaOd3HUSiZUOAE7t11uLnjf3ftF87N2xm4knHnWEKcVK4IYIUDA==
MPY_DIR := $(VENV)/micropython
MPY_STAMP := $(MPY_DIR)/.installed-$(MPY_WASM_VERSION)

micropython: $(MPY_STAMP)

$(MPY_STAMP): $(STAMP)
	@if ! command -v node >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null; \
	fi; \
	if ! command -v node >/dev/null; then \
		echo "keystand: node is missing; the grid firmware's MicroPython checks will be skipped."; \
		echo "          sudo apt-get install nodejs   (then make test again)"; \
	elif $(BIN)/python tools/npm_fetch.py $(MPY_WASM) $(MPY_WASM_VERSION) $(MPY_WASM_SHA512) $(MPY_DIR) >/dev/null; then \
		touch $@; \
	fi

# The stands' bodies (hardware/enclosure/): Debian's openscad renders each
# build's parts to STL under build/enclosure/ and its pictures into
# hardware/enclosure/previews/ (under Xvfb: openscad draws a PNG only on a
# display); Debian's PrusaSlicer slices every part (print times, filament, and
# whether it would need supports: hardware/README.md's table of parts). Installed
# here when we are root; tests/test_enclosure.py skips what it cannot run without.
# CARD="W H" is a word card's measured size in mm, for the mat's template.
OPENSCAD := /usr/bin/openscad
PRUSA := /usr/bin/prusa-slicer

openscad: $(OPENSCAD) $(PRUSA)

$(OPENSCAD):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openscad xvfb >/dev/null; \
	else \
		echo "keystand: openscad is missing; the enclosure's tests will be skipped."; \
		echo "          sudo apt-get install openscad xvfb   (then make test again)"; \
	fi

$(PRUSA):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prusa-slicer >/dev/null; \
	else \
		echo "keystand: prusa-slicer is missing; the enclosure's slicer tests will be skipped."; \
		echo "          sudo apt-get install prusa-slicer   (then make test again)"; \
	fi

enclosure: $(STAMP) openscad
	$(BIN)/python hardware/enclosure/render.py $(if $(CARD),--card $(CARD))

# The enclosure's tests alone (they render, cast rays and read the slicer's record,
# hardware/enclosure/slices.json, that make enclosure writes: about 3 minutes).
enclosure-test: $(STAMP) openscad
	$(BIN)/pytest tests/test_enclosure.py tests/test_enclosure_mat.py

# On a Raspberry Pi (Bookworm): the stand as a service. INSTALL_ARGS passes
# more, e.g. INSTALL_ARGS="--profile minimal" or INSTALL_ARGS="uninstall".
install-pi:
	systemd/install.sh $(INSTALL_ARGS)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# setuptools warns, in a banner, that an editable install maps folders by
	# name; ours are mapped on purpose (pyproject's package-dir). Nothing else.
	PYTHONWARNINGS=ignore::UserWarning $(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	$(BIN)/pip install --quiet --no-deps $(WAVESHARE)
	touch $(STAMP)

test: $(STAMP) browser systemd-tools micropython sysbench openscad
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tools/lint_tree.py imports  # docs/design.md "Layout": its tables (pyproject)
	$(BIN)/python tools/lint_tree.py types    # mypy on the whole package
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python tools/lint_tree.py imports
	$(BIN)/python tools/lint_tree.py types

# The stand with simulated panels and the simulator page on 127.0.0.1 (the
# address is printed). SIM_ARGS passes more, e.g. SIM_ARGS="--speed 0.2".
sim: $(STAMP)
	$(BIN)/keystand run --profile desktop $(SIM_ARGS)

# Every figure in BENCHMARKS.md and bench/results.json, measured in one run.
bench: $(STAMP) sysbench
	$(BIN)/python bench/run.py

# The bench's CPU reference (the Pi Zero 2 W estimate): Debian's sysbench,
# installed here when we are root; without it the bench says it has no estimate.
sysbench: $(SYSBENCH)

$(SYSBENCH):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench >/dev/null; \
	else \
		echo "keystand: sysbench is missing; the bench gives no Pi Zero 2 W estimate."; \
		echo "          sudo apt-get install sysbench   (then make bench again)"; \
	fi

# The stand's own crash, damage and fault harness: SIGKILL chains, damaged
# journals, a full disk (root: a tmpfs), grid and panel faults; figures in
# docs/reliability.md and soak/results.json. Not in `make test`. 28 minutes by
# default; SOAK_ARGS passes more, e.g. SOAK_ARGS="--minutes 5" or "--quick", or
# SOAK_ARGS="--only edges --merge" (those figures only, the others' kept).
soak: $(STAMP)
	$(BIN)/python soak/run.py $(SOAK_ARGS)

# README "Build one" on a booted Debian 12 root (systemd-nspawn; arm64 through
# qemu-user-static), proven from outside: docs/appliance.md. Root; not in `make test`.
ARCH ?= arm64
appliance-check:
	ARCH=$(ARCH) tools/appliance/check.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
