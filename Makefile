# The two commands a newcomer needs: `make run` and `make test`. Each sets up what it needs first.
PYTHON ?= python3

.PHONY: setup run test bench

setup:
	@command -v redis-server >/dev/null || (apt-get update -qq && apt-get install -y -qq redis-server)
	$(PYTHON) -m pip install -q -e ".[test]"

run: setup
	$(PYTHON) -m service.cli up

test: setup
	$(PYTHON) -m pytest

bench: setup
	$(PYTHON) -m benchmarks.engine
	$(PYTHON) benchmarks/api.py
