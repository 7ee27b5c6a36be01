#!/usr/bin/env bash
# What a query route costs beyond the engine (issue 16 item 5): `wrk -t1 -c1` latency of
# GET /healthz (no database), GET /v1/me (the token check and one profile read) and a radius
# query of ~20 hits (`scope: history`, 100,000 fixes of one device in its group), three rounds
# of 5 s each, on a release `fod serve` in a temporary directory.
#   Benchmarks/report/route-costs.sh [--bin DIR] [--perf healthz|me|query]
# --perf: a `perf record -g` of the server during that route's first round, into ./<route>.data.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
bin="$root/.build/release"; perf_route=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift ;;
    --perf) perf_route="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac; shift
done
[ -x "$bin/fod" ] || { echo "build first: swift build -c release" >&2; exit 1; }
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
work="$(mktemp -d)"; server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# /metrics is served on the public port only to a bearer token.
export FOD_METRICS_TOKEN="${FOD_METRICS_TOKEN:-benchmark-metrics-token}"
"$bin/fod" serve --port "$port" --bind 127.0.0.1 --data "$work/data" --log-level warning --password-cost minimal --signup open \
  --device-request-rate 0 >/dev/null 2>"$work/fod.log" &
server=$!
for _ in $(seq 1 2400); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
read -r device device_token token group < <(python3 "$here/../lib/fod_api.py" "$port" --group)
python3 - "$here/../lib" "$port" "$device" "$device_token" <<'PY'
import random, sys, time
sys.path.insert(0, sys.argv[1])
from fod_api import call
port, device, token = sys.argv[2:5]
rnd, t0 = random.Random(1), int(time.time() * 1000) - 86_400_000
for b in range(20):
    fixes = [{"location": [2.35 + rnd.uniform(-0.5, 0.5), 48.85 + rnd.uniform(-0.5, 0.5)], "timestamp": t0 + b * 10_000 + i}
             for i in range(5_000)]
    call(port, "POST", f"/v1/devices/{device}/locations", {"locations": fixes}, token)
PY
for _ in $(seq 1 600); do  # until the cell index merge has caught up
  left=$(curl -s -H "Authorization: Bearer $FOD_METRICS_TOKEN" "http://127.0.0.1:$port/metrics" | awk '$1 == "fod_index_unmerged_fixes" {print $2}')
  [ "${left%.*}" = "0" ] && break; sleep 0.2
done
query='{"filter": {"location": {"$geoWithin": {"$centerSphere": [[2.35, 48.85], 0.000114]}}}, "scope": "history"}'
cat >"$work/query.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$query'
LUA
hits=$(curl -s -X POST -H "Authorization: Bearer $token" -H "Content-Type: application/json" -d "$query" \
  "http://127.0.0.1:$port/v1/groups/$group/query" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["results"]))')
echo "route costs, wrk -t1 -c1, 5 s a round; the query has $hits hits among 100,000 fixes"
for round in 1 2 3; do
  for route in healthz me query; do
    case $route in
      healthz) args=("http://127.0.0.1:$port/healthz") ;;
      me) args=(-H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/me") ;;
      query) args=(-H "Authorization: Bearer $token" -s "$work/query.lua" "http://127.0.0.1:$port/v1/groups/$group/query") ;;
    esac
    perfpid=""
    if [ "$route" = "$perf_route" ] && [ "$round" = 1 ]; then
      perf record -g -F 999 -p "$server" -o "$route.data" -- sleep 5 >/dev/null 2>&1 & perfpid=$!
    fi
    wrk -t1 -c1 -d5s --latency "${args[@]}" >"$work/wrk.txt"
    [ -n "$perfpid" ] && { wait "$perfpid" || true; }
    printf 'round %s  %-8s p50 %8s  p99 %8s  %s req/s  non-2xx %s\n' "$round" "$route" \
      "$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")" "$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")" \
      "$(awk '$1 == "Requests/sec:" {print $2}' "$work/wrk.txt")" "$(awk '/Non-2xx/ {print $NF}' "$work/wrk.txt" | grep . || echo 0)"
  done
done
