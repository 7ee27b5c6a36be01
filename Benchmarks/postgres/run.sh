#!/usr/bin/env bash
# Durable bulk writes into PostgreSQL 15 through PostgresClient: binary COPY vs pipelined
# multi-row INSERT (and the plain variants), 1M rows of (cell, device, ts, seq, lon, lat),
# synchronous_commit on, one throwaway server (scripts/pg-test-server.sh), one run.
#   Benchmarks/postgres/run.sh [--quick] [fod-postgres-bench options…]
# --quick: 20,000 rows, one round, debug build (a smoke test for CI; figures meaningless).
# Other options go to the benchmark (--rows, --batch, --rows-per-statement, --single-row-rows, --rounds).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bench="$root/.build/release/fod-postgres-bench"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) bench="$root/.build/debug/fod-postgres-bench"; args+=(--rows 20000 --single-row-rows 5000 --batch 5000 --rounds 1) ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ -x "$bench" ] || { echo "no benchmark binary at $bench (swift build -c release --product fod-postgres-bench)" >&2; exit 1; }
dir="$(mktemp -u "${TMPDIR:-/tmp}/fod-pg-bench.XXXXXX")"
trap '"$root/scripts/pg-test-server.sh" stop "$dir" 2>/dev/null' EXIT
url="$("$root/scripts/pg-test-server.sh" start "$dir" 2>/dev/null)"
echo "cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bench" --url "$url" "${args[@]}"
