#!/usr/bin/env bash
# Import benchmark through the server (issue 15): a generated Takeout Records.json of N points
# (default 5,000,000, ~1.7 GB) posted to POST /v1/devices/{id}/import with curl (streamed,
# `-T`), next to the raw batched ingest of the same rows (fod-import-bench --store: the same
# batches stored through LocationService without HTTP or parsing). Reports fixes/s of both, the
# ratio, the time until the index merge caught up, and the server's peak RSS above idle
# (VmHWM − VmRSS before the import, from /proc/<pid>/status).
# Usage: Benchmarks/import/run.sh [--points N] [--index-buffer N] [--file Records.json] [--bin DIR] [--quick]
# (--bin: a directory holding fod and fod-import-bench, e.g. a copy of another build to compare)
# Run it niced on a shared machine: nice -n 10 Benchmarks/import/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
points=5000000; config=release; buffer=""; file=""; bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) points=20000; config=debug ;;
    --points) points="$2"; shift ;;
    --index-buffer) buffer="$2"; shift ;;
    --file) file="$2"; shift ;;
    --bin) bin="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac; shift
done
bin="${bin:-$root/.build/$config}"
[ -x "$bin/fod" ] && [ -x "$bin/fod-import-bench" ] || { echo "build first: swift build -c $config" >&2; exit 1; }
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$file" ]; then
  file="$work/Records.json"
  if command -v gcc >/dev/null; then   # the C twin of scripts/generate-records-json.py: seconds, not minutes
    gcc -O2 -o "$work/genrecords" "$here/genrecords.c" && "$work/genrecords" "$points" "$file"
  else
    python3 "$root/scripts/generate-records-json.py" "$points" "$file"
  fi
fi
echo "== file: $file ($(stat -c %s "$file") bytes); index buffer ${buffer:-default}"
bufferFlag=(); [ -n "$buffer" ] && bufferFlag=(--index-buffer "$buffer")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# /metrics is served on the public port only to a bearer token.
export FOD_METRICS_TOKEN="${FOD_METRICS_TOKEN:-benchmark-metrics-token}"
"$bin/fod" serve --port "$port" --bind 127.0.0.1 --data "$work/data" --log-level warning --password-cost minimal \
  --device-request-rate 0 "${bufferFlag[@]}" >/dev/null 2>"$work/fod.log" &
server=$!
for _ in $(seq 1 2400); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
read -r device token _ < <(python3 "$here/../lib/fod_api.py" "$port")
kib() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$server/status"; }
idle=$(kib VmRSS)
start=$(date +%s.%N)
curl -sS -X POST -T "$file" -H "Authorization: Bearer $token" -H "Content-Type: application/octet-stream" \
  "http://127.0.0.1:$port/v1/devices/$device/import" > "$work/reply.json"
end=$(date +%s.%N)
peak=$(kib VmHWM)
python3 - "$work/reply.json" "$start" "$end" "$idle" "$peak" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = float(sys.argv[3]) - float(sys.argv[2])
print(f"HTTP import: {r['format']}, {r['points']} points, {r['accepted']} stored, {r['rejected']} rejected "
      f"({r['rejectedByCode']}); {t:.2f} s = {r['accepted'] / t:,.0f} fixes/s")
print(f"server RSS: idle {int(sys.argv[4]) / 1024:.1f} MiB, peak {int(sys.argv[5]) / 1024:.1f} MiB, "
      f"growth {(int(sys.argv[5]) - int(sys.argv[4])) / 1024:.1f} MiB")
open(sys.argv[1] + ".rate", "w").write(str(r['accepted'] / t))
PY
# Until the background merge of the cell index has caught up.
while :; do
  left=$(curl -s -H "Authorization: Bearer $FOD_METRICS_TOKEN" "http://127.0.0.1:$port/metrics" | awk '$1 == "fod_index_unmerged_fixes" {print $2}')
  [ "${left%.*}" = "0" ] && break; sleep 0.2
done
merged=$(date +%s.%N)
python3 -c "import sys; print(f'merge caught up {float(sys.argv[2]) - float(sys.argv[1]):.2f} s after the reply')" "$end" "$merged"
reimport_start=$(date +%s.%N)
curl -sS -X POST -T "$file" -H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/devices/$device/import" > "$work/again.json"
reimport_end=$(date +%s.%N)
python3 - "$work/again.json" "$reimport_start" "$reimport_end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = float(sys.argv[3]) - float(sys.argv[2])
print(f"re-import: {r['accepted']} stored, {r['duplicates']} duplicates in {t:.2f} s")
PY
kill "$server"; wait "$server" 2>/dev/null || true
echo "== raw batched ingest of the same rows (no HTTP, no parsing; same batches, same index buffer)"
"$bin/fod-import-bench" "$file" --store "$work/baseline" "${bufferFlag[@]}" | tee "$work/baseline.txt"
python3 - "$work/reply.json.rate" "$work/baseline.txt" <<'PY'
import re, sys
http = float(open(sys.argv[1]).read())
raw = float(re.search(r"= (\d+) rows/s; merged", open(sys.argv[2]).read()).group(1))
print(f"ratio HTTP import / raw batched ingest: {http / raw:.2f} (goal >= 0.5)")
PY
