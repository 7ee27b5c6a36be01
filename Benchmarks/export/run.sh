#!/usr/bin/env bash
# Export benchmark: 1,000,000 fixes (1,000 devices of one group, people-like places) exported
# as GeoJSON tracks by `fod export` (the same code as GET /v1/groups/{id}/export.geojson).
# Reports fixes/s and peak RSS growth over the same command exporting latest positions only.
#   Benchmarks/export/run.sh [--fixes N] [--keep DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
fixes=1000000; keep=""
while [ $# -gt 0 ]; do case "$1" in --fixes) fixes="$2"; shift ;; --keep) keep="$2"; shift ;; *) exit 2 ;; esac; shift; done
bin="$root/.build/release"
dir="${keep:-$(mktemp -d)}"
[ -f "$dir/fod.sqlite" ] || "$bin/fod-geo-bench" "$root/../shared/data/geonames-cities1000.csv" "$root/Data/countries-110m.geojson" \
    --fixes "$fixes" --queries 1 --scans 0 --keep "$dir" > /dev/null
python3 - "$bin/fod" "$dir" <<'PY'
import resource, subprocess, sys, time
fod, data = sys.argv[1], sys.argv[2]
def run(extra):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.time()
    out = subprocess.run([fod, "export", "group-geojson", "g", "--as", "m1@bench", "--data", data, "--out", "/dev/null"] + extra,
                         capture_output=True, text=True)
    if out.returncode != 0: sys.exit(out.stderr)
    return time.time() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, out.stderr.strip().splitlines()[-1]
# ru_maxrss of RUSAGE_CHILDREN is the largest child so far: run the small export first.
base_s, base_kb, _ = run([])
track_s, track_kb, line = run(["--tracks"])
n = int(line.split("exported ")[1].split(" ")[0])
print(f"latest positions only: {base_s:.2f} s, peak RSS {base_kb/1024:.1f} MiB")
print(f"tracks: {line}")
print(f"tracks: {n} fixes in {track_s:.2f} s = {n/track_s:,.0f} fixes/s; peak RSS {track_kb/1024:.1f} MiB, growth {(track_kb-base_kb)/1024:.1f} MiB")
PY
[ -n "$keep" ] || rm -rf "$dir"
