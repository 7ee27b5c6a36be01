#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for tests and benchmarks: loopback only (TCP, no Unix
# socket), in its own directory, trust authentication, fsync and synchronous_commit on, WAL
# ready for streaming replicas. PostgreSQL refuses to run as root, so as root every server
# program runs as the `postgres` user (Debian's package creates it) and the directory is theirs.
#
#   scripts/pg-test-server.sh start [DIR]      start a primary in DIR; prints its postgresql:// URL
#   scripts/pg-test-server.sh url [DIR]        prints the URL of the server in DIR
#   scripts/pg-test-server.sh env [DIR]        prints `export FOD_DATABASE_URL=…` (for eval)
#   scripts/pg-test-server.sh stop [DIR]       stops the server and deletes DIR
#   scripts/pg-test-server.sh replica PRIMARY_DIR [DIR] [--name NAME] [--sync]
#                                              starts a streaming replica of the primary in PRIMARY_DIR
#                                              (pg_basebackup -R); --sync makes it the primary's
#                                              synchronous standby; prints its URL
#   scripts/pg-test-server.sh promote DIR      promotes a replica to primary (pg_ctl promote, waits)
#   scripts/pg-test-server.sh restart DIR      restarts the server (pg_ctl restart -m fast), same port;
#                                              returns once it accepts connections again
#   scripts/pg-test-server.sh crash DIR        kill -9 of the postmaster; returns once it is gone
#   scripts/pg-test-server.sh resume DIR       starts a stopped or crashed server again on its port
#                                              (crash recovery); returns once it accepts connections
#   scripts/pg-test-server.sh supervise [--replica-of PRIMARY_DIR] [--name NAME] [--sync]
#                                              for test processes: starts a server in a new temporary
#                                              directory, prints "ready PORT DIR URL", waits until its
#                                              standard input closes (the test process ended or let
#                                              go), then stops the server and deletes the directory
#
# DIR defaults to $FOD_PG_TEST_DIR or /tmp/fod-pg-test. The binaries come from
# $FOD_PG_BIN (default /usr/lib/postgresql/15/bin, Debian's postgresql-15); exit status 3 when
# they are missing. `stop` deletes only directories this script made (they hold .fod-pg-test).
set -euo pipefail

PG_BIN="${FOD_PG_BIN:-/usr/lib/postgresql/15/bin}"
DEFAULT_DIR="${FOD_PG_TEST_DIR:-/tmp/fod-pg-test}"

die() { echo "pg-test-server: $*" >&2; exit 1; }

require_binaries() {
  local tool
  for tool in initdb pg_ctl postgres pg_basebackup psql; do
    [ -x "$PG_BIN/$tool" ] || { echo "pg-test-server: $PG_BIN/$tool not found (apt-get install postgresql-15)" >&2; exit 3; }
  done
}

# Runs a PostgreSQL program as the postgres user when we are root, from / (which that user can
# read, unlike root's working directory).
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

# A directory for one server, owned by whoever runs it.
make_dir() {
  local dir="$1"
  mkdir -p "$dir"
  touch "$dir/.fod-pg-test"
  if [ "$(id -u)" -eq 0 ]; then
    getent passwd postgres >/dev/null || die "running as root needs the postgres user (apt-get install postgresql-15)"
    chown -R postgres:postgres "$dir"
  fi
  chmod 700 "$dir"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

url_of() { echo "postgresql://postgres@127.0.0.1:$(cat "$1/port")/postgres"; }

psql_on() {
  local port="$1"; shift
  as_pg "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"
}

# Runs "$@" with only standard input, output and error open (and bash's script descriptor).
# The server it starts outlives this script: it must not keep what our caller passed down
# (Foundation's Process watches a socket its child inherits, to learn when the child exited;
# it must close when this script exits, not when the server does).
without_inherited_descriptors() {
  (
    for fd_path in /proc/$BASHPID/fd/*; do
      fd="${fd_path##*/}"
      case "$fd" in 0|1|2|255) ;; *) eval "exec $fd>&-" 2>/dev/null || true ;; esac
    done
    "$@"
  )
}

# Starts the cluster in $1/data on a free port, trying another port when one is taken meanwhile.
start_cluster() {
  local dir="$1" attempt port
  for attempt in 1 2 3 4 5 6 7 8; do
    port="$(free_port)"
    echo "port = $port" >>"$dir/data/postgresql.conf"
    if without_inherited_descriptors as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start >&2; then
      echo "$port" >"$dir/port"
      return 0
    fi
    grep -q "could not bind\|Address already in use\|could not create any TCP/IP sockets" "$dir/server.log" || break
  done
  tail -n 20 "$dir/server.log" >&2 || true
  die "the server in $dir did not start"
}

cmd_start() {
  require_binaries
  local dir="${1:-$DEFAULT_DIR}"
  if [ -f "$dir/data/postmaster.pid" ] && as_pg "$PG_BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
    url_of "$dir"; return 0
  fi
  if [ ! -d "$dir/data" ]; then
    make_dir "$dir"
    # --no-sync: only initdb's own files skip fsync (a machine crash in the next seconds could
    # lose them); the server itself runs with fsync on.
    as_pg "$PG_BIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; die "initdb failed in $dir"; }
    cat >>"$dir/data/postgresql.conf" <<'EOF'
# pg-test-server.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = on
synchronous_commit = on
full_page_writes = on
wal_level = replica
max_wal_senders = 10
max_replication_slots = 10
wal_keep_size = '256MB'
hot_standby = on
max_connections = 1000
log_min_messages = warning
EOF
  fi
  start_cluster "$dir"
  url_of "$dir"
}

cmd_replica() {
  require_binaries
  local primary="" dir="" name="replica" sync=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --name) name="$2"; shift 2 ;;
      --sync) sync=1; shift ;;
      *) if [ -z "$primary" ]; then primary="$1"; elif [ -z "$dir" ]; then dir="$1"; else die "unexpected argument $1"; fi; shift ;;
    esac
  done
  [ -n "$primary" ] && [ -f "$primary/port" ] || die "replica needs the directory of a running primary"
  dir="${dir:-$primary-$name}"
  [ ! -e "$dir/data" ] || die "$dir/data exists already"
  local primary_port; primary_port="$(cat "$primary/port")"
  make_dir "$dir"
  # -R writes standby.signal and primary_conninfo (with this application_name, the name a
  # synchronous_standby_names entry matches).
  as_pg "$PG_BIN/pg_basebackup" -D "$dir/data" -R -X stream -c fast --no-sync \
    -d "host=127.0.0.1 port=$primary_port user=postgres application_name=$name" >"$dir/basebackup.log" 2>&1 \
    || { cat "$dir/basebackup.log" >&2; die "pg_basebackup from $primary failed"; }
  start_cluster "$dir"
  if [ "$sync" -eq 1 ]; then
    psql_on "$primary_port" -c "ALTER SYSTEM SET synchronous_standby_names = '\"$name\"'" -c "SELECT pg_reload_conf()" >/dev/null
  fi
  url_of "$dir"
}

cmd_promote() {
  require_binaries
  local dir="${1:?promote needs the directory of the replica}"
  as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -w -t 120 promote >&2
}

cmd_restart() {
  require_binaries
  local dir="${1:?restart needs the directory of the server}"
  without_inherited_descriptors as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 120 restart >&2
}

# The postmaster's process id (the first line of postmaster.pid), or nothing.
postmaster_pid() { head -n 1 "$1/data/postmaster.pid" 2>/dev/null || true; }

cmd_crash() {
  local dir="${1:?crash needs the directory of the server}" pid tries=0
  pid="$(postmaster_pid "$dir")"
  [ -n "$pid" ] || die "no postmaster.pid in $dir/data"
  kill -9 "$pid"
  # Polls (at most 30 s) until the process is gone.
  while kill -0 "$pid" 2>/dev/null; do
    tries=$((tries + 1)); [ "$tries" -lt 300 ] || die "postmaster $pid still running after kill -9"
    sleep 0.1
  done
}

cmd_resume() {
  require_binaries
  local dir="${1:?resume needs the directory of the server}" tries=0
  # After a crash the old backends may still hold the shared memory for a moment ("is still in
  # use"): try again, polling, at most 60 s.
  until without_inherited_descriptors as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start >&2; do
    tries=$((tries + 1)); [ "$tries" -lt 600 ] || die "the server in $dir did not start again"
    grep -q "still in use\|already exists" "$dir/server.log" || { tail -n 20 "$dir/server.log" >&2; die "the server in $dir did not start again"; }
    sleep 0.1
  done
}

cmd_stop() {
  local dir="${1:-$DEFAULT_DIR}"
  [ -d "$dir" ] || return 0
  [ -f "$dir/.fod-pg-test" ] || die "$dir was not made by pg-test-server.sh: not touching it"
  if [ -f "$dir/data/postmaster.pid" ]; then
    # Immediate: no shutdown checkpoint, as the data is deleted next.
    as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w -t 120 stop >&2 || true
  fi
  rm -rf "$dir"
}

cmd_supervise() {
  local replica_of="" args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --replica-of) replica_of="$2"; shift 2 ;;
      --name) args+=(--name "$2"); shift 2 ;;
      --sync) args+=(--sync); shift ;;
      *) die "unexpected argument $1" ;;
    esac
  done
  # Global, not local: the EXIT trap runs after this function returned.
  supervised_dir="$(mktemp -d "${TMPDIR:-/tmp}/fod-pg.XXXXXX")"
  local dir="$supervised_dir"
  touch "$dir/.fod-pg-test"
  trap 'cmd_stop "$supervised_dir" 2>/dev/null' EXIT
  trap 'exit 1' TERM INT HUP
  local url
  if [ -n "$replica_of" ]; then
    url="$(cmd_replica "$replica_of" "$dir" "${args[@]}" 2>"$dir.setup.log")" || { echo "error: $(tail -n 5 "$dir.setup.log" | tr '\n' ' ')"; rm -f "$dir.setup.log"; exit 1; }
  else
    url="$(cmd_start "$dir" 2>"$dir.setup.log")" || { echo "error: $(tail -n 5 "$dir.setup.log" | tr '\n' ' ')"; rm -f "$dir.setup.log"; exit 1; }
  fi
  rm -f "$dir.setup.log"
  echo "ready $(cat "$dir/port") $dir $url"
  # Until the test process closes our standard input (or exits, which closes it).
  cat >/dev/null || true
}

command="${1:-}"; [ $# -gt 0 ] && shift
case "$command" in
  start) cmd_start "$@" ;;
  url) url_of "${1:-$DEFAULT_DIR}" ;;
  env) echo "export FOD_DATABASE_URL='$(url_of "${1:-$DEFAULT_DIR}")'" ;;
  stop) cmd_stop "$@" ;;
  replica) cmd_replica "$@" ;;
  promote) cmd_promote "$@" ;;
  restart) cmd_restart "$@" ;;
  crash) cmd_crash "$@" ;;
  resume) cmd_resume "$@" ;;
  supervise) cmd_supervise "$@" ;;
  *) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; [ -n "$command" ] && exit 2; exit 0 ;;
esac
