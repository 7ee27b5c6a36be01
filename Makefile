# Find Our Devices — the two commands a newcomer needs:
#   make run    installs what is missing, builds, and starts the server on http://localhost:8080
#   make test   installs what is missing, builds once, and runs the whole test suite
SWIFT ?= swift
DATA ?= ./fod-data
PORT ?= 8080

.PHONY: run test build release deps test-deps bench-quick clean

deps:
	@./scripts/install-deps.sh

test-deps:
	@FOD_INSTALL_TEST_TOOLS=1 ./scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	./.build/release/fod serve --data $(DATA) --port $(PORT)

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	./scripts/check-tools.sh

bench-quick: release
	./Benchmarks/healthz/run.sh --quick

clean:
	rm -rf .build
