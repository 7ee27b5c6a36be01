#!/usr/bin/env bash
# Live feed benchmark. Ingest → delivery latency (the fix's own send time, stamped by the
# poster, to the subscriber's receipt of the event) with a steady 2,000 fixes/s:
#  (A) 1,000 subscribers on one group: 100 of the 2,000 fixes/s come from that group's 10
#      devices (100,000 deliveries/s), the rest from 190 devices outside any watched group;
#  (B) 100 groups × 10 subscribers: all 2,000 fixes/s from the groups' 200 devices
#      (20,000 deliveries/s);
#  (C) memory per idle stream: server RSS before and after opening 10,000 idle streams.
# Every stream checks its event ids are contiguous (nothing missed).
#   Benchmarks/live/run.sh [--duration S] [--quick]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
duration=15; config=release; scale=1
while [ $# -gt 0 ]; do case "$1" in --duration) duration="$2"; shift ;; --quick) duration=2; config=debug; scale=10; echo "(--quick: a smoke run on the debug build at 1/10 scale; the figures mean nothing)" ;; *) exit 2 ;; esac; shift; done
ulimit -n 65536 2>/dev/null || ulimit -n 16384
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
gcc -O2 -o "$work/sselab" "$here/sselab.c"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$root/.build/$config/fod" serve --port "$port" --bind 127.0.0.1 --data "$work/data" --password-cost minimal --signup open --log-level warning \
  --per-ip-limit 0 --max-connections 30000 --sign-in-limit 100000 \
  --sign-in-address-limit 100000 --sign-up-limit 100000 --device-request-rate 0 --streams-per-user 100000 --sync "${FOD_SYNC:-full}" ${FOD_SERVE_ARGS:-} >/dev/null 2>"$work/fod.err" &
pid=$!
for _ in $(seq 1 2400); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
rss() { awk '/VmRSS/ {print $2}' /proc/$pid/status; }
# The server's CPU (user + system, all threads) in seconds, and what a phase cost a delivered
# event: on a shared machine it moves less than the latencies do.
tick=$(getconf CLK_TCK)
cpu() { awk -v t="$tick" '{printf "%.3f", ($14 + $15) / t}' "/proc/$pid/stat"; }
phase() {  # sselab's arguments; prints its report and the server's CPU per delivered event
  local c0 c1; c0=$(cpu)
  "$work/sselab" "$@" | tee "$work/phase.out"
  c1=$(cpu)
  python3 - "$work/phase.out" "$c0" "$c1" <<'PY'
import re, sys
text, c0, c1 = open(sys.argv[1]).read(), float(sys.argv[2]), float(sys.argv[3])
m = re.search(r"location events received (\d+)", text)
if m and int(m.group(1)):
    print(f"server CPU {c1 - c0:.2f} s over the phase (warm-up included): {(c1 - c0) * 1e6 / int(m.group(1)):.2f} µs an event received")
PY
}

echo "== (A) 1,000 subscribers on one group; 2,000 fixes/s in all, 100/s from the group"
python3 "$here/setup.py" "$port" 1 10 $((${FOD_LIVE_SUBSCRIBERS:-1000} / scale)) 190 "$work/a"
phase --port "$port" --subscribers "$work/a.subs" --devices "$work/a.devices" --rate $((2000 / scale)) --duration "$duration" --warmup 3
echo "== (B) 100 groups x 10 subscribers; 2,000 fixes/s from the groups' 200 devices"
python3 "$here/setup.py" "$port" $((100 / scale)) 2 10 0 "$work/b"
phase --port "$port" --subscribers "$work/b.subs" --devices "$work/b.devices" --rate $((2000 / scale)) --duration "$duration" --warmup 3
echo "== (C) memory per idle stream: $((10000 / scale)) idle streams"
python3 "$here/setup.py" "$port" 1 10 $((10000 / scale)) 0 "$work/c"
before=$(rss)
"$work/sselab" --port "$port" --subscribers "$work/c.subs" --duration 30 --warmup 0 > "$work/c.out" 2> "$work/c.err" &
lab=$!
# Measure once every stream has its snapshot (sselab says so), then stop the streams.
for _ in $(seq 1 600); do grep -q "streams open" "$work/c.err" && break; sleep 0.05; done
grep "streams open" "$work/c.err"
after=$(rss)
kill $lab 2>/dev/null || true
wait $lab || true
python3 -c "print(f'server RSS {$before/1024:.1f} MiB -> {$after/1024:.1f} MiB with $((10000 / scale)) idle streams: {($after-$before)/$((10000 / scale)):.1f} KiB per stream')"
