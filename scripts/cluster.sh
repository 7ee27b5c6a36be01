#!/usr/bin/env bash
# A Find Our Devices cluster on loopback: a PostgreSQL 15 primary with a synchronous streaming
# replica, three `fod` nodes on it, and HAProxy in front (health checks on /healthz,
# SSE-friendly timeouts). Everything lives in one temporary directory, deleted at stop.
#
#   scripts/cluster.sh start [--fod PATH] [--port N] [--patroni]
#                                                      starts it; prints the URL, then the state
#                                                      directory on the next line
#   scripts/cluster.sh stop DIR                        stops every process and deletes DIR
#   scripts/cluster.sh run [--fod PATH] [--port N] [--patroni]
#                                                      starts it and stops it on Ctrl-C (make cluster
#                                                      runs it with --patroni)
#
# The nodes reach the database through libpq's multi-host URI with
# target_session_attrs=read-write, so they follow whichever server is primary. Without
# --patroni the replica is promoted by hand (`pg-test-server.sh promote DIR/replica`); with
# it, Patroni and etcd run the primary and its synchronous standby and fail over by themselves
# (scripts/patroni-cluster.sh, state in DIR/db; `patroni-cluster.sh kill-primary DIR/db` tries
# it). Node logs: DIR/node-N.log; HAProxy: DIR/haproxy.cfg.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
pg="$root/scripts/pg-test-server.sh"

die() { echo "cluster: $*" >&2; exit 1; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

wait_http() {
  local url="$1" tries=0
  until curl -fsS -o /dev/null "$url" 2>/dev/null; do
    tries=$((tries + 1)); [ "$tries" -lt 300 ] || return 1
    sleep 0.1
  done
}

cmd_start() {
  local fod="$root/.build/release/fod" port="" patroni=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --fod) fod="$2"; shift 2 ;;
      --port) port="$2"; shift 2 ;;
      --patroni) patroni=1; shift ;;
      *) die "unexpected argument $1" ;;
    esac
  done
  [ -x "$fod" ] || die "no fod binary at $fod (swift build -c release --product fod)"
  command -v haproxy >/dev/null || die "haproxy not installed (apt-get install haproxy)"
  local dir; dir="$(mktemp -d "${TMPDIR:-/tmp}/fod-cluster.XXXXXX")"
  touch "$dir/.fod-cluster"
  chmod 755 "$dir"  # the postgres user (the servers run as it when we are root) must reach primary/ and replica/
  local url
  if [ "$patroni" -eq 1 ]; then
    url="$("$root/scripts/patroni-cluster.sh" start "$dir/db")" || { cmd_stop "$dir"; die "Patroni did not start"; }
  else
    "$pg" start "$dir/primary" >/dev/null
    "$pg" replica "$dir/primary" "$dir/replica" --name replica --sync >/dev/null
    local primary_port replica_port
    primary_port="$(cat "$dir/primary/port")"; replica_port="$(cat "$dir/replica/port")"
    url="postgresql://postgres@127.0.0.1:$primary_port,127.0.0.1:$replica_port/postgres?target_session_attrs=read-write&connect_timeout=5"
  fi
  echo "$url" >"$dir/database-url"
  local servers=""
  for n in 1 2 3; do
    local node_port; node_port="$(free_port)"
    "$fod" serve --port "$node_port" --bind 127.0.0.1 --database "$url" --trusted-proxies 127.0.0.1 \
      >"$dir/node-$n.log" 2>&1 &
    echo $! >"$dir/node-$n.pid"
    echo "$node_port" >"$dir/node-$n.port"
    servers+="    server node$n 127.0.0.1:$node_port check inter 1s fall 2 rise 2"$'\n'
  done
  for n in 1 2 3; do
    wait_http "http://127.0.0.1:$(cat "$dir/node-$n.port")/healthz" || { tail -n 20 "$dir/node-$n.log" >&2; cmd_stop "$dir"; die "node $n did not start"; }
  done
  port="${port:-$(free_port)}"
  cat >"$dir/haproxy.cfg" <<CFG
global
    maxconn 4000
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    # Live streams (SSE) stay open; heartbeats every 15 s keep them within this.
    timeout tunnel 1h
    option http-server-close
    # The nodes trust loopback (--trusted-proxies): per-address limits count the real client.
    option forwardfor
frontend fod
    bind 127.0.0.1:$port
    default_backend nodes
backend nodes
    balance roundrobin
    option httpchk GET /healthz
    http-check expect status 200
$servers
CFG
  haproxy -f "$dir/haproxy.cfg" -D -p "$dir/haproxy.pid" || { cmd_stop "$dir"; die "haproxy did not start"; }
  echo "$port" >"$dir/port"
  wait_http "http://127.0.0.1:$port/healthz" || { cmd_stop "$dir"; die "haproxy does not answer"; }
  echo "http://127.0.0.1:$port"
  echo "$dir"
}

cmd_stop() {
  local dir="${1:?stop needs the cluster directory}"
  [ -f "$dir/.fod-cluster" ] || die "$dir is not a cluster directory"
  [ -f "$dir/haproxy.pid" ] && kill "$(cat "$dir/haproxy.pid")" 2>/dev/null || true
  for n in 1 2 3; do
    if [ -f "$dir/node-$n.pid" ]; then
      local pid; pid="$(cat "$dir/node-$n.pid")"
      kill "$pid" 2>/dev/null || true
      # Wait for a clean shutdown (it finishes in-flight requests), at most 30 s.
      for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  "$root/scripts/patroni-cluster.sh" stop "$dir/db" 2>/dev/null || true
  "$pg" stop "$dir/replica" 2>/dev/null || true
  "$pg" stop "$dir/primary" 2>/dev/null || true
  rm -rf "$dir"
}

cmd_run() {
  local output; output="$(cmd_start "$@")"
  local url dir; url="$(echo "$output" | sed -n 1p)"; dir="$(echo "$output" | sed -n 2p)"
  trap 'cmd_stop "$dir"; exit 0' INT TERM
  local database="PostgreSQL primary + synchronous replica"
  case " $* " in *" --patroni "*) database="PostgreSQL primary + synchronous standby run by Patroni (failover by itself)" ;; esac
  echo "cluster at $url (3 nodes, $database, HAProxy); Ctrl-C stops it"
  echo "state in $dir"
  while true; do sleep 3600 & wait $!; done
}

command="${1:-}"; [ $# -gt 0 ] && shift
case "$command" in
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  run) cmd_run "$@" ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; [ -n "$command" ] && exit 2; exit 0 ;;
esac
