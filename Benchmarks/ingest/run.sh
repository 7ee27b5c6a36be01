#!/usr/bin/env bash
# Ingest benchmark (issue: location ingest). In one run:
#  (a) batched ingest over HTTP: wrk, 100 fixes per request, keep-alive, 64 connections →
#      fixes/s, next to raw SQLite inserting the same rows with the same schema in one process;
#  (b) single-fix POSTs from 64 connections → requests/s and p99.
# Both the server and the baseline use synchronous=FULL (the server's default) unless
# FOD_SYNC=normal. Usage: Benchmarks/ingest/run.sh [--quick] [--duration S]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
duration=10; config=release; rows=1000000; quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; duration=2; config=debug; rows=20000 ;;
    --duration) duration="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac; shift
done
sync="${FOD_SYNC:-full}"
bin="$root/.build/$config"
[ -x "$bin/fod" ] && [ -x "$bin/fod-ingest-baseline" ] || { echo "build first: swift build -c $config" >&2; exit 1; }
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# /metrics is served on the public port only to a bearer token.
export FOD_METRICS_TOKEN="${FOD_METRICS_TOKEN:-benchmark-metrics-token}"
"$bin/fod" serve --port "$port" --bind 127.0.0.1 --data "$work/data" --sync "$sync" --log-level warning --password-cost minimal --signup open --device-request-rate 0 ${FOD_SERVE_EXTRA:-} >/dev/null 2>"$work/fod.log" &
server=$!
# The server's CPU (user + system, all threads) in seconds: on a shared machine the CPU a fix
# costs moves less than the rate does.
tick=$(getconf CLK_TCK)
cpu() { awk -v t="$tick" '{printf "%.3f", ($14 + $15) / t}' "/proc/$server/stat"; }
for _ in $(seq 1 2400); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done

python3 - "$port" "$work/devices.txt" <<'PY'
import json, sys, urllib.request
port, out = sys.argv[1], sys.argv[2]
def call(method, path, body, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method=method,
                                 headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})})
    return json.load(urllib.request.urlopen(req))
user = call("POST", "/v1/users", {"email": "bench@example.org", "password": "bench-password", "displayName": "Bench"})
with open(out, "w") as f:
    for i in range(64):
        d = call("POST", "/v1/devices", {"name": f"tracker {i}"}, user["token"])
        f.write(f'{d["device"]["id"]} {d["deviceToken"]}\n')
PY
export FOD_BASE_MS=$(( $(date +%s) * 1000 - 3600000 ))

run_wrk() {  # batch size -> "req/s p99_ms non2xx"
  FOD_BATCH="$1" wrk -t2 -c64 -d"${duration}s" --latency -s "$here/post.lua" "http://127.0.0.1:$port" -- "$work/devices.txt" > "$work/wrk.txt"
  python3 - "$work/wrk.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", t); p99 = float(m.group(1)) * {"us": .001, "ms": 1, "s": 1000}[m.group(2)]
e = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
print(f"{rps:.0f} {p99:.2f} {e.group(1) if e else 0}")
PY
}

[ "$quick" = 1 ] && echo "(--quick: a smoke run on the debug build; the figures mean nothing)"
echo "== (a) batched: 100 fixes/request, wrk -t2 -c64 -d${duration}s, synchronous=$sync"
cpu0=$(cpu)
read -r a_rps a_p99 a_err <<<"$(run_wrk 100)"
cpu1=$(cpu)
stored=$(python3 -c "import sqlite3; print(sqlite3.connect('$work/data/fod.sqlite').execute('select count(*) from locations').fetchone()[0])")
echo "HTTP: $a_rps req/s = $((a_rps * 100)) fixes/s offered; p99 ${a_p99} ms; non-2xx $a_err; rows stored $stored"
# The server answers once fixes are in history and the index queue; the merge into the cell
# index and client ids runs behind (chunks on the same writer). Time until it has caught up
# (nothing unmerged and no merge cycle running):
gauge() { curl -sf -H "Authorization: Bearer $FOD_METRICS_TOKEN" "http://127.0.0.1:$port/metrics" | sed -nE "s/^$1 ([0-9.e+]+)\$/\\1/p"; }
unmerged() { python3 -c "print(int(float('$(gauge fod_index_unmerged_fixes)') + float('$(gauge fod_index_merge_running)')))"; }
left=$(unmerged); left0=$left; drain_start=$(date +%s.%N)
while [ "$left" != 0 ]; do sleep 0.2; left=$(unmerged); done
drain=$(python3 -c "print(f'{$(date +%s.%N) - $drain_start:.1f}')")
echo "merge caught up ${drain} s after the load ended (${left0%.*} fixes were unmerged); stored/(load + catch-up) = $(python3 -c "print(round($stored/($duration+$drain)))") fixes/s"
cpu2=$(cpu)
python3 -c "print(f'server CPU: {($cpu1 - $cpu0) * 1e6 / $stored:.1f} µs a fix acknowledged, {($cpu2 - $cpu0) * 1e6 / $stored:.1f} µs with its merge')"
baseline=$("$bin/fod-ingest-baseline" "$work/raw.sqlite" "$rows" 10000 "$sync")
echo "$baseline"
raw=$(echo "$baseline" | sed -nE 's/^raw ack path.*: ([0-9]+) rows\/s.*/\1/p')
python3 -c "print(f'ratio HTTP/raw (acknowledgement path, same tables): {($a_rps*100)/$raw:.2f}')"

echo "== (b) single fix per request, wrk -t2 -c64 -d${duration}s"
cpu3=$(cpu)
read -r b_rps b_p99 b_err <<<"$(run_wrk 1)"
cpu4=$(cpu)
echo "single: $b_rps req/s, p99 ${b_p99} ms, non-2xx $b_err; server CPU $(python3 -c "print(f'{($cpu4 - $cpu3) * 1e6 / max(1, $b_rps * $duration):.1f}')") µs a request"
[ "$a_err" = "0" ] && [ "$b_err" = "0" ] || { echo "FAIL: non-2xx replies"; exit 1; }
