#!/usr/bin/env bash
# `make test` as a newcomer runs it: a fresh clone of this checkout's HEAD in a temporary
# directory, nothing beside it (no ../shared, no .build), then the README's test command. Prints
# how long it took; deletes the clone unless KEEP=1. Commit first: uncommitted changes are not in it.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
[ "${KEEP:-0}" = "1" ] || trap 'rm -rf "$work"' EXIT
git clone -q --no-local "$(pwd)" "$work/fod"
cd "$work/fod"
echo "== fresh clone of $(git rev-parse --short HEAD) in $work/fod: make test"
start=$(date +%s)
status=0
make test || status=$?
elapsed=$(( $(date +%s) - start ))
echo "== check-fresh: make test exited $status after $((elapsed / 60)) min $((elapsed % 60)) s"
exit "$status"
