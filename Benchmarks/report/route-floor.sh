#!/usr/bin/env bash
# The floor of a request on this machine (issue 16): one kept-alive connection, blocking
# write/read round trips, the same C client for Redis `PING` and our `GET /healthz` (no
# database), alternating, three rounds of 20,000 round trips each (`benchclient round-trip`).
# Whatever a query adds over HTTP or RESP comes on top of this.
#   Benchmarks/report/route-floor.sh [--bin DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
bin="$root/.build/release"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac; shift
done
[ -x "$bin/fod" ] || { echo "build first: swift build -c release" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "needs redis-server (apt-get install redis-server)" >&2; exit 1; }
work="$(mktemp -d)"; server=""; redis=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; [ -n "$redis" ] && kill "$redis" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
gcc -O2 -Wall -o "$work/benchclient" "$here"/client/{common,net,sql}.c -I"$(pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)" \
  -lpq -lsqlite3 -lm -lpthread
port=$(free_port); redis_port=$(free_port)
"$bin/fod" serve --port "$port" --bind 127.0.0.1 --data "$work/data" --log-level warning --password-cost minimal \
  >/dev/null 2>"$work/fod.log" &
server=$!
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" >/dev/null &
redis=$!
for _ in $(seq 1 2400); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
for _ in $(seq 1 2400); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.05; done
echo "round trips on one kept-alive connection, 20,000 a round; p50 / p90 / p99 in µs"
for round in 1 2 3; do
  printf 'round %s  Redis PING     %s\n' "$round" "$("$work/benchclient" round-trip 127.0.0.1 "$redis_port" 'PING\r\n' '+PONG\r\n' 20000)"
  printf 'round %s  fod /healthz   %s\n' "$round" "$("$work/benchclient" round-trip 127.0.0.1 "$port" \
    'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' '{"status":"ok"}' 20000)"
done
