# Find Our Devices — the two commands a newcomer needs:
#   make run    installs what is missing, builds, and starts the server on http://localhost:8080
#   make test   installs what is missing, builds once, and runs the whole test suite
#   make install PREFIX=…  installs the binary and what it serves (docs/operations.md)
SWIFT ?= swift
DATA ?= ./fod-data
PORT ?= 8080
# libFuzzer targets (Fuzz/README.md): seconds per target, targets at a time, which targets.
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_JOBS ?= 1
FUZZ_TARGETS ?=

# make install: where (PREFIX) and, to stage a package, under which root (DESTDIR).
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: run test build release deps test-deps install uninstall check-fresh bench bench-quick crash-test fuzz-http schemathesis fuzz fuzz-smoke cluster clean

deps:
	@./scripts/install-deps.sh

# Debian packages for the tests, then the PyPI tools in their virtual environment (.build/python-tools).
test-deps:
	@FOD_INSTALL_TEST_TOOLS=1 ./scripts/install-deps.sh
	@./scripts/python-tools.sh >/dev/null

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	./.build/release/fod serve --data $(DATA) --port $(PORT)

# $(PREFIX)/bin/fod and $(PREFIX)/share/fod (web app, Data/, docs/, deploy/): the installed binary
# finds them from its own location. Builds the release binary first when a source is newer, so
# `make release && sudo make install` installs without building as root.
install: .build/release/fod
	./scripts/install.sh --prefix "$(PREFIX)" --destdir "$(DESTDIR)" --binary .build/release/fod

.build/release/fod: Package.swift $(shell find Sources -type f 2>/dev/null)
	$(MAKE) release
	touch $@

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/fod"
	rm -rf "$(DESTDIR)$(PREFIX)/share/fod"

# After the whole suite, the API suite once more on PostgreSQL (a throwaway server, a fresh
# database per test; 3–5 minutes on a busy 2-core machine), then the tool checks. Each run has a
# watchdog (about five times its time here): a run that hangs prints its threads' stacks and fails.
test: test-deps
	$(SWIFT) build --build-tests
	./scripts/test-watchdog.sh 1500 env FOD_TEST_STORE=sqlite $(SWIFT) test --skip-build
	./scripts/test-watchdog.sh 1200 env FOD_TEST_STORE=postgresql $(SWIFT) test --skip-build --filter APITests
	./scripts/check-tools.sh

# What a newcomer gets: `make test` in a fresh clone of this commit in a temporary directory, with
# nothing beside it (slow: a whole build and the whole suite). Prints how long it took.
check-fresh:
	./scripts/check-fresh.sh

# Black-box HTTP fuzzer against a fresh `fod serve` (debug build): make fuzz-http REQUESTS=1000000 SEED=42
REQUESTS ?= 100000
SEED ?=
fuzz-http: build
	python3 scripts/fuzz-http.py --requests $(REQUESTS) $(if $(SEED),--seed $(SEED))

# schemathesis (PyPI, in .build/python-tools) against the served /openapi.yaml
schemathesis: build
	./scripts/schemathesis-check.sh

# Ours against SQLite R*Tree, SpatiaLite, PostGIS and Redis GEO (installed by test-deps), one run:
# writes Benchmarks/REPORT.md and its figures. BENCH_ARGS="--sizes 100000,1000000" picks sizes.
bench: test-deps release
	$(SWIFT) build -c release --product fod-engine-bench
	nice -n 10 python3 Benchmarks/report/run.py $(BENCH_ARGS)

bench-quick: release
	./Benchmarks/healthz/run.sh --quick

# kill -9 the server at random moments under concurrent ingest and check every acknowledged fix
# (CYCLES=20 by default; SEED=n repeats a run; POSTGRES=1 runs the node on a throwaway PostgreSQL).
crash-test: release
	python3 ./scripts/crash-test.py --fod ./.build/release/fod $(if $(CYCLES),--cycles $(CYCLES)) $(if $(SEED),--seed $(SEED)) $(if $(POSTGRES),--postgres)

fuzz: deps
	./Fuzz/fuzz.py run --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) $(FUZZ_TARGETS)

fuzz-smoke: deps
	./Fuzz/fuzz.py run --seconds $(FUZZ_SMOKE_SECONDS) --jobs $(FUZZ_JOBS) $(FUZZ_TARGETS)

# A cluster on loopback: PostgreSQL primary + synchronous standby run by Patroni (with etcd), three
# nodes, HAProxy in front
# (docs/scaling.md); prints the URL, Ctrl-C stops it and deletes its state.
cluster: test-deps release
	./scripts/cluster.sh run --fod ./.build/release/fod --patroni

clean:
	rm -rf .build
