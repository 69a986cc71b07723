# Two entry points for a fresh machine: `make demo` runs Oche (a demo game through the
# whole pipeline), `make test` runs every check.
# Both create .venv on first use and reinstall when pyproject.toml changes.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean mosquitto chromium postgres pcsc-build-deps

$(STAMP): pyproject.toml | pcsc-build-deps
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[all,test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/oche play --demo

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict

unit: $(STAMP) mosquitto chromium postgres
	$(BIN)/pytest -n auto  # one worker per core (pytest-xdist): every test owns its broker, pty and files

# The MQTT tests start their own Mosquitto; install Debian's when it is missing
# (through sudo unless make runs as root).
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

mosquitto:
	@command -v mosquitto >/dev/null || test -x /usr/sbin/mosquitto || \
		{ $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq mosquitto; }

# The cards extra's pyscard has no Linux wheel: pip builds it with swig against
# pcsc-lite's headers; install Debian's when they are missing.
pcsc-build-deps:
	@{ command -v swig >/dev/null && test -f /usr/include/PCSC/winscard.h; } || \
		{ $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq swig libpcsclite-dev; }

# The leaderboard's page tests drive Debian's chromium through Playwright
# (executable_path: Playwright downloads no browser); install it when missing,
# without the ~125 packages it recommends (fonts, desktop integration) that
# headless tests never use.
chromium:
	@test -x /usr/bin/chromium || \
		{ $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends chromium; }

# The leaderboard's storage tests run on PostgreSQL too, each in a database of
# its own on 127.0.0.1:5432 (user postgres, trust): when nothing answers there,
# install Debian's postgresql, trust postgres on 127.0.0.1 and start it.
postgres:
	@.ci/postgres

bench: $(STAMP) mosquitto postgres chromium
	$(BIN)/python -m benchmarks.engine
	$(BIN)/python -m benchmarks.drivers
	$(BIN)/python -m benchmarks.bots
	$(BIN)/python -m benchmarks.latency
	$(BIN)/python -m benchmarks.year
	$(BIN)/python -m benchmarks.loop_stalls
	$(BIN)/python -m benchmarks.board_page
	$(BIN)/python -m benchmarks.remote
	$(BIN)/python -m benchmarks.leaderboard

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
