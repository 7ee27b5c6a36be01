#!/usr/bin/env bash
# Arrivals on ingest on the PostgreSQL store (issue: places): fod-places-bench's two sides (with
# and without 100 places per group) on a throwaway PostgreSQL 15 (scripts/pg-test-server.sh:
# fsync and synchronous_commit on), the same world and rounds as the SQLite run.
#   Benchmarks/postgres/places.sh [--quick] [fod-places-bench options, e.g. --groups 1000 --rounds 4]
# --quick: the debug build, 20 groups × 10 places, 2 rounds (a smoke; figures meaningless).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
config=release; args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) config=debug; args+=(--groups 20 --places 10 --rounds 2) ;;
    *) args+=("$1") ;;
  esac; shift
done
bin="$root/.build/$config"
[ -x "$bin/fod-places-bench" ] || { echo "build first: swift build -c $config" >&2; exit 1; }
work="$(mktemp -d)"
chmod 755 "$work"  # the postgres user (the server runs as it when we are root) must reach pg/ inside
pgdir="$work/pg"
cleanup() {
  "$root/scripts/pg-test-server.sh" stop "$pgdir" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
"$root/scripts/pg-test-server.sh" start "$pgdir" >/dev/null
echo "cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/fod-places-bench" --database "$("$root/scripts/pg-test-server.sh" url "$pgdir")" ${args[@]+"${args[@]}"}
