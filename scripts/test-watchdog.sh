#!/usr/bin/env bash
# Runs a test command with a limit on its wall-clock time. A test run that hangs (a deadlock, a
# wait for an event that never comes) would otherwise hold CI until its own timeout and print
# nothing useful; past the limit this prints every thread's stack of each process the command
# started (with gdb when it is installed, else each thread's kernel wait channel), then stops the
# command and exits 124.
#
#   scripts/test-watchdog.sh SECONDS command [args...]
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 SECONDS command [args...]" >&2
  exit 2
fi
limit=$1
shift

# The command gets its own process group, so that stopping it stops what it started.
setsid "$@" &
leader=$!

# Every descendant of a process, depth first.
descendants() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

dump_stacks() {
  local pid
  echo "test-watchdog: '$*' still running after ${limit} s; the stacks of its processes follow." >&2
  for pid in $leader $(descendants "$leader"); do
    [ -d "/proc/$pid" ] || continue
    echo "=== process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)" >&2
    if command -v gdb >/dev/null 2>&1; then
      timeout 120 gdb -p "$pid" -batch -nx -ex "set pagination off" -ex "thread apply all bt 30" 2>&1 \
        | grep -v "^\[New LWP\|^warning: \|^Missing separate" >&2
    else
      local task
      for task in /proc/"$pid"/task/*; do
        echo "thread ${task##*/} ($(cat "$task/comm" 2>/dev/null)): waits in $(cat "$task/wchan" 2>/dev/null)" >&2
      done
    fi
  done
}

# Whichever ends first: the command, or a timer of the limit's length.
sleep "$limit" &
timer=$!
wait -n "$leader" "$timer"
if kill -0 "$leader" 2>/dev/null; then
  dump_stacks "$@"
  kill -TERM -- "-$leader" 2>/dev/null
  sleep 5
  kill -KILL -- "-$leader" 2>/dev/null
  wait "$leader" 2>/dev/null
  exit 124
fi
kill "$timer" 2>/dev/null
wait "$leader"
