#!/usr/bin/env bash
# Checks that run after the Swift test suite with the tools people would use against a real
# `fod` binary (debug build): CLI smoke tests, the benchmark smoke run and a short run of every
# libFuzzer target.
set -euo pipefail
# Outputs are checked with `grep PATTERN >/dev/null`, never `grep -q`: -q exits at the first match,
# and a program still writing then dies of SIGPIPE, which pipefail counts as a failure.
cd "$(dirname "$0")/.."
fod=./.build/debug/fod
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== fod --help"
"$fod" --help | grep "fod serve" >/dev/null
echo "== fod serve: usage errors exit 2"
set +e; "$fod" serve --port nope >/dev/null 2>&1; rc=$?; set -e
[ "$rc" -eq 2 ] || { echo "expected exit 2, got $rc"; exit 1; }

echo "== every route documented in docs/openapi.yaml"
python3 ./scripts/openapi-check.py

echo "== HTTP fuzzer smoke (20,000 mutated requests of every route, 3% without a credential announcing a large body they never send whole: no 5xx, crash, hang or RSS growth)"
python3 ./scripts/fuzz-http.py --requests 20000 --fod "$fod" --out .build/fuzz-http-failures.jsonl

echo "== schemathesis against the served /openapi.yaml"
./scripts/schemathesis-check.sh "$fod" 5

echo "== exports checked with ogrinfo, xmllint and vl-convert"
./scripts/export-check.sh "$fod"

echo "== web map in headless Chromium against fod demo (sign in, live pins, a posted fix moves its pin)"
./scripts/browser-check.sh "$fod"

echo "== crash test smoke (3 kill -9 cycles under concurrent ingest; make crash-test runs 20)"
python3 ./scripts/crash-test.py --fod "$fod" --cycles 3
echo "== crash test smoke on PostgreSQL (3 kill -9 cycles of a node under ingest; fod db check --database after each)"
python3 ./scripts/crash-test.py --fod "$fod" --cycles 3 --postgres

echo "== live feed benchmark smoke (--quick: 100 subscribers, no missed events)"
./Benchmarks/live/run.sh --quick

echo "== PostgreSQL cluster benchmark smokes (--quick: live delivery across three nodes; ingest on 1 and 3 nodes vs COPY; geo queries vs PostGIS; arrivals on ingest)"
./Benchmarks/postgres/live.sh --quick
./Benchmarks/postgres/ingest.sh --quick
python3 ./Benchmarks/postgres/geo.py --quick
./Benchmarks/postgres/places.sh --quick | grep "place events logged" >/dev/null

echo "== places benchmark smoke (SQLite, 20 groups × 10 places: the index and brute force must agree)"
./.build/debug/fod-places-bench --groups 20 --places 10 --rounds 2 | grep "20/20 groups agree" >/dev/null

echo "== ingest benchmark smoke (--quick)"
./Benchmarks/ingest/run.sh --quick

echo "== soak benchmark smoke (--quick: 20 s with a 4 MiB WAL bound, which it must hold; fod db check after)"
./Benchmarks/soak/run.sh --quick

echo "== comparison report smoke (--quick: 2,000 fixes, every peer installed, answers checked equal)"
python3 ./Benchmarks/report/run.py --quick

echo "== healthz benchmark smoke (--quick)"
./Benchmarks/healthz/run.sh --quick

echo "== stalled uploads benchmark smoke (--quick: 100 anonymous stalled uploads, each answered before its body)"
python3 ./Benchmarks/stalled-uploads/run.py --quick | grep "answered before their body: locations 401" >/dev/null

echo "== phone-fleet benchmark smoke (--quick: 200 OwnTracks phones at 200 posts/s against fod and nginx; every post 2xx, friends in the replies of a tenth)"
python3 ./Benchmarks/phones/run.py --quick

echo "== timeline and import benchmark smokes (debug build: figures mean nothing)"
./.build/debug/fod-timeline-bench --days 3 --rounds 1 --places Data/places-cities1000.bin --lookups 1000 | grep "lookups anywhere" >/dev/null
python3 ./scripts/generate-records-json.py 2000 "$work/Records.json"
./.build/debug/fod-import-bench "$work/Records.json" | grep "format google-records, 2000 points, 1998 fixes, 2 rejected" >/dev/null
./Benchmarks/import/run.sh --quick --file "$work/Records.json" | grep "ratio HTTP import" >/dev/null
./Benchmarks/timeline/run.sh --quick | grep "GET timeline over the range" >/dev/null
echo "== OwnTracks friends benchmark smoke (5 friends, 100 requests a case)"
./.build/debug/fod-owntracks-bench --friends 5 --requests 100 --sync normal | grep "10 messages" >/dev/null

echo "== places benchmark smoke (debug build, 5 groups × 10 places: figures mean nothing)"
./.build/debug/fod-places-bench --groups 5 --places 10 --rounds 2 --batch 20 --sync normal | grep "ingest, until indexed: with places" >/dev/null

echo "== libFuzzer targets, smoke (${FUZZ_SMOKE_SECONDS:-5} s each; Fuzz/README.md)"
./Fuzz/fuzz.py run --seconds "${FUZZ_SMOKE_SECONDS:-5}"

echo "check-tools: all passed"
