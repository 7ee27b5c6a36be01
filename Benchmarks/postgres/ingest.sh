#!/usr/bin/env bash
# Durable batched ingest, side by side in one run (issue: scale out): wrk, 100 fixes a request
# with client ids, 64 keep-alive connections, synchronous commits everywhere —
#   (1) one node on SQLite (--sync full), (2) one node on PostgreSQL, (3) three nodes on
#   PostgreSQL behind HAProxy, (4) raw binary COPY of the same number of rows on the same server
#   (fod-postgres-bench), the ceiling: into a table with two indexes, and into a copy of the
#   store's own fixes table (its columns and four indexes, client ids).
# One throwaway PostgreSQL 15 (scripts/pg-test-server.sh: fsync and synchronous_commit on).
#   Benchmarks/postgres/ingest.sh [--duration S] [--rounds N] [--perf DIR] [--quick]
# --perf DIR: a system-wide `perf record -g` of each measured window into DIR/<label>-<time>.data.
# --rounds N: interleaved rounds of the two PostgreSQL set-ups (default 3), compared by median.
# --quick: 2 s each on the debug build (a smoke; figures meaningless).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
duration=10; config=release; copy_rows=1000000; perf_dir=""; rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) duration=2; config=debug; copy_rows=20000; rounds=1 ;;
    --rounds) rounds="$2"; shift ;;
    --duration) duration="$2"; shift ;;
    --perf) perf_dir="$(cd "$2" && pwd)"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac; shift
done
bin="$root/.build/$config"
[ -x "$bin/fod" ] && [ -x "$bin/fod-postgres-bench" ] || { echo "build first: swift build -c $config" >&2; exit 1; }
command -v wrk >/dev/null && command -v haproxy >/dev/null || { echo "needs wrk and haproxy (apt-get install wrk haproxy)" >&2; exit 1; }
work="$(mktemp -d)"
chmod 755 "$work"  # the postgres user (the server runs as it when we are root) must reach pg/ inside
pgdir="$work/pg"
cleanup() {
  [ -f "$work/haproxy.pid" ] && kill "$(cat "$work/haproxy.pid")" 2>/dev/null || true
  kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true
  "$root/scripts/pg-test-server.sh" stop "$pgdir" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$1/healthz" >/dev/null && return 0; sleep 0.05; done; return 1; }
"$root/scripts/pg-test-server.sh" start "$pgdir" >/dev/null
pgurl="$("$root/scripts/pg-test-server.sh" url "$pgdir")"
psql_admin() { (cd / && runuser -u postgres -- /usr/lib/postgresql/15/bin/psql -X -q -h 127.0.0.1 -p "$(cat "$pgdir/port")" -U postgres -d postgres "$@") 2>/dev/null \
  || /usr/lib/postgresql/15/bin/psql -X -q -h 127.0.0.1 -p "$(cat "$pgdir/port")" -U postgres -d postgres "$@"; }
# WAL position (bytes), checkpoints started, WAL flushes and full-page images so far, "|"-separated.
pg_state() {
  psql_admin -A -t -c "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn, (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter),
    wal_sync, wal_fpi FROM pg_stat_wal" | tr -d ' '
}
echo "cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg); wrk -t2 -c64 -d${duration}s, 100 fixes/request"

start_node() {  # port, extra args...
  local port="$1"; shift
  "$bin/fod" serve --port "$port" --bind 127.0.0.1 --log-level warning --password-cost minimal --signup open --device-request-rate 0 "$@" \
    >/dev/null 2>>"$work/fod.log" &
  wait_up "$port" || { tail -n 20 "$work/fod.log" >&2; exit 1; }
}

make_devices() {  # port -> devices file
  python3 - "$1" "$work/devices.txt" <<'PY'
import json, sys, urllib.request, uuid
port, out = sys.argv[1], sys.argv[2]
def call(method, path, body, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method=method,
                                 headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})})
    return json.load(urllib.request.urlopen(req))
user = call("POST", "/v1/users", {"email": f"bench-{uuid.uuid4().hex[:8]}@example.org", "password": "bench-password", "displayName": "Bench"})
with open(out, "w") as f:
    for i in range(64):
        d = call("POST", "/v1/devices", {"name": f"tracker {i}"}, user["token"])
        f.write(f'{d["device"]["id"]} {d["deviceToken"]}\n')
PY
}

# "pid ticks" for each given process: CPU clock ticks (user + system) it used so far.
cpu_snapshot() {
  local pid
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] && echo "$pid $(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')"
  done
  true
}
# Ticks used between two snapshots by the processes of the second; one that started in between
# (a connection a node opens on first use, such as its second writer) counts from zero.
cpu_delta() { awk 'NR == FNR { before[$1] = $2; next } { total += $2 - (($1 in before) ? before[$1] : 0) } END { print total + 0 }' "$1" "$2"; }
# This run's PostgreSQL server: its postmaster and every process it started (backends, workers).
pg_pids() {
  local postmaster; postmaster=$(head -n 1 "$pgdir/data/postmaster.pid")
  echo "$postmaster $(pgrep -P "$postmaster" | tr '\n' ' ')"
}

measure() {  # label, port, "db" to account the PostgreSQL server's CPU too
  make_devices "$2"
  local nodes pg=""
  nodes=$(jobs -p | tr '\n' ' ')
  [ "${3:-}" = db ] && pg=yes
  # Each database run starts from a checkpoint, so neither pays more of the full-page images
  # that the first change of a page after one writes to the WAL; the window's WAL volume and
  # checkpoints are printed with it.
  local wal0="" wal1=""
  if [ -n "$pg" ]; then psql_admin -c "CHECKPOINT" >/dev/null; wal0=$(pg_state); fi
  cpu_snapshot $nodes >"$work/node0"; : >"$work/pg0"; : >"$work/pg1"
  [ -n "$pg" ] && cpu_snapshot $(pg_pids) >"$work/pg0"
  local perfpid=""
  if [ -n "$perf_dir" ]; then
    perf record -a -g -F 499 -o "$perf_dir/$(echo "$1" | tr -c 'a-zA-Z0-9\n' '-')-$(date +%s).data" -- sleep "$duration" >/dev/null 2>&1 &
    perfpid=$!
  fi
  FOD_BATCH=100 FOD_BASE_MS=$(( $(date +%s) * 1000 - 3600000 )) wrk -t2 -c64 -d"${duration}s" --latency -s "$root/Benchmarks/ingest/post.lua" \
    "http://127.0.0.1:$2" -- "$work/devices.txt" >"$work/wrk.txt"
  cpu_snapshot $nodes >"$work/node1"
  [ -n "$pg" ] && cpu_snapshot $(pg_pids) >"$work/pg1"
  [ -n "$perfpid" ] && { wait "$perfpid" || true; }
  [ -n "$pg" ] && wal1=$(pg_state)
  python3 - "$1" "$work/wrk.txt" "$(cpu_delta "$work/node0" "$work/node1")" "$(cpu_delta "$work/pg0" "$work/pg1")" "$(getconf CLK_TCK)" "$wal0" "$wal1" "$work/rates.txt" <<'PY'
import re, sys
label, t = sys.argv[1], open(sys.argv[2]).read()
node_ticks, pg_ticks, hz = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
wal = [list(map(int, s.split("|"))) for s in sys.argv[6:8] if s]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
m = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", t); p99 = float(m.group(1)) * {"us": .001, "ms": 1, "s": 1000}[m.group(2)]
e = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
print(f"{label:<34} {rps * 100:>9.0f} fixes/s  p99 {p99:7.1f} ms  non-2xx {e.group(1) if e else 0}")
open(sys.argv[8], "a").write(f"{label}\t{rps * 100}\n")
# CPU per request and per fix of the nodes (the fod processes) and of the database server (its
# postgres processes), from their clock ticks over the wrk window: what one core of each sustains.
requests = int(re.search(r"(\d+) requests in", t).group(1))
if requests:
    for name, ticks in (("node", node_ticks), ("database", pg_ticks)):
        if ticks:
            per_fix_us = ticks / hz / (requests * 100) * 1e6
            print(f"  {name:<8} CPU {ticks / hz:6.2f} s: {per_fix_us * 100 / 1000:5.2f} ms a request, {per_fix_us:5.1f} µs a fix; "
                  f"one core: {1e6 / per_fix_us:8.0f} fixes/s")
    if len(wal) == 2:
        print(f"  WAL {(wal[1][0] - wal[0][0]) / (requests * 100):6.0f} bytes a fix ({wal[1][3] - wal[0][3]} full-page images); "
              f"checkpoints in the window: {wal[1][1] - wal[0][1]}; WAL flushes: {wal[1][2] - wal[0][2]} "
              f"({requests * 100 / max(1, wal[1][2] - wal[0][2]):.0f} fixes each)")
PY
}

stop_nodes() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; }

# (1) SQLite
p=$(free_port); start_node "$p" --data "$work/sqlite" --sync full
measure "1 node, SQLite (sync full)" "$p"; stop_nodes

# (2) one node on PostgreSQL and (3) three nodes on PostgreSQL behind HAProxy, in `rounds`
# interleaved rounds (odd rounds one node first, even rounds three nodes first), each on a new
# database: this machine's noise moves single runs by a third, so the summary compares medians.
# The three nodes open one writer each (FOD_CLUSTER_NODE_ARGS changes it): the cluster's writers
# are sized to the database, as in production — three nodes with two each kept six transactions
# in flight on this 2-core server, and smaller group commits made ~0.85x one node's rate where
# one writer each made 0.91-1.01x.
one_node() {  # round
  psql_admin -c "CREATE DATABASE bench_one_$1" >/dev/null
  local p; p=$(free_port); start_node "$p" --database "${pgurl%/postgres}/bench_one_$1"
  measure "1 node, PostgreSQL" "$p" db; stop_nodes
}
three_nodes() {  # round
  psql_admin -c "CREATE DATABASE bench_three_$1" >/dev/null
  local servers="" n p front
  for n in 1 2 3; do
    p=$(free_port); start_node "$p" --database "${pgurl%/postgres}/bench_three_$1" ${FOD_CLUSTER_NODE_ARGS:---database-writers 1}
    servers+="    server node$n 127.0.0.1:$p check"$'\n'
  done
  front=$(free_port)
  cat >"$work/haproxy.cfg" <<CFG
global
    maxconn 4000
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
frontend fod
    bind 127.0.0.1:$front
    default_backend nodes
backend nodes
    balance roundrobin
$servers
CFG
  haproxy -f "$work/haproxy.cfg" -D -p "$work/haproxy.pid"
  wait_up "$front"
  measure "3 nodes, PostgreSQL, HAProxy" "$front" db
  kill "$(cat "$work/haproxy.pid")" 2>/dev/null || true; rm -f "$work/haproxy.pid"; stop_nodes
}
for round in $(seq 1 "$rounds"); do
  echo "-- round $round of $rounds"
  if [ $((round % 2)) = 1 ]; then one_node "$round"; three_nodes "$round"; else three_nodes "$round"; one_node "$round"; fi
done

# (4) the ceiling: raw binary COPY of as many rows, same server, 10,000 rows a transaction: into
# a table with two indexes (unique (device, seq), cell), and into a copy of the store's own fixes
# table (its columns, its four indexes, a client id on every row, as wrk sends).
for layout in indexed store; do
  "$bin/fod-postgres-bench" --url "$pgurl" --layout "$layout" --rows "$copy_rows" --batch 10000 --single-row-rows 1000 --rounds 1 \
    | grep -E "server:|:$|COPY binary, one per batch" | tee -a "$work/copy.txt"
done
python3 - "$work/rates.txt" "$work/copy.txt" <<'PY'
import re, statistics, sys
rates = {}
for line in open(sys.argv[1]):
    label, rate = line.rstrip("\n").split("\t")
    rates.setdefault(label, []).append(float(rate))
one, three = rates.get("1 node, PostgreSQL", []), rates.get("3 nodes, PostgreSQL, HAProxy", [])
copies = [float(x) * 1000 for x in re.findall(r"COPY binary, one per batch\s+([\d.]+)k rows/s", open(sys.argv[2]).read())]
if one and three:
    m1, m3 = statistics.median(one), statistics.median(three)
    print(f"summary over {len(one)} rounds: 1 PostgreSQL node median {m1:,.0f} fixes/s, 3 nodes median {m3:,.0f}: "
          f"3 / 1 = {m3 / m1:.2f} (rounds: {', '.join(f'{b / a:.2f}' for a, b in zip(one, three))})")
    if len(copies) == 2:
        print(f"3 nodes / COPY: {m3 / copies[0]:.2f} of the two-index table, {m3 / copies[1]:.2f} of the store's table")
PY
