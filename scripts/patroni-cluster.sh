#!/usr/bin/env bash
# A PostgreSQL 15 primary and its synchronous standby run by Patroni, with a one-member etcd as
# Patroni's store, on loopback: every program our own (no system service), in one directory,
# on free ports; Patroni fails over by itself when the primary dies.
#
#   scripts/patroni-cluster.sh start DIR        starts etcd and two Patroni members (pg1, pg2) in
#                                               DIR; returns once there is a primary and a
#                                               synchronous standby; prints the nodes' database URL
#   scripts/patroni-cluster.sh url DIR          prints that URL again
#   scripts/patroni-cluster.sh primary DIR      prints the name of the member that is primary now
#   scripts/patroni-cluster.sh kill-primary DIR kill -9 of the primary's postmaster; prints its name
#   scripts/patroni-cluster.sh wait-primary DIR OLD
#                                               waits (at most 120 s) until a member other than OLD
#                                               is primary with a synchronous standby; prints its name
#   scripts/patroni-cluster.sh stop DIR         stops Patroni (and its servers) and etcd; deletes DIR
#   scripts/patroni-cluster.sh supervise        for test processes: starts in a new temporary
#                                               directory, prints "ready DIR URL", stops and deletes
#                                               it when its standard input closes
#
# The URL is libpq's multi-host one with target_session_attrs=read-write: libpq tries both
# members and keeps the one that accepts writes, so the nodes follow the primary Patroni
# chose. Patroni (Debian's `patroni`, with python3-etcd) talks to etcd (`etcd-server`) over
# its v3 API; synchronous_mode makes every commit wait for the standby, so a failover loses
# nothing acknowledged, and primary_start_timeout 0 fails over at once when the primary's
# postmaster dies instead of restarting it. As root, Patroni and PostgreSQL run as `postgres`.
# Logs: DIR/etcd.log, DIR/pg1/patroni.log, DIR/pg2/patroni.log.
set -euo pipefail

PG_BIN="${FOD_PG_BIN:-/usr/lib/postgresql/15/bin}"
members=(pg1 pg2)

die() { echo "patroni-cluster: $*" >&2; exit 1; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

require_programs() {
  command -v patroni >/dev/null || { echo "patroni-cluster: patroni not installed (apt-get install patroni)" >&2; exit 3; }
  command -v etcd >/dev/null || { echo "patroni-cluster: etcd not installed (apt-get install etcd-server)" >&2; exit 3; }
  [ -x "$PG_BIN/postgres" ] || { echo "patroni-cluster: no PostgreSQL 15 in $PG_BIN (apt-get install postgresql-15)" >&2; exit 3; }
}

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else (cd / && "$@"); fi
}

# Runs "$@" in the background without the descriptors our caller passed down (a test process
# watches its child's descriptors to learn when it exits), as `postgres` when we are root,
# appending to log $2; its process id goes to file $1.
spawn() {
  local pidfile="$1" log="$2"; shift 2
  (
    for fd_path in /proc/$BASHPID/fd/*; do
      fd="${fd_path##*/}"
      case "$fd" in 0|1|2|255) ;; *) eval "exec $fd>&-" 2>/dev/null || true ;; esac
    done
    exec </dev/null >>"$log" 2>&1
    cd /
    # setpriv executes the program in its own place: the process id written is the program's.
    if [ "$(id -u)" -eq 0 ]; then
      setpriv --reuid postgres --regid postgres --init-groups "$@" &
    else
      "$@" &
    fi
    echo $! >"$pidfile"
  )
}

rest_status() {  # the HTTP status of Patroni's REST endpoint $2 on member directory $1
  curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$(cat "$1/rest-port")/$2" 2>/dev/null || true
}

primary_of() {
  local dir="$1" member
  for member in "${members[@]}"; do
    [ "$(rest_status "$dir/$member" primary)" = 200 ] && { echo "$member"; return 0; }
  done
  return 1
}

# Waits (polling, at most $3 s) until a member other than $2 is primary and another member is
# its synchronous standby; prints the primary's name.
wait_ready() {
  local dir="$1" not="$2" limit="$3" tries=0 primary member
  while true; do
    if primary="$(primary_of "$dir")" && [ "$primary" != "$not" ]; then
      for member in "${members[@]}"; do
        [ "$member" != "$primary" ] && [ "$(rest_status "$dir/$member" sync)" = 200 ] && { echo "$primary"; return 0; }
      done
    fi
    tries=$((tries + 1)); [ "$tries" -lt $((limit * 5)) ] || return 1
    sleep 0.2
  done
}

url_of() {
  local dir="$1" hosts="" member
  for member in "${members[@]}"; do hosts+="${hosts:+,}127.0.0.1:$(cat "$dir/$member/pg-port")"; done
  echo "postgresql://postgres@$hosts/postgres?target_session_attrs=read-write&connect_timeout=5"
}

write_config() {
  local dir="$1" member="$2" etcd_port="$3"
  cat >"$dir/$member/patroni.yml" <<YAML
scope: fod
name: $member
log:
  level: WARNING
restapi:
  listen: 127.0.0.1:$(cat "$dir/$member/rest-port")
  connect_address: 127.0.0.1:$(cat "$dir/$member/rest-port")
etcd3:
  hosts: 127.0.0.1:$etcd_port
bootstrap:
  dcs:
    # Seconds. A dead Patroni agent loses the leader key after ttl; a dead postmaster under a
    # live agent fails over at once (primary_start_timeout 0).
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    primary_start_timeout: 0
    synchronous_mode: true
    maximum_lag_on_failover: 1048576
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 300
        fsync: "on"
        synchronous_commit: "on"
        wal_keep_size: 256MB
  initdb:
    - encoding: UTF8
    - locale: C
    - auth: trust
  pg_hba:
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$(cat "$dir/$member/pg-port")
  connect_address: 127.0.0.1:$(cat "$dir/$member/pg-port")
  data_dir: $dir/$member/data
  bin_dir: $PG_BIN
  pgpass: $dir/$member/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: ''
YAML
}

cmd_start() {
  require_programs
  local dir="${1:?start needs a directory}"
  mkdir -p "$dir"
  touch "$dir/.fod-patroni"
  local etcd_port peer_port member
  etcd_port="$(free_port)"; peer_port="$(free_port)"
  mkdir -p "$dir/etcd"
  for member in "${members[@]}"; do
    mkdir -p "$dir/$member"
    free_port >"$dir/$member/rest-port"
    free_port >"$dir/$member/pg-port"
    write_config "$dir" "$member" "$etcd_port"
  done
  [ "$(id -u)" -ne 0 ] || chown -R postgres:postgres "$dir"
  chmod 700 "$dir"/pg*
  # etcd 3.4 serves its v3 API (what Patroni's etcd3 section uses) by default.
  spawn "$dir/etcd.pid" "$dir/etcd.log" etcd --name fod --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "fod=http://127.0.0.1:$peer_port" --initial-cluster-state new
  local tries=0
  until curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$etcd_port/health" 2>/dev/null; do
    tries=$((tries + 1)); [ "$tries" -lt 300 ] || { tail -n 20 "$dir/etcd.log" >&2; die "etcd did not start"; }
    sleep 0.1
  done
  # pg1 first, so that it bootstraps the cluster; pg2 clones it once it leads.
  spawn "$dir/pg1/patroni.pid" "$dir/pg1/patroni.log" patroni "$dir/pg1/patroni.yml"
  tries=0
  until [ "$(rest_status "$dir/pg1" primary)" = 200 ]; do
    tries=$((tries + 1)); [ "$tries" -lt 600 ] || { tail -n 30 "$dir/pg1/patroni.log" >&2; die "pg1 did not become primary"; }
    sleep 0.2
  done
  spawn "$dir/pg2/patroni.pid" "$dir/pg2/patroni.log" patroni "$dir/pg2/patroni.yml"
  wait_ready "$dir" "" 120 >/dev/null || { tail -n 30 "$dir/pg2/patroni.log" >&2; die "no synchronous standby"; }
  url_of "$dir"
}

cmd_kill_primary() {
  local dir="${1:?kill-primary needs the directory}" primary pid
  primary="$(primary_of "$dir")" || die "no primary now"
  pid="$(head -n 1 "$dir/$primary/data/postmaster.pid")"
  kill -9 "$pid"
  echo "$primary"
}

cmd_stop() {
  local dir="${1:?stop needs the directory}" member pidfile pid pids=() tries=0
  [ -d "$dir" ] || return 0
  [ -f "$dir/.fod-patroni" ] || die "$dir was not made by patroni-cluster.sh: not touching it"
  # Every Patroni agent at once (each stops its PostgreSQL on SIGTERM), at most 15 s, then
  # whatever is left the hard way; etcd last. The data is deleted next, so nothing is kept.
  for pidfile in "$dir"/pg*/patroni.pid; do [ -f "$pidfile" ] && pids+=("$(cat "$pidfile")"); done
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 150 ]; do tries=$((tries + 1)); sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  for member in "${members[@]}"; do
    [ -f "$dir/$member/data/postmaster.pid" ] && as_pg "$PG_BIN/pg_ctl" -D "$dir/$member/data" -m immediate -w -t 60 stop >/dev/null 2>&1 || true
  done
  if [ -f "$dir/etcd.pid" ]; then
    pid="$(cat "$dir/etcd.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}

cmd_supervise() {
  supervised_dir="$(mktemp -d "${TMPDIR:-/tmp}/fod-patroni.XXXXXX")"
  chmod 755 "$supervised_dir"
  trap 'cmd_stop "$supervised_dir" >/dev/null 2>&1' EXIT
  trap 'exit 1' TERM INT HUP
  local url
  url="$(cmd_start "$supervised_dir" 2>"$supervised_dir.setup.log")" \
    || { echo "error: $(tail -n 5 "$supervised_dir.setup.log" | tr '\n' ' ')"; rm -f "$supervised_dir.setup.log"; exit 1; }
  rm -f "$supervised_dir.setup.log"
  echo "ready $supervised_dir $url"
  cat >/dev/null || true
}

command="${1:-}"; [ $# -gt 0 ] && shift
case "$command" in
  start) cmd_start "$@" ;;
  url) url_of "${1:?url needs the directory}" ;;
  primary) primary_of "${1:?primary needs the directory}" || die "no primary now" ;;
  kill-primary) cmd_kill_primary "$@" ;;
  wait-primary) wait_ready "${1:?wait-primary needs the directory}" "${2:-}" 120 || die "no new primary with a synchronous standby" ;;
  stop) cmd_stop "$@" ;;
  supervise) cmd_supervise "$@" ;;
  *) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; [ -n "$command" ] && exit 2; exit 0 ;;
esac
