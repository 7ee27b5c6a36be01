#!/usr/bin/env bash
# Soak benchmark (issue: bounded disk and memory under sustained ingest). For --minutes (default
# 10): batched ingest as fast as the server answers (100 fixes/request, one connection per
# device, 64 devices), 20 geo queries/s and a live stream, against a release build; every
# --interval seconds (default 5) it samples fixes/s, p99 latency, WAL bytes, database bytes and
# RSS; then 60 s of idling; then `fod db check`. Writes <label>.md (a table) and <label>.svg.
#   Benchmarks/soak/run.sh [--minutes N] [--quick] [--out DIR] [--label NAME]
#                          [--positions tracks|scattered] [--rate REQ_PER_S] [--serve-args "FLAGS"]
# --quick: 20 s on the debug build with a 4 MiB WAL bound (CI smoke; the figures mean nothing).
# FOD_BIN=<dir> runs another build's fod (e.g. an older checkout's .build/release).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
config=release; args=(); quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) config=debug
             quick=1; args+=(--minutes 0.33 --interval 2 --idle-before 1 --idle-after 6 --serve-args "--wal-limit-mib 4 --index-buffer 20000")
             echo "(--quick: a smoke run on the debug build; the figures mean nothing)" ;;
    --minutes|--interval|--out|--label|--positions|--rate|--serve-args|--query-rate|--idle-after|--idle-before) args+=("$1" "$2"); shift ;;
    --no-check|--keep) args+=("$1") ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac; shift
done
bin="${FOD_BIN:-$root/.build/$config}"
[ -x "$bin/fod" ] || { echo "build first: swift build -c $config" >&2; exit 1; }
tools="$(mktemp -d)"; trap 'rm -rf "$tools"' EXIT
gcc -O2 -Wall -o "$tools/soakload" "$here/soakload.c" -lm
ln -s "$(cd "$bin" && pwd)/fod" "$tools/fod"
[ "$quick" = 1 ] && args+=(--out "$tools/out")
python3 "$here/soak.py" --bin "$tools" "${args[@]}"
