#!/usr/bin/env bash
# Exports checked by the tools people use: GDAL's ogrinfo opens the GeoJSON and GPX exports of
# a seeded dataset and reports the expected feature counts; the Vega-Lite spec renders to PNG
# with vl-convert; the SVG passes xmllint. Artifacts go to Tests/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
fod="${1:-./.build/debug/fod}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p Tests/artifacts
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
"$fod" serve --port "$port" --bind 127.0.0.1 --data "$work/data" --password-cost minimal --signup open --log-level warning >/dev/null 2>&1 &
for _ in $(seq 1 2400); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.05; done

# Seed: a group where Ann and Bob share (40 fixes each, a 2-hour gap after 20 → 2 track parts)
# and Cat does not; expected: 2 Points + 2 MultiLineStrings; GPX: 40 track points in 2 segments.
read -r group ann_device ann <<<"$(python3 - "$base" <<'PY'
import json, sys, time, urllib.request
base = sys.argv[1]
def call(method, path, body=None, token=None):
    req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json", **({"Authorization": "Bearer " + token} if token else {})})
    return json.load(urllib.request.urlopen(req))
users = {n: call("POST", "/v1/users", {"email": f"{n}@example.org", "password": f"{n}-password", "displayName": n.title()})["token"] for n in ["ann", "bob", "cat"]}
devices = {n: call("POST", "/v1/devices", {"name": f"{n.title()} phone"}, users[n]) for n in users}
group = call("POST", "/v1/groups", {"name": "Check", "deviceId": devices["ann"]["device"]["id"]}, users["ann"])["id"]
for n in ["bob", "cat"]:
    call("POST", f"/v1/groups/{group}/invitations", {"email": f"{n}@example.org"}, users["ann"])
    call("POST", f"/v1/invitations/{group}/accept", {"deviceId": devices[n]["device"]["id"]}, users[n])
call("PUT", f"/v1/groups/{group}/sharing", {"shareLocation": False}, users["cat"])
start = int(time.time() * 1000) + 1000  # after joining: history before it is not the group's to read
for i, n in enumerate(users):
    fixes = [{"location": [13.4 + i * 0.1 + k * 0.001, 52.5 + k * 0.001], "altitude": 30 + k,
              "timestamp": start + k * 60000 + (7200000 if k >= 20 else 0)} for k in range(40)]
    r = call("POST", f"/v1/devices/{devices[n]['device']['id']}/locations", {"locations": fixes}, devices[n]["deviceToken"])
    assert r["accepted"] == 40, r
print(group, devices["ann"]["device"]["id"], users["ann"])
PY
)"
get() { curl -sf -H "Authorization: Bearer $ann" "$base$1" -o "$2"; }
get "/v1/groups/$group/export.geojson?tracks=true" Tests/artifacts/group.geojson
get "/v1/devices/$ann_device/export.gpx" Tests/artifacts/device.gpx
get "/v1/groups/$group/export/scatter?format=vega-lite&color=user" Tests/artifacts/scatter.vl.json
get "/v1/groups/$group/export/scatter?format=svg" Tests/artifacts/scatter.svg

count() { ogrinfo -ro -so "$1" ${2:-} | sed -n 's/^Feature Count: //p' | head -1; }
expect() { [ "$1" = "$2" ] || { echo "FAIL: $3: expected $2, got $1"; exit 1; }; echo "ok: $3 = $1"; }
expect "$(ogrinfo -ro -al -so Tests/artifacts/group.geojson | sed -n 's/^Feature Count: //p')" 4 "ogrinfo GeoJSON features (2 positions + 2 tracks; Cat hidden)"
expect "$(ogrinfo -ro -al Tests/artifacts/group.geojson | grep -c 'MULTILINESTRING')" 2 "ogrinfo GeoJSON track geometries"
expect "$(count Tests/artifacts/device.gpx track_points)" 40 "ogrinfo GPX track_points"
expect "$(count Tests/artifacts/device.gpx tracks)" 1 "ogrinfo GPX tracks"
xmllint --noout Tests/artifacts/scatter.svg && echo "ok: xmllint SVG"
xmllint --noout Tests/artifacts/device.gpx && echo "ok: xmllint GPX (with the fod: extension namespace)"
# vl-convert from PyPI, pinned, in .build/python-tools (made on first use).
"$(./scripts/python-tools.sh)/bin/python" - <<'PY'
import vl_convert as vlc
spec = open("Tests/artifacts/scatter.vl.json").read()
png = vlc.vegalite_to_png(vl_spec=spec, scale=1)
assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000, len(png)
open("Tests/artifacts/scatter.png", "wb").write(png)
print(f"ok: vl-convert rendered the Vega-Lite spec to PNG ({len(png)} bytes)")
PY
echo "export checks passed"
