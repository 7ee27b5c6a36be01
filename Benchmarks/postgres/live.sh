#!/usr/bin/env bash
# Live delivery across nodes (issue: scale out): three `fod` nodes on one throwaway PostgreSQL;
# 1,000 subscribers of one group hold their streams on node 3 while fixes are posted to node 1
# at a steady 2,000 fixes/s (100/s from the group's 10 devices, the rest from 190 devices
# outside it). Delivery latency: the fix's send time, stamped by the poster, to the subscriber's
# receipt of its event (Benchmarks/live/sselab.c, which also checks every stream's event ids are
# contiguous). For comparison in the same run: posts and streams on the same node.
#   Benchmarks/postgres/live.sh [--duration S] [--subscribers N] [--rate FIXES_PER_S] [--quick]
# (--rate: single-fix posts a second in all; one node on PostgreSQL takes about 500 a second
# here, so 2,000 measures its queue more than the relay)
# --quick: 2 s on the debug build, 100 subscribers (a smoke; figures meaningless).
# FOD_LIVE_NODE_ARGS: more flags for every node's `fod serve` (e.g. --threads 8).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
duration=15; config=release; subscribers=1000; rate=2000
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) duration=2; config=debug; subscribers=100; rate=200 ;;
    --duration) duration="$2"; shift ;;
    --subscribers) subscribers="$2"; shift ;;
    --rate) rate="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac; shift
done
bin="$root/.build/$config"
[ -x "$bin/fod" ] || { echo "build first: swift build -c $config" >&2; exit 1; }
ulimit -n 65536 2>/dev/null || ulimit -n 16384
work="$(mktemp -d)"
chmod 755 "$work"  # the postgres user (the server runs as it when we are root) must reach pg/ inside
pgdir="$work/pg"
cleanup() {
  kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true
  "$root/scripts/pg-test-server.sh" stop "$pgdir" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
gcc -O2 -o "$work/sselab" "$root/Benchmarks/live/sselab.c"
"$root/scripts/pg-test-server.sh" start "$pgdir" >/dev/null
pgurl="$("$root/scripts/pg-test-server.sh" url "$pgdir")"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ports=()
for n in 1 2 3; do
  p=$(free_port)
  "$bin/fod" serve --port "$p" --bind 127.0.0.1 --database "$pgurl" --password-cost minimal --signup open --log-level warning \
    --per-ip-limit 0 --max-connections 30000 --sign-in-limit 100000 --sign-in-address-limit 100000 --sign-up-limit 100000 \
    --invitation-limit 100000 --device-request-rate 0 --streams-per-user 100000 ${FOD_LIVE_NODE_ARGS:-} >/dev/null 2>>"$work/fod.err" &
  for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$p/healthz" >/dev/null && break; sleep 0.05; done
  ports+=("$p")
done
echo "cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg); $subscribers subscribers of one group, $rate fixes/s, ${duration} s"
# The group's share of the posts is 1/20 (100 of 2,000 a second in Benchmarks/live/run.sh).
python3 "$root/Benchmarks/live/setup.py" "${ports[0]}" 1 10 "$subscribers" 190 "$work/a"
echo "== streams on node 3, posts to node 1"
"$work/sselab" --port "${ports[2]}" --post-port "${ports[0]}" --subscribers "$work/a.subs" --devices "$work/a.devices" \
  --rate "$rate" --posters 48 --duration "$duration" --warmup 3
echo "== streams and posts on node 1 (the same group and devices)"
"$work/sselab" --port "${ports[0]}" --subscribers "$work/a.subs" --devices "$work/a.devices" --rate "$rate" --posters 48 --duration "$duration" --warmup 3
