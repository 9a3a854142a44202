# The two commands a newcomer needs: `make run` and `make test`. Each sets up what it needs first.
# Python packages go into a virtual environment (.venv): Debian's python3 refuses a system-wide
# pip install (PEP 668). Debian packages (python3-venv, redis-server, chromium for the browser tests,
# which Playwright drives: it never downloads a browser of its own, and dovecot-imapd for the IMAP
# tests) come from apt-get, with sudo when not root. The tests' OpenAPI linter comes from the npm registry into node_modules/.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
APT_INSTALL := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq

.PHONY: setup browser spec-tools mail-servers run test bench

setup: $(VENV)/.installed
	@command -v redis-server >/dev/null || ($(SUDO) apt-get update -qq && $(APT_INSTALL) redis-server)

# The browser tests drive Debian's Chromium at /usr/bin/chromium (only the tests need it).
browser:
	@test -x /usr/bin/chromium || ($(SUDO) apt-get update -qq && $(APT_INSTALL) chromium)

# The OpenAPI linter tests/test_api_spec.py runs (Redocly CLI, pinned by package-lock.json): it needs
# Node.js $(NODE_NEEDED) or later: the machine's own, else Debian's (Debian 13's is; Debian 12's nodejs 18
# is too old, and then this stops and says so). Installed again when the lock file changes.
NODE_NEEDED := 20.19
spec-tools: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || ($(SUDO) apt-get update -qq && $(APT_INSTALL) nodejs npm)
	@printf '%s\n' $(NODE_NEEDED) "$$(node --version | tr -d v)" | sort -V -C || { echo "make spec-tools:\
	 Redocly CLI needs Node.js $(NODE_NEEDED) or later, and this machine's node is $$(node --version)" >&2; exit 1; }
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

# A venv without pip is one Debian could not finish (no python3-venv): start it again after installing that.
$(VENV)/bin/pip:
	@rm -rf $(VENV)
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || (rm -rf $(VENV) && $(SUDO) apt-get update -qq \
		&& $(APT_INSTALL) python3-venv && $(PYTHON) -m venv $(VENV))

# Installed again only when pyproject.toml changes (the package itself is editable).
$(VENV)/.installed: pyproject.toml | $(VENV)/bin/pip
	$(VENV)/bin/pip install -q -e ".[test]"
	@touch $@

run: setup
	$(PY) -m service.cli up

# The tests run in TEST_PROCESSES parallel processes (pytest-xdist): most of them wait on real
# servers (redis-server, workers, gunicorn, Chromium), so even two cores do more than one process can.
TEST_PROCESSES ?= 3

# The SMTP and IMAP tests run Debian's Dovecot (tests/mail_servers.py), each with a config of its own.
mail-servers:
	@test -x /usr/sbin/dovecot -a -x /usr/lib/dovecot/imap -a -n "$$(command -v openssl)" || ($(SUDO) apt-get update -qq \
		&& $(APT_INSTALL) dovecot-imapd openssl)

test: setup browser spec-tools mail-servers
	$(PY) -m pytest -n $(TEST_PROCESSES)

bench: setup
	$(PY) -m benchmarks.engine
	$(PY) benchmarks/api.py
	$(PY) benchmarks/deadlines.py
	$(PY) benchmarks/mail_size.py
