# Two commands on a fresh machine: `make run` (default campaign -> reports/index.html)
# and `make test` (the CI test suite). Both bootstrap .venv from the pinned constraints.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints-ci.txt | cksum | cut -d' ' -f1)

$(STAMP): pyproject.toml constraints-ci.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q -c constraints-ci.txt -e '.[all,test]'
	$(BIN)/gather-conformance oracles >/dev/null  # asks each framework what it offers once (cached): a budget's clock never pays it
	rm -f $(VENV)/.installed-* && touch $@

.PHONY: install run test test-slow browser bench campaign-long
install: $(STAMP)

run: $(STAMP)
	$(BIN)/gather-conformance run

# Lint, type-check, then the tests (JUnit XML to $$GC_ARTIFACTS, default .artifacts/, never the user's reports/).
# --dist loadscope: a module's tests go to one worker, so that its small real campaign (a module fixture) runs once,
# not once per worker (pytest 898 s -> 673 s on 2 cores).
test: $(STAMP) browser
	$(BIN)/ruff check conformance oracles tests benchmarks
	$(BIN)/python -m mypy
	mkdir -p $${GC_ARTIFACTS:-.artifacts}
	$(BIN)/python -m pytest -q -n auto --dist loadscope --durations=25 --junitxml=$${GC_ARTIFACTS:-.artifacts}/junit.xml

# The slow tests (not in `make test`): `gather-conformance upgrade` for real, two NumPy releases from the registry.
test-slow: $(STAMP)
	GATHER_CONFORMANCE_SLOW=1 $(BIN)/python -m pytest -q tests/test_upgrade_real.py tests/test_upstream.py

# Debian's chromium + chromedriver for the report's browser test (never a browser download).
browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "no chromium/chromedriver and no root apt-get: the browser test will be skipped"; fi

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_reference.py
	$(BIN)/python benchmarks/bench_isolation.py

# A long campaign (not part of CI): 30 minutes of fuzzing.
campaign-long: $(STAMP)
	$(BIN)/gather-conformance run --budget 1800 --max-examples 100000 --seed $${SEED:-$$RANDOM}
