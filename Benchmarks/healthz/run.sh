#!/usr/bin/env bash
# GET /healthz with keep-alive: fod vs a minimal libmicrohttpd C server, same load generator
# (wrk), same machine, same run, alternating rounds. Prints each round and the medians.
#   Benchmarks/healthz/run.sh [--quick] [--rounds N] [--duration S] [--fod PATH]
# --quick: one short round against the debug build (a smoke test for CI; figures meaningless).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
rounds=5; duration=10; connections=64; threads=2; fod="$root/.build/release/fod"; quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; rounds=1; duration=2; fod="$root/.build/debug/fod" ;;
    --rounds) rounds="$2"; shift ;;
    --duration) duration="$2"; shift ;;
    --fod) fod="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
[ -x "$fod" ] || { echo "no fod binary at $fod (swift build -c release)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
gcc -O2 -o "$work/hello" "$here/hello.c" $(pkg-config --cflags --libs libmicrohttpd)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { for _ in $(seq 1 2400); do curl -sf "http://127.0.0.1:$1/healthz" >/dev/null && return 0; sleep 0.05; done; echo "server on $1 did not start" >&2; exit 1; }

fod_port=$(free_port)
"$fod" serve --port "$fod_port" --bind 127.0.0.1 --data "$work/data" --log-level "${FOD_BENCH_LOG_LEVEL:-info}" 2>"$work/fod.log" >/dev/null &
hello_port=$(free_port)
"$work/hello" "$hello_port" >/dev/null &
wait_ready "$fod_port"; wait_ready "$hello_port"

# wrk output -> "req_per_s p99_ms"
measure() {
  wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "http://127.0.0.1:$1/healthz" > "$work/wrk.txt"
  python3 - "$work/wrk.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", text)
p99 = float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)]
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(f"{rps:.0f} {p99:.3f} {errors.group(1) if errors else 0}")
PY
}

[ "$quick" = 1 ] && echo "(--quick: a smoke run on the debug build; the figures mean nothing)"
echo "GET /healthz, wrk -t$threads -c$connections -d${duration}s, $rounds round(s), $(nproc) cores"
: > "$work/results"
for r in $(seq 1 "$rounds"); do
  read -r f_rps f_p99 f_err <<<"$(measure "$fod_port")"
  read -r h_rps h_p99 h_err <<<"$(measure "$hello_port")"
  echo "round $r: fod $f_rps req/s p99 ${f_p99} ms (non-2xx $f_err) | C hello $h_rps req/s p99 ${h_p99} ms (non-2xx $h_err)"
  echo "$f_rps $f_p99 $h_rps $h_p99 $f_err" >> "$work/results"
done
python3 - "$work/results" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
f_rps = statistics.median(r[0] for r in rows); f_p99 = statistics.median(r[1] for r in rows)
h_rps = statistics.median(r[2] for r in rows); h_p99 = statistics.median(r[3] for r in rows)
ratios = [r[0] / r[2] for r in rows]
print(f"median: fod {f_rps:.0f} req/s p99 {f_p99:.3f} ms | C hello {h_rps:.0f} req/s p99 {h_p99:.3f} ms")
print(f"ratio fod/C (median of per-round ratios): {statistics.median(ratios):.2f}")
if any(r[4] > 0 for r in rows):
    print("FAIL: fod answered non-2xx"); sys.exit(1)
PY
