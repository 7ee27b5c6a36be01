#!/usr/bin/env bash
# Timeline benchmark through the server (issue 15): the synthetic year of one-minute fixes of
# fod-timeline-bench (525,600; commutes, jitter, outliers) imported into a device, then
# GET /v1/devices/{id}/timeline over the whole year (stays, trips, town names), timed with curl:
# median of --rounds, next to the segmenter alone on the same fixes in one process.
# Usage: Benchmarks/timeline/run.sh [--days 365] [--rounds 5] [--quick]; run it niced on a shared machine.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
days=365; rounds=5; config=release
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) days=3; rounds=1; config=debug ;;
    --days) days="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac; shift
done
bin="$root/.build/$config"
[ -x "$bin/fod" ] && [ -x "$bin/fod-timeline-bench" ] || { echo "build first: swift build -c $config" >&2; exit 1; }
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin/fod-timeline-bench" --days "$days" --csv "$work/year.csv"
echo "== segmenter alone, same fixes"
"$bin/fod-timeline-bench" --days "$days" --rounds "$rounds" | head -2
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin/fod" serve --port "$port" --bind 127.0.0.1 --data "$work/data" --log-level warning --password-cost minimal \
  --device-request-rate 0 >/dev/null 2>"$work/fod.log" &
for _ in $(seq 1 2400); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
read -r device token user < <(python3 "$here/../lib/fod_api.py" "$port")
curl -sS -X POST -T "$work/year.csv" -H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/devices/$device/import" \
  | python3 -c 'import json,sys; r=json.load(sys.stdin); print("imported", r["accepted"], "fixes (" + r["format"] + ")")'
from=2024-01-01T00:00:00Z; to=$(python3 -c "import datetime as d; print((d.datetime(2024,1,1)+d.timedelta(days=$days)).strftime('%Y-%m-%dT%H:%M:%SZ'))")
url="http://127.0.0.1:$port/v1/devices/$device/timeline?from=$from&to=$to"
times=()
for _ in $(seq 1 "$rounds"); do
  times+=("$(curl -sS -o "$work/timeline.json" -w '%{time_total}' -H "Authorization: Bearer $user" "$url")")
done
python3 - "$work/timeline.json" "${times[@]}" <<'PY'
import json, statistics, sys
doc = json.load(open(sys.argv[1])); t = sorted(float(x) for x in sys.argv[2:])
seg = doc["segments"]; stays = [s for s in seg if s["type"] == "stay"]
named = sum(1 for s in stays if s.get("place"))
print(f"GET timeline over the range: {len(seg)} segments ({len(stays)} stays, {named} named, {len(seg) - len(stays)} trips), "
      f"{len(json.dumps(doc)) / 1e6:.1f} MB of JSON; median {statistics.median(t):.3f} s, min {t[0]:.3f} s over {len(t)} rounds")
PY
